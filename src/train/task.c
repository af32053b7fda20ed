/* task.c - the training tasks' vocabularies and batch generators.
 *
 * Every batch is a pure function of (seed, step): sequence b of step s draws
 * from its own SplitMix64 stream, seeded from the three, so batches do not
 * depend on what was generated before (a resumed or re-run training sees the
 * same data). Sequences are generated one token longer than n, and the
 * targets are the inputs shifted by one.
 */
#include "train/task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/rng.h"
#include "grammar.h"

#define SEG_MIN 4
#define SEG_MAX 12

static const char *const NAMES[] = {"induction", "copy", "reverse", "sort", "text", "grammar"};

const char *task_names(void)
{
    return "induction, copy, reverse, sort (or copy-digits, reverse-digits, sort-digits), "
           "text FILE, grammar [FILE]";
}

/* vocab from n single-byte strings of chars. */
static int vocab_chars(Task *t, const char *chars)
{
    int n = (int)strlen(chars);
    t->vocab = calloc((size_t)n, sizeof *t->vocab);
    if (!t->vocab)
        return AV_ERR_NOMEM;
    for (t->V = 0; t->V < n; t->V++) {
        char s[2] = {chars[t->V], 0};
        if (!(t->vocab[t->V] = strdup(s)))
            return AV_ERR_NOMEM;
    }
    return AV_OK;
}

