/* designed.c - hand-built attention heads and their lexicon embeddings.
 *
 * Every number here is chosen, not learned: designed.h explains each head.
 * Scores below are before the 1/sqrt(d_k) scaling (d_k = 32, factor 0.177);
 * the gains were tuned so each head puts most of its weight where its label
 * says on the articles' sentences and on sentences of our own (tests).
 */
#include "core/designed.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "core/av.h"
#include "core/embed.h"
#include "core/rng.h"

#define D DESIGNED_D_MODEL
#define D_K (DESIGNED_D_MODEL / DESIGNED_HEADS)
#define PAIRS 16 /* PE pairs in dimensions 0..31 */
/* Features live in dimensions >= 128, where the encoding's frequencies are
 * below 0.0022 per position: its sine there is nearly 0, its cosine nearly 1.
 * Queries read even dimensions only (sin ~ 0 adds nothing). Keys may also
 * read odd ones: the cosine's ~1 adds the same to every key's score, which
 * the softmax cancels. */
#define DIM_VERB_Q 128                  /* even: a verb, read by queries */
#define DIM_PRON_AGR(a) (130 + 2 * (a)) /* even: a pronoun's agreement */
#define ID_DIMS 24
#define DIM_ID(m) (138 + 2 * (m))       /* even: 24 dimensions of identity code */
#define DIM_CLASS(c) (129 + 2 * (c))    /* odd: word class, read by keys */
#define DIM_NOUN_AGR(a) (145 + 2 * (a)) /* odd: a noun's agreement */
#define DIM_ONE (D - 1)                 /* cos(pos * 10000^-(190/192)): 1 within 1e-3 */

enum { CLASS_NOUN, CLASS_VERB, CLASS_PRONOUN, CLASS_DET, CLASS_PREP, CLASS_CONJ, CLASS_ADJ,
       CLASS_ADV, CLASS_COUNT };
static const char *const class_names[CLASS_COUNT] = {"noun", "verb", "pronoun", "det",
                                                     "prep", "conj", "adj", "adv"};
static const char *const agr_names[4] = {"female", "male", "thing", "plural"};

static const char lexicon[] =
#include "lexicon.inc"
    ;

static const char *const labels[DESIGNED_HEADS] = {
    "previous token", "self", "first token", "same word", "pronoun -> noun",
    "verb -> subject",
};

static const char *const helps[DESIGNED_HEADS] = {
    "Q turns each positional pair (sin, cos)(w*pos) back by one step of w, the rotation "
    "property of sinusoidal encodings; K keeps it. q_i.k_j = sum cos(w (i-1-j)), largest "
    "at j = i-1.",
    "Q and K both copy the positional pairs: q_i.k_j = sum cos(w (i-j)), largest at j = i.",
    "Q is a constant; K copies cos(w*pos), which is largest at position 0.",
    "Q and K copy a sparse identity code of the word; a small positional term makes a "
    "word prefer another occurrence over itself.",
    "Q holds a pronoun's agreement (she: female, it: thing), K a noun's, from the toy "
    "lexicon; other tokens look at themselves a little. The lexicon cannot know which of "
    "two agreeing nouns is meant: \"it\" splits between trophy and suitcase.",
    "Q marks verbs, K marks nouns and pronouns, and a broad positional term prefers the "
    "tokens just before the verb.",
};

const char *designed_head_label(int h)
{
    return h >= 0 && h < DESIGNED_HEADS ? labels[h] : "random";
}

const char *designed_head_help(int h)
{
    return h >= 0 && h < DESIGNED_HEADS ? helps[h] : "";
}

static double omega(int k)
{
    return pow(10000.0, -2.0 * k / D);
}

/* Column c of head h. */
static int col(int h, int c)
{
    return h * D_K + c;
}

/* W[r][c] of a (D, D) matrix. */
static void set(float *W, int r, int c, double v)
{
    W[(size_t)r * D + c] = (float)v;
}

/* Q maps PE pair k at position p to gain * (sin, cos)(w_k (p - shift)) in
 * columns (c, c+1); K copies the pair. Then q_i.k_j = gain * cos(w_k (i - shift - j)). */
static void pe_pair(float *Wq, float *Wk, int k, int c, double gain, double shift)
{
    double w = omega(k) * shift, cs = cos(w), sn = sin(w);
    set(Wq, 2 * k, c, gain * cs);
    set(Wq, 2 * k + 1, c, -gain * sn);
    set(Wq, 2 * k, c + 1, gain * sn);
    set(Wq, 2 * k + 1, c + 1, gain * cs);
    set(Wk, 2 * k, c, 1.0);
    set(Wk, 2 * k + 1, c + 1, 1.0);
}

static void heads_positional(float *Wq, float *Wk)
{
    for (int k = 0; k < PAIRS; k++) {
        pe_pair(Wq, Wk, k, col(0, 2 * k), 10.0, 1.0); /* previous token */
        pe_pair(Wq, Wk, k, col(1, 2 * k), 10.0, 0.0); /* self */
        set(Wq, DIM_ONE, col(2, k), 10.0);           /* first token */
        set(Wk, 2 * k + 1, col(2, k), 1.0);
    }
}

