/* kind.c - the one dispatch to a model kind's table (kind.h): every caller
 * (the batch command line, the interface, the handouts) goes through here.
 */
#include "app/kind.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "core/utf8.h"
#include "io/dirswap.h"
#include "io/dump.h"
#include "render/grid.h"

/* Control bytes of the bad piece as '?', so a message stays one line. */
static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

int kind_run(Kind *k, const ModelConfig *c, const char *text, size_t len, const char *cross,
             size_t cross_len, ModelResult *r)
{
    k->bad[0] = 0;
    int err = k->cls->run(k, c, text, len, cross, cross_len, r);
    printable(k->bad);
    /* the text as typed, for the exports' titles (the tokens are the axes);
     * none of a kind whose tokens are its own (imported attention) */
    bool typed = !err && !k->cls->no_sentence;
    int kept = model_result_set_text(r, typed ? text : NULL, len, typed ? cross : NULL, cross_len);
    return err ? err : kept;
}

int kind_run_ids(Kind *k, const ModelConfig *c, const int *ids, int n, ModelResult *r)
{
    k->bad[0] = 0;
    if (!k->cls->run_ids) {
        r->shape.n_q = 0;
        return AV_ERR_CONFIG;
    }
    model_result_set_text(r, NULL, 0, NULL, 0); /* ids: no text but the tokens */
    return k->cls->run_ids(k, c, ids, n, r);
}

bool kind_vocab(const Kind *k, const ModelConfig *c, int *V, int *n_max)
{
    *V = *n_max = 0;
    if (!k->cls->run_ids || !k->cls->vocab)
        return false;
    k->cls->vocab(k, c, V, n_max);
    return *V > 0 && *n_max > 0;
}

void kind_wrap(const Kind *k, int *cls, int *sep)
{
    *cls = *sep = -1;
    if (k->cls->wrap)
        k->cls->wrap(k, cls, sep);
}

int kind_generate(Kind *k, const char *text, size_t len, int count, float temperature, int top_k,
                  uint64_t seed, char **out, size_t *cont)
{
    k->bad[0] = 0;
    *out = NULL;
    if (!kind_generates(k))
        return AV_ERR_CONFIG;
    int err = k->cls->generate(k, text, len, count, temperature, top_k, seed, out, cont);
    printable(k->bad);
    return err;
}

bool kind_generates(const Kind *k)
{
    return k->cls->generate && !kind_refuses(k, KIND_ASK_GENERATE);
}

const char *kind_refuses(const Kind *k, KindAsk ask)
{
    const char *why = k->cls->refuses ? k->cls->refuses(k, ask) : NULL;
    if (!why && ask == KIND_ASK_MASK && k->cls->causal_only)
        why = "this model is causal: the mask stays on";
    return why;
}

int kind_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap, int *V)
{
    k->bad[0] = 0;
    if (!k->cls->logits)
        return AV_ERR_CONFIG;
    int err = k->cls->logits(k, text, len, pos, out, cap, V);
    printable(k->bad);
    return err;
}

bool kind_has_logits(const Kind *k)
{
    return k->cls->logits != NULL;
}

int kind_lens(Kind *k, const char *text, size_t len, Lens *ls)
{
    k->bad[0] = 0;
    if (!k->cls->lens)
        return AV_ERR_NEEDS_MODEL;
    int err = k->cls->lens(k, text, len, ls);
    printable(k->bad);
    return err;
}

bool kind_has_lens(const Kind *k)
{
    return k->cls->lens != NULL;
}

void kind_token_text(const Kind *k, int id, char *out, size_t len)
{
    if (k->cls->token_text)
        k->cls->token_text(k, id, out, len);
    else if (len)
        snprintf(out, len, "#%d", id);
}

bool kind_status(const Kind *k, const ModelConfig *c, bool wide, bool dk_hidden, char *out,
                 size_t len)
{
    if (len)
        out[0] = 0;
    if (!k->cls->status)
        return false;
    k->cls->status(k, c, wide, dk_hidden, out, len);
    return true;
}

void kind_scaling_whatif(const ModelConfig *c, char *out, size_t len)
{
    char temp[32] = "";
    if (c->temperature != 1.0f)
        snprintf(temp, sizeof temp, "temp %g", (double)c->temperature);
    snprintf(out, len, "%s%s%s", c->scale ? "" : "scaling off", !c->scale && temp[0] ? ", " : "",
             temp);
}

bool kind_cost(const Kind *k, KindCost *cost)
{
    return k->cls->cost && k->cls->cost(k, cost);
}

void kind_config(const Kind *k, ModelConfig *c)
{
    if (k->cls->config)
        k->cls->config(k, c);
}

void kind_describe(const Kind *k, int form, char *msg, size_t len)
{
    if (len)
        msg[0] = 0;
    if (k->cls->describe)
        k->cls->describe(k, form, 0, msg, len);
}

void kind_describe_fit(const Kind *k, int width, char *msg, size_t len)
{
    for (int f = 0; f < KIND_DESCRIBE_FORMS; f++) {
        kind_describe(k, f, msg, len);
        if (grid_text_width(msg) <= width)
            return;
    }
    if (!k->cls->describe)
        return;
    /* a name of KIND_NAME_MIN columns, then as many more as the line leaves */
    const int last = KIND_DESCRIBE_FORMS - 1;
    k->cls->describe(k, last, KIND_NAME_MIN, msg, len);
    int left = width - grid_text_width(msg);
    if (left > 0)
        k->cls->describe(k, last, KIND_NAME_MIN + left, msg, len);
}

