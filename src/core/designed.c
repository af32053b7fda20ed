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
#define DIM_NOUN_ANIM 153               /* odd: a noun names something alive */
#define DIM_PRON_ANIM 186               /* even: a pronoun whose predicate wants life */
#define ANIM_LOOKAHEAD 3                /* "it was too tired": the predicate's reach */
#define DIM_ONE (D - 1)                 /* cos(pos * 10000^-(190/192)): 1 within 1e-3 */

enum {
    CLASS_NOUN,
    CLASS_VERB,
    CLASS_PRONOUN,
    CLASS_DET,
    CLASS_PREP,
    CLASS_CONJ,
    CLASS_ADJ,
    CLASS_ADV,
    CLASS_COUNT
};
static const char *const class_names[CLASS_COUNT] = {"noun", "verb", "pronoun", "det",
                                                     "prep", "conj", "adj",     "adv"};
static const char *const agr_names[4] = {"female", "male", "thing", "plural"};

static const char lexicon[] =
#include "lexicon.inc"
    ;

static const char *const labels[DESIGNED_HEADS] = {
    "previous token", "self", "first token", "same word", "pronoun -> noun", "verb -> subject",
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
    "lexicon; other tokens look at themselves a little. When an adjective that wants a "
    "living subject follows the pronoun (\"it was tired\"), Q also asks for nouns the "
    "lexicon marks animate: \"it\" finds the cat, not the mat. A capitalised word the "
    "lexicon does not know, not at a sentence's start, counts as a person (\"Priya\"). "
    "What needs knowledge of the world stays open: in \"the trophy didn't fit in the "
    "suitcase because it was too big\" \"it\" splits between trophy and suitcase.",
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
        set(Wq, DIM_ONE, col(2, k), 10.0);            /* first token */
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
        pe_pair(Wq, Wk, k, col(4, 4 + 2 * k), 1.5, 0.0); /* others: a little self */
    }
    for (int a = 0; a < 4; a++) { /* pronoun -> agreeing noun */
        set(Wq, DIM_PRON_AGR(a), col(4, a), 40.0);
        set(Wk, DIM_NOUN_AGR(a), col(4, a), 1.0);
    }
    set(Wq, DIM_PRON_ANIM, col(4, 20), 24.0); /* ... alive when the predicate wants it */
    set(Wk, DIM_NOUN_ANIM, col(4, 20), 1.0);
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
        if (*p != '#' && (size_t)(end - p) > len && strncmp(p, folded, len) == 0 && p[len] == ' ') {
            *entry = p + len + 1;
            return true;
        }
        p = nl ? nl + 1 : end;
    }
    return false;
}

/* The lexicon's lines by their first word, for a whole text's lookups (a
 * scan of the lexicon per token was a tenth of a keystroke at 2,048 tokens):
 * open addressing on the word's hash, slot = 1 + the line's offset, 0 empty.
 * Each word keeps its first line, the one lexicon_find finds. */
enum { LEX_SLOTS = 1024 }; /* a power of two, well above the lexicon's lines */
typedef struct {
    int at[LEX_SLOTS];
} LexIndex;

static void lex_index(LexIndex *ix)
{
    memset(ix, 0, sizeof *ix);
    for (const char *p = lexicon; *p;) {
        const char *nl = strchr(p, '\n'), *end = nl ? nl : p + strlen(p);
        const char *sp = memchr(p, ' ', (size_t)(end - p));
        if (*p != '#' && sp) { /* lexicon_find matches a word followed by a space */
            size_t len = (size_t)(sp - p), k = rng_hash(p, len) & (LEX_SLOTS - 1);
            for (; ix->at[k]; k = (k + 1) & (LEX_SLOTS - 1))
                if (strncmp(lexicon + ix->at[k] - 1, p, len + 1) == 0)
                    break; /* an earlier line of the word */
            if (!ix->at[k])
                ix->at[k] = (int)(p - lexicon) + 1;
        }
        p = nl ? nl + 1 : end;
    }
}

/* lexicon_find through the index (NULL: the scan); a word the index cannot
 * key (empty, or holding a space or a line break) takes the scan too. */