static void heads_lexical(float *Wq, float *Wk)
{
    for (int m = 0; m < ID_DIMS; m++) { /* same word */
        set(Wq, DIM_ID(m), col(3, m), 34.0);
        set(Wk, DIM_ID(m), col(3, m), 1.0);
    }
    for (int k = 0; k < 4; k++)
        pe_pair(Wq, Wk, k, col(3, ID_DIMS + 2 * k), -2.0, 0.0); /* ... not itself */
    for (int k = 0; k < 8; k++) {
        pe_pair(Wq, Wk, k, col(4, 4 + 2 * k), 1.5, 0.0);   /* others: a little self */
    }
    for (int a = 0; a < 4; a++) { /* pronoun -> agreeing noun */
        set(Wq, DIM_PRON_AGR(a), col(4, a), 40.0);
        set(Wk, DIM_NOUN_AGR(a), col(4, a), 1.0);
    }
    set(Wq, DIM_VERB_Q, col(5, 0), 30.0); /* verb -> noun or pronoun */
    set(Wk, DIM_CLASS(CLASS_NOUN), col(5, 0), 1.0);
    set(Wk, DIM_CLASS(CLASS_PRONOUN), col(5, 0), 1.0);
    for (int k = 8; k < PAIRS; k++) /* ... just before the verb */
        pe_pair(Wq, Wk, k, col(5, 1 + 2 * (k - 8)), 6.0, 1.5);
}

void designed_weights(float *Wq, float *Wk, float *Wv, float *Wo)
{
    float *M[4] = {Wq, Wk, Wv, Wo};
    for (int k = 0; k < 4; k++)
        memset(M[k], 0, (size_t)D * D * sizeof(float));
    heads_positional(Wq, Wk);
    heads_lexical(Wq, Wk);
    /* Values and output pass the embedding through unchanged: each head's
     * output is a weighted mix of its own 32 dimensions of X. */
    for (int r = 0; r < D; r++) {
        set(Wv, r, r, 1.0);
        set(Wo, r, r, 1.0);
    }
}

/* Find a folded word in the lexicon; on success point *line at its entry. */
static bool lexicon_find(const char *folded, const char **entry)
{
    size_t len = strlen(folded);
    for (const char *p = lexicon; *p;) {
        const char *nl = strchr(p, '\n');
        const char *end = nl ? nl : p + strlen(p);
        if (*p != '#' && (size_t)(end - p) > len && strncmp(p, folded, len) == 0 &&
            p[len] == ' ') {
            *entry = p + len + 1;
            return true;
        }
        p = nl ? nl + 1 : end;
    }
    return false;
}

/* The index in names[] of the word starting at s, or -1. */
static int field_index(const char *s, const char *const *names, int count)
{
    for (int k = 0; k < count; k++) {
        size_t len = strlen(names[k]);
        if (strncmp(s, names[k], len) == 0 && (s[len] == ' ' || s[len] == '\n' || !s[len]))
            return k;
    }
    return -1;
}

/* Class and agreement of a token's text (case-folded lookup). */
static void word_features(const char *word, int *cls, int *agr)
{
    char folded[AV_MAX_TOKEN_BYTES + 1];
    const char *entry;
    size_t len = strlen(word);
    *cls = *agr = -1;
    if (len > AV_MAX_TOKEN_BYTES)
        return;
    embed_casefold(word, len, folded);
    if (!lexicon_find(folded, &entry))
        return;
    *cls = field_index(entry, class_names, CLASS_COUNT);
    const char *sp = strchr(entry, ' '), *nl = strchr(entry, '\n');
    if (sp && (!nl || sp < nl))
        *agr = field_index(sp + 1, agr_names, 4);
}

const char *designed_word_class(const char *word)
{
    int cls, agr;
    word_features(word, &cls, &agr);
    return cls >= 0 ? class_names[cls] : "";
}

/* Two of the 24 identity dimensions, with signs, from the folded word's hash:
 * most pairs of distinct words share no dimension (84%), so their codes are
 * orthogonal; the rest overlap by 1/2, well below a word's match with itself. */
static void identity_code(const char *word, float *row)
{
    char folded[AV_MAX_TOKEN_BYTES + 1];
    size_t len = strlen(word);
    len = len > AV_MAX_TOKEN_BYTES ? AV_MAX_TOKEN_BYTES : len;
    size_t flen = embed_casefold(word, len, folded);
    uint64_t h = rng_mix(rng_hash(folded, flen));
    int a = (int)(h % ID_DIMS), b = (int)((h >> 8) % (ID_DIMS - 1));
    b = b >= a ? b + 1 : b;
    const float v = 0.70710678f;
    row[DIM_ID(a)] = h >> 40 & 1 ? v : -v;
    row[DIM_ID(b)] = h >> 41 & 1 ? v : -v;
}

void designed_embed(const TokenList *t, float *X)
{
    memset(X, 0, (size_t)t->n * D * sizeof *X);
    for (int i = 0; i < t->n; i++) {
        float *row_i = X + (size_t)i * D;
        int cls, agr;
        word_features(t->tok[i].str, &cls, &agr);
        if (cls >= 0)
            row_i[DIM_CLASS(cls)] = 1.0f;
        if (cls == CLASS_VERB)
            row_i[DIM_VERB_Q] = 1.0f;
        if (agr >= 0 && cls == CLASS_NOUN)
            row_i[DIM_NOUN_AGR(agr)] = 1.0f;
        if (agr >= 0 && cls == CLASS_PRONOUN)
            row_i[DIM_PRON_AGR(agr)] = 1.0f;
        identity_code(t->tok[i].str, row_i);
    }
}