/* The byte offset of code point n of s (its length when s has fewer). */
static size_t cp_offset(const char *s, int n)
{
    size_t at = 0, len = strlen(s);
    unsigned cp;
    for (int k = 0; k < n && at < len; k++) {
        int step = utf8_decode(s + at, len - at, &cp);
        at += step > 0 ? (size_t)step : 1;
    }
    return at;
}

/* The code points of s. */
static int cp_count(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

void kind_short_name(const char *name, int cols, char *out, size_t len)
{
    const int n = cp_count(name);
    const char *slash = strchr(name, '/');
    if (cols <= 0 || n <= cols) {
        snprintf(out, len, "%s", name);
    } else if (slash && cols - cp_count(slash + 1) - 2 >= 1) { /* "sentence-tr…/all-MiniLM" */
        int org = cols - cp_count(slash + 1) - 2;
        snprintf(out, len, "%.*s\u2026%s", (int)cp_offset(name, org), name, slash);
    } else { /* "some-org…model-v2": the start and the end */
        int head = cols / 2, tail = cols - 1 - head;
        snprintf(out, len, "%.*s\u2026%s", (int)cp_offset(name, head), name,
                 name + cp_offset(name, n - tail));
    }
}

int kind_poll(Kind *k, bool *changed, char *msg, size_t len)
{
    *changed = false;
    return k->cls->poll ? k->cls->poll(k, changed, msg, len) : AV_OK;
}

bool kind_source(const Kind *k, AttnSource *src)
{
    return k->cls->source && k->cls->source(k, src);
}

void kind_release(const Kind *k, int l)
{
    if (k->cls->release)
        k->cls->release(k, l);
}

const float *kind_out_proj(const Kind *k, int l)
{
    return k->cls->out_proj ? k->cls->out_proj(k, l) : NULL;
}

int kind_dump(const Kind *k, const char *dir, const ModelResult *r, const ModelConfig *c,
              const char **which)
{
    char other[512];
    DirSwap swap;
    *which = NULL; /* the folder itself */
    if (dump_check_folder(dir, other, sizeof other) || dirswap_begin(&swap, dir))
        return AV_ERR_IO;
    /* written beside dir, then swapped in: an earlier dump's files never
     * stay beside this one's, and a failed dump leaves the earlier whole */
    int err =
        k->cls->dump ? k->cls->dump(k, swap.tmp, r, c, which) : dump_write(swap.tmp, r, c, which);
    if (err) {
        dirswap_abort(&swap);
        return err;
    }
    *which = NULL;
    return dirswap_commit(&swap);
}

void kind_close(Kind *k)
{
    if (k->cls && k->cls->close)
        k->cls->close(k);
    memset(k, 0, sizeof *k);
}

const char *kind_label(const Kind *k)
{
    return k->cls->label ? k->cls->label(k) : NULL;
}

const char *kind_warning(const Kind *k)
{
    return k->cls->warning ? k->cls->warning(k) : NULL;
}

char *kind_start_text(const Kind *k)
{
    return k->cls->start_text ? k->cls->start_text(k) : NULL;
}

void kind_run_note(const Kind *k, const ModelResult *r, char *out, size_t len)
{
    if (len)
        out[0] = '\0';
    if (k->cls->run_note)
        k->cls->run_note(k, r, out, len);
}

/* Whether dir/name exists. */
static bool has_file(const char *dir, const char *name)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

/* A folder no other row claims, as attnviz's own model: one that is not a
 * folder, or holds neither kind's first file, is said as what it lacks for
 * every kind it could be (not as model.json's read error alone). */
static int trained_load(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                        size_t whylen)
{
    (void)progress, (void)ctx; /* attnviz's own models are small */
    struct stat st;
    *k = (Kind){0};
    int r = stat(dir, &st);
    if (r != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, whylen, "%s: %s", dir,
                 r == 0            ? "not a folder"
                 : errno == ENOENT ? "no such folder"
                                   : strerror(errno));
        return AV_ERR_MODEL;
    }
    if (!has_file(dir, "model.json") && !has_file(dir, "config.json")) {
        snprintf(why, whylen,
                 "%s holds neither model.json (attnviz's own model) nor "
                 "config.json (a Hugging Face GPT-2 or BERT folder)",
                 dir);
        return AV_ERR_MODEL;
    }
    int err = kind_trained_load(k, dir, why, whylen);
    if (err)
        *k = (Kind){0};
    return err;
}

/* The folder kinds, first claim first: a folder no earlier row claims is
 * attnviz's own (its reader says what is missing). */
static const struct {
    bool (*claims)(const char *dir); /* NULL: every folder */
    int (*load)(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why, size_t whylen);
} FOLDER_KINDS[] = {
    {kind_bert_folder, kind_bert_load}, /* before GPT-2's, which claims any config.json */
    {kind_gpt2_folder, kind_gpt2_load},
    {NULL, trained_load},
};

int kind_open_folder(Kind *k, const char *dir, HfProgress progress, void *ctx, char *why,
                     size_t whylen)
{
    if (whylen)
        why[0] = '\0';
    size_t n = sizeof FOLDER_KINDS / sizeof FOLDER_KINDS[0];
    for (size_t i = 0; i < n; i++)
        if (!FOLDER_KINDS[i].claims || FOLDER_KINDS[i].claims(dir))
            return FOLDER_KINDS[i].load(k, dir, progress, ctx, why, whylen);
    return AV_ERR_MODEL; /* not reached: the last row claims every folder */
}

const char *kind_predict_title(const Kind *k, bool wide)
{
    if (k->cls->predict_title)
        return k->cls->predict_title;
    return wide ? "Next token after" : "Next after";
}