/* Length of the valid UTF-8 sequence at p (at most left bytes), 0 if invalid. */
static int utf8_len(const unsigned char *p, size_t left)
{
    unsigned c = p[0];
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!n || (size_t)n > left)
        return 0;
    unsigned u = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
    for (int k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        u = u << 6 | (p[k] & 0x3f);
    }
    static const unsigned lo[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (u < lo[n] || u > 0x10ffff || (u >= 0xd800 && u < 0xe000) || u == 0)
        return 0;
    return n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The text task: vocabulary = distinct code points, sorted; text as ids. */
static int init_text(Task *t, const char *data, size_t len)
{
    t->text = malloc((len ? len : 1) * sizeof *t->text);
    if (!t->text)
        return AV_ERR_NOMEM;
    for (size_t at = 0; at < len;) {
        int n = utf8_len((const unsigned char *)data + at, len - at);
        if (!n)
            return AV_ERR_UTF8;
        char s[5] = {0};
        memcpy(s, data + at, (size_t)n);
        at += (size_t)n;
        int id = task_token_id(t, s);
        if (id < 0) {
            char **v = realloc(t->vocab, (size_t)(t->V + 1) * sizeof *v);
            if (!v)
                return AV_ERR_NOMEM;
            t->vocab = v;
            if (!(v[t->V] = strdup(s)))
                return AV_ERR_NOMEM;
            t->V++;
        }
        t->text_len++;
    }
    if (t->text_len < 2)
        return AV_ERR_EMPTY;
    qsort(t->vocab, (size_t)t->V, sizeof *t->vocab, cmp_str);
    /* second pass: ids in the sorted vocabulary (UTF-8 order = code point order) */
    long k = 0;
    for (size_t at = 0; at < len; k++) {
        int n = utf8_len((const unsigned char *)data + at, len - at);
        char s[5] = {0}, *key = s;
        memcpy(s, data + at, (size_t)n);
        at += (size_t)n;
        char **hit = bsearch(&key, t->vocab, (size_t)t->V, sizeof *t->vocab, cmp_str);
        t->text[k] = (int)(hit - t->vocab);
    }
    return AV_OK;
}

static int init_grammar(Task *t, const char *data, size_t len, char *why, size_t whylen)
{
    t->grammar = malloc(sizeof *t->grammar);
    if (!t->grammar)
        return AV_ERR_NOMEM;
    if (!data) {
        data = grammar_builtin_rules();
        len = strlen(data);
    }
    int err = grammar_parse(t->grammar, data, len, why, whylen);
    if (err) {
        free(t->grammar);
        t->grammar = NULL;
        return err;
    }
    t->tokenizer = MODEL_TOK_WORDS;
    t->vocab = calloc((size_t)t->grammar->V, sizeof *t->vocab);
    if (!t->vocab)
        return AV_ERR_NOMEM;
    for (t->V = 0; t->V < t->grammar->V; t->V++)
        if (!(t->vocab[t->V] = strdup(t->grammar->words[t->V])))
            return AV_ERR_NOMEM;
    return AV_OK;
}

int task_init(Task *t, const char *name, const char *data, size_t len, char *why, size_t whylen)
{
    memset(t, 0, sizeof *t);
    int k = 0, err;
    size_t base = strcspn(name, "-");
    while (k < 6 && (strlen(NAMES[k]) != base || strncmp(name, NAMES[k], base) != 0))
        k++;
    t->digits = strcmp(name + base, "-digits") == 0;
    if (k == 6 || (name[base] && !(t->digits && k >= 1 && k <= 3))) {
        snprintf(why, whylen, "unknown task '%s' (tasks: %s)", name, task_names());
        return AV_ERR_CONFIG;
    }
    t->kind = (TaskKind)k;
    snprintf(t->name, sizeof t->name, "%s", name);
    if (t->kind == TASK_INDUCTION)
        err = vocab_chars(t, "abcdefghijklmnopqrstuvwxyz");
    else if (t->kind <= TASK_SORT)
        err = vocab_chars(t, t->digits ? ".0123456789|" : ".abcdefghijklmnopqrstuvwxyz|");
    else if (t->kind == TASK_TEXT)
        err = init_text(t, data ? data : "", data ? len : 0);
    else
        err = init_grammar(t, data, len, why, whylen);
    if (err == AV_ERR_UTF8)
        snprintf(why, whylen, "the text is not valid UTF-8");
    else if (err == AV_ERR_EMPTY)
        snprintf(why, whylen, "the text needs at least two characters");
    if (err)
        task_free(t);
    return err;
}

void task_free(Task *t)
{
    for (int i = 0; t->vocab && i < t->V; i++)
        free(t->vocab[i]);
    free(t->vocab);
    free(t->text);
    if (t->grammar) {
        grammar_free(t->grammar);
        free(t->grammar);
    }
    memset(t, 0, sizeof *t);
}

int task_batch_init(Batch *b, const Task *t, int B, int n)
{
    memset(b, 0, sizeof *b);
    const size_t N = (size_t)B * n;
    b->B = B, b->n = n;
    b->tok = malloc(N * sizeof *b->tok);
    b->tgt = malloc(N * sizeof *b->tgt);
    b->mask = malloc(N * sizeof *b->mask);
    b->metric = malloc(N * sizeof *b->metric);
    if (t->kind == TASK_GRAMMAR)
        b->pairs = malloc(2 * N * sizeof *b->pairs);
    if (!b->tok || !b->tgt || !b->mask || !b->metric || (t->kind == TASK_GRAMMAR && !b->pairs)) {
        task_batch_free(b);
        return AV_ERR_NOMEM;
    }
    return AV_OK;
}

void task_batch_free(Batch *b)
{
    free(b->tok);
    free(b->tgt);
    free(b->mask);
    free(b->metric);
    free(b->pairs);
    memset(b, 0, sizeof *b);
}

/* Induction: s (n + 1) = a segment of distinct letters repeated; w marks
 * the targets after the first period. */
static void gen_induction(Rng *r, int *s, float *w, int len)
{
    int letters[26], P = SEG_MIN + (int)(rng_next(r) % (SEG_MAX - SEG_MIN + 1));
    for (int k = 0; k < 26; k++)
        letters[k] = k;
    for (int k = 0; k < P; k++) { /* a partial Fisher-Yates shuffle */
        int j = k + (int)(rng_next(r) % (uint64_t)(26 - k)), tmp = letters[k];
        letters[k] = letters[j], letters[j] = tmp;
    }
    for (int i = 0; i < len; i++) {
        s[i] = letters[i % P];
        w[i] = i >= P ? 1.0f : 0.0f;
    }
}

static int cmp_int(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

/* copy / reverse / sort: "abc|cba." examples; w marks the answers. */
static void gen_seq2seq(const Task *t, Rng *r, int *s, float *w, int len)
{
    const int stop = 0, sep = t->V - 1, symbols = t->V - 2;
    int max_len = (len - 3) / 2 < 8 ? (len - 3) / 2 : 8;
    for (int i = 0; i < len;) {
        int L = 2 + (int)(rng_next(r) % (uint64_t)(max_len > 2 ? max_len - 1 : 1)), x[8];
        for (int k = 0; k < L; k++)
            x[k] = 1 + (int)(rng_next(r) % (uint64_t)symbols);
        int ex[20], m = 0;
        for (int k = 0; k < L; k++)
            ex[m++] = x[k];
        ex[m++] = sep;
        if (t->kind == TASK_SORT)
            qsort(x, (size_t)L, sizeof *x, cmp_int);
        for (int k = 0; k < L; k++)
            ex[m++] = t->kind == TASK_REVERSE ? x[L - 1 - k] : x[k];
        ex[m++] = stop;
        for (int k = 0; k < m && i < len; k++, i++) {
            s[i] = ex[k];
            w[i] = k > L ? 1.0f : 0.0f;
        }
    }
}

/* grammar: sentences from a random phase; pairs gets (pronoun, antecedent)
 * positions in input coordinates, -1 terminated; metric marks pronouns. */
static void gen_grammar(const Task *t, Rng *r, int *s, float *w, float *metric, int *pairs, int n)
{
    int phase = (int)(rng_next(r) % GRAMMAR_SENTENCE), np = 0;
    for (int i = -phase; i < n + 1; i += GRAMMAR_SENTENCE) {
        int sent[GRAMMAR_SENTENCE], pp, ap;
        grammar_sentence(t->grammar, r, sent, &pp, &ap);
        for (int k = 0; k < GRAMMAR_SENTENCE; k++)
            if (i + k >= 0 && i + k < n + 1)
                s[i + k] = sent[k];
        if (i + ap >= 0 && i + pp < n) {
            pairs[2 * np] = i + pp, pairs[2 * np + 1] = i + ap, np++;
            metric[i + pp] = 1.0f;
        }
    }
    for (int i = 0; i < n + 1; i++)
        w[i] = 1.0f;
    if (np < n)
        pairs[2 * np] = pairs[2 * np + 1] = -1;
}

void task_batch(const Task *t, uint64_t seed, long step, Batch *b)
{
    const int n = b->n;
    int *s = malloc((size_t)(n + 1) * sizeof *s);
    float *w = malloc((size_t)(n + 1) * sizeof *w);
    if (!s || !w) { /* tiny; never expected, and the batch stays the previous one */
        free(s), free(w);
        return;
    }
    for (int q = 0; q < b->B; q++) {
        Rng r;
        rng_seed(&r, rng_mix(seed) ^ rng_mix((uint64_t)step * 0x10001u + (uint64_t)q + 1));
        float *metric = b->metric + (long)q * n;
        memset(metric, 0, (size_t)n * sizeof *metric);
        if (t->kind == TASK_INDUCTION)
            gen_induction(&r, s, w, n + 1);
        else if (t->kind <= TASK_SORT)
            gen_seq2seq(t, &r, s, w, n + 1);
        else if (t->kind == TASK_GRAMMAR)
            gen_grammar(t, &r, s, w, metric, b->pairs + 2L * q * n, n);
        if (t->kind == TASK_TEXT) {
            long span = t->text_len > n + 1 ? t->text_len - n : t->text_len;
            long at = (long)(rng_next(&r) % (uint64_t)span);
            for (int i = 0; i < n + 1; i++)
                s[i] = t->text[(at + i) % t->text_len], w[i] = 1.0f;
        }
        for (int i = 0; i < n; i++) {
            b->tok[(long)q * n + i] = s[i];
            b->tgt[(long)q * n + i] = s[i + 1];
            b->mask[(long)q * n + i] = w[i + 1];
            if (t->kind != TASK_GRAMMAR)
                metric[i] = w[i + 1];
        }
    }
    free(s);
    free(w);
}

double task_accuracy(const Batch *b, const float *probs, int V)
{
    double hit = 0.0, count = 0.0;
    for (long r = 0; r < (long)b->B * b->n; r++) {
        if (b->metric[r] <= 0.0f)
            continue;
        const float *p = probs + r * V;
        int best = 0;
        for (int v = 1; v < V; v++)
            best = p[v] > p[best] ? v : best;
        hit += best == b->tgt[r];
        count += 1.0;
    }
    return count > 0.0 ? hit / count : 0.0;
}

double task_accuracy_best(const Batch *b, const int *best)
{
    double hit = 0.0, count = 0.0;
    for (long r = 0; r < (long)b->B * b->n; r++) {
        if (b->metric[r] <= 0.0f)
            continue;
        hit += best[r] == b->tgt[r];
        count += 1.0;
    }
    return count > 0.0 ? hit / count : 0.0;
}

const char *task_grammar_rules(void)
{
    return grammar_builtin_rules();
}

int task_token_id(const Task *t, const char *str)
{
    for (int i = 0; i < t->V; i++)
        if (strcmp(t->vocab[i], str) == 0)
            return i;
    return -1;
}