static bool lexicon_lookup(const LexIndex *ix, const char *folded, const char **entry)
{
    size_t len = strlen(folded);
    if (!ix || !len || strpbrk(folded, " \n"))
        return lexicon_find(folded, entry);
    for (size_t k = rng_hash(folded, len) & (LEX_SLOTS - 1); ix->at[k];
         k = (k + 1) & (LEX_SLOTS - 1)) {
        const char *p = lexicon + ix->at[k] - 1;
        if (strncmp(p, folded, len) == 0 && p[len] == ' ') {
            *entry = p + len + 1;
            return true;
        }
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

/* A word's lexicon features: class, agreement, and "animate" (a noun that
 * names something alive, or an adjective that wants it of its subject). */
typedef struct {
    int cls, agr; /* -1 when not given */
    bool animate;
} WordFeatures;

/* Whether the entry's fields (up to its line's end) hold the word w. */
static bool entry_has(const char *entry, const char *w)
{
    size_t len = strlen(w);
    for (const char *p = entry; *p && *p != '\n'; p++)
        if ((p == entry || p[-1] == ' ') && strncmp(p, w, len) == 0 &&
            (p[len] == ' ' || p[len] == '\n' || !p[len]))
            return true;
    return false;
}

/* The features of a token's text (case-folded lookup). */
static WordFeatures word_features(const LexIndex *ix, const char *word)
{
    char folded[AV_MAX_TOKEN_BYTES + 1];
    const char *entry;
    size_t len = strlen(word);
    WordFeatures f = {-1, -1, false};
    if (len > AV_MAX_TOKEN_BYTES)
        return f;
    embed_casefold(word, len, folded);
    if (!lexicon_lookup(ix, folded, &entry))
        return f;
    f.cls = field_index(entry, class_names, CLASS_COUNT);
    const char *sp = strchr(entry, ' '), *nl = strchr(entry, '\n');
    if (sp && (!nl || sp < nl))
        f.agr = field_index(sp + 1, agr_names, 4);
    f.animate = entry_has(entry, "animate");
    return f;
}

const char *designed_word_class(const char *word)
{
    WordFeatures f = word_features(NULL, word);
    return f.cls >= 0 ? class_names[f.cls] : "";
}

bool designed_word_animate(const char *word)
{
    return word_features(NULL, word).animate;
}

/* Does token i start a sentence (the first, or after . ! ?)? */
static bool sentence_initial(const TokenList *t, int i)
{
    if (i == 0)
        return true;
    const char *p = t->tok[i - 1].str;
    return strcmp(p, ".") == 0 || strcmp(p, "!") == 0 || strcmp(p, "?") == 0;
}

/* A word the lexicon does not know, capitalised (A-Z) and not at the start
 * of a sentence: a name ("Priya"), so a person of either agreement. */
static bool is_name(const TokenList *t, int i, const WordFeatures *f)
{
    const char *s = t->tok[i].str;
    return f->cls < 0 && s[0] >= 'A' && s[0] <= 'Z' && !sentence_initial(t, i);
}

/* Does an adjective that wants a living subject follow pronoun i closely
 * ("it was tired")? The predicate decides what "it" can be: work an earlier
 * layer would do, here read off the lexicon. */
static bool predicate_wants_life(const LexIndex *ix, const TokenList *t, int i)
{
    for (int k = i + 1; k < t->n && k <= i + ANIM_LOOKAHEAD; k++) {
        WordFeatures f = word_features(ix, t->tok[k].str);
        if (f.cls == CLASS_ADJ)
            return f.animate;
        if (f.cls == CLASS_NOUN || f.cls == CLASS_PRONOUN || sentence_initial(t, k))
            return false;
    }
    return false;
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
    LexIndex ix;
    lex_index(&ix);
    memset(X, 0, (size_t)t->n * D * sizeof *X);
    for (int i = 0; i < t->n; i++) {
        float *row_i = X + (size_t)i * D;
        WordFeatures f = word_features(&ix, t->tok[i].str);
        if (is_name(t, i, &f)) {
            row_i[DIM_NOUN_AGR(0)] = row_i[DIM_NOUN_AGR(1)] = 1.0f; /* she or he */
            f = (WordFeatures){CLASS_NOUN, -1, true};
        }
        if (f.cls >= 0)
            row_i[DIM_CLASS(f.cls)] = 1.0f;
        if (f.cls == CLASS_VERB)
            row_i[DIM_VERB_Q] = 1.0f;
        if (f.agr >= 0 && f.cls == CLASS_NOUN)
            row_i[DIM_NOUN_AGR(f.agr)] = 1.0f;
        if (f.cls == CLASS_NOUN && f.animate)
            row_i[DIM_NOUN_ANIM] = 1.0f;
        if (f.agr >= 0 && f.cls == CLASS_PRONOUN)
            row_i[DIM_PRON_AGR(f.agr)] = 1.0f;
        if (f.cls == CLASS_PRONOUN && predicate_wants_life(&ix, t, i))
            row_i[DIM_PRON_ANIM] = 1.0f;
        identity_code(t->tok[i].str, row_i);
    }
}
