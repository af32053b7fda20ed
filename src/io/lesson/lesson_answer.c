/* lesson_answer.c - a lesson question's answer, computed from the result on
 * screen: the lesson file says what to compute (the row's strongest key, a
 * weight, a score, ...), never the value, so the answer is right for any
 * sentence and any settings the student has. Also what a page's settings
 * mean at run time: the model configuration, the focused head, a token.
 */
#include "io/lesson_answer.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/av.h"
#include "core/lens.h"
#include "core/posenc.h"
#include "io/lesson_kind.h"

/* ---- a page's settings at run time ---- */

void lesson_config(const LessonSettings *s, ModelConfig *c)
{
    model_config_default(c);
    c->H = s->H, c->d_model = s->d_model, c->layers = s->layers, c->seed = s->seed;
    c->causal = s->causal, c->pe = s->pe, c->scale = s->scale;
    c->temperature = s->temperature;
    c->preset = s->weights ? PRESET_LOADED : s->preset;
}

int lesson_head_index(const LessonSettings *s, const ModelConfig *c, int layer)
{
    if (!s->head_label)
        return s->head <= c->H ? s->head - 1 : c->H - 1;
    size_t n = strlen(s->head_label);
    for (int h = 0; h < c->H; h++)
        for (const char *l = model_head_label(c, layer, h); *l; l++)
            if (strncasecmp(l, s->head_label, n) == 0)
                return h;
    return -1;
}

int lesson_token_index(const LessonTokenRef *ref, const TokenList *t)
{
    if (ref->index == LESSON_TOKEN_LAST)
        return t->n - 1;
    if (ref->index)
        return ref->index <= t->n ? ref->index - 1 : -1;
    if (!ref->text)
        return -1;
    for (int i = 0; i < t->n; i++)
        if (strcasecmp(t->tok[i].str, ref->text) == 0)
            return i;
    for (int i = 0; i < t->n; i++) { /* a byte-level BPE's token holds the space before it */
        const char *s = t->tok[i].str;
        for (;;) { /* a space, or its mark in GPT-2's tokens (core/bpe.h) */
            if (*s == ' ')
                s++;
            else if (strncmp(s, "\xe2\x90\xa3", 3) == 0)
                s += 3;
            else
                break;
        }
        if (s != t->tok[i].str && *s && strcasecmp(s, ref->text) == 0)
            return i;
    }
    return -1;
}

/* ---- answers ---- */

/* The first number written in s ("about 38%" -> 38), or NAN. */
static double first_number(const char *s)
{
    for (; *s; s++) {
        bool digit = isdigit((unsigned char)*s);
        bool signed_digit = (*s == '-' || *s == '.') && isdigit((unsigned char)s[1]);
        if (digit || signed_digit)
            return strtod(s, NULL);
    }
    return NAN;
}

/* Whether choice c names token t (ignoring ASCII case and quotes). */
static bool choice_is(const char *c, const char *t)
{
    size_t n = strlen(c), m = strlen(t);
    if (n >= 2 && (c[0] == '"' || c[0] == '\'') && c[n - 1] == c[0])
        c++, n -= 2;
    return n == m && strncasecmp(c, t, n) == 0;
}

static int match_choice(const LessonQuestion *q, const LessonAnswer *a, const ModelResult *r)
{
    int best = -1;
    double best_d = INFINITY;
    for (int k = 0; k < q->n_choices; k++) {
        if (a->is_token) {
            if (choice_is(q->choices[k], model_key_tokens(r)->tok[a->token].str))
                return k;
            continue;
        }
        double v = first_number(q->choices[k]), d = fabs(v - a->value);
        if (isinf(a->value) && isinf(v) && (v > 0) == (a->value > 0))
            d = 0;
        if (d < best_d)
            best = k, best_d = d;
    }
    return best;
}

/* The row's strongest (dir > 0) or weakest visible key. */
static int extreme_key(const float *row, int vis, int dir)
{
    int best = 0;
    for (int j = 1; j < vis; j++)
        if (dir > 0 ? row[j] > row[best] : row[j] < row[best])
            best = j;
    return best;
}

static double row_entropy(const float *row, int vis)
{
    double e = 0;
    for (int j = 0; j < vis; j++)
        if (row[j] > 0)
            e -= row[j] * log2((double)row[j]);
    return e;
}

/* What each answer reads of the result (model_holds): a result that does
 * not hold it (imported or combined weights have no Q, K or V; a long
 * text's weights are not kept) gets AV_ERR_NEEDS_MODEL, never a read of a
 * buffer it lacks. Cells, tokens and PE need the shape alone; d_k needs Q
 * and K (imported weights have heads but no d_k). */
static const unsigned answer_needs[LESSON_ANS_COUNT] = {
    [LESSON_ANS_TOP] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_LOW] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_WEIGHT] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_SCORE] = MODEL_HOLDS_WEIGHTS | MODEL_HOLDS_QK,
    [LESSON_ANS_DOT] = MODEL_HOLDS_WEIGHTS | MODEL_HOLDS_QK,
    [LESSON_ANS_MAX] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_SUM] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_ENTROPY] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_VISIBLE] = MODEL_HOLDS_WEIGHTS,
    [LESSON_ANS_OUTPUT] = MODEL_HOLDS_WEIGHTS | MODEL_HOLDS_QK | MODEL_HOLDS_VECTORS,
    [LESSON_ANS_DK] = MODEL_HOLDS_QK, /* weights from elsewhere have no d_k */
};

unsigned lesson_answer_needs(const LessonQuestion *q)
{
    return q->answer >= 0 && q->answer < LESSON_ANS_COUNT ? answer_needs[q->answer] : 0;
}

/* The answers that need the row's weights or vectors: the caller has
 * checked that r holds what the answer needs (answer_needs). */
static int row_answer(const LessonQuestion *q, const ModelResult *r, int layer, int h, int i,
                      LessonAnswer *a)
{
    const AttnShape *s = &r->shape;
    const AttnBuffers *b = &r->layer[layer].ab;
    const float *P = model_head_P(r, layer, h);
    if (i < 0 || i >= s->n_q)
        return AV_ERR_CONFIG;
    const float *row = P + (size_t)i * s->n_k;
    int vis = attention_visible_keys(s, i), d_k = s->d_model / s->H;
    int j = lesson_token_index(&q->key, model_key_tokens(r));
    bool keyed = q->answer == LESSON_ANS_WEIGHT || q->answer == LESSON_ANS_SCORE ||
                 q->answer == LESSON_ANS_DOT;
    if (keyed && j < 0)
        return AV_ERR_CONFIG;
    switch (q->answer) {
    case LESSON_ANS_TOP:
    case LESSON_ANS_LOW:
        a->is_token = true;
        a->token = extreme_key(row, vis, q->answer == LESSON_ANS_TOP ? 1 : -1);
        a->value = 100.0 * row[a->token];
        return AV_OK;
    case LESSON_ANS_WEIGHT: a->value = 100.0 * row[j], a->unit = "%"; return AV_OK;
    case LESSON_ANS_SCORE: a->value = attention_score(s, h, b->Q, b->K, i, j); return AV_OK;
    case LESSON_ANS_DOT: {
        const float *q_i = b->Q + (size_t)i * s->d_model + h * d_k;
        const float *k_j = b->K + (size_t)j * s->d_model + h * d_k;
        double dot = 0;
        for (int c = 0; c < d_k; c++)
            dot += (double)q_i[c] * k_j[c];
        a->value = dot;
        return AV_OK;
    }
    case LESSON_ANS_MAX: a->value = 100.0 * row[extreme_key(row, vis, 1)], a->unit = "%"; break;
    case LESSON_ANS_SUM:
        a->value = 0, a->unit = "%";
        for (int k = 0; k < s->n_k; k++)
            a->value += 100.0 * row[k];
        break;
    case LESSON_ANS_ENTROPY: a->value = row_entropy(row, vis), a->unit = " bits"; break;
    case LESSON_ANS_VISIBLE: a->value = vis; break;
    case LESSON_ANS_OUTPUT:
        if (q->arg1 > d_k)
            return AV_ERR_CONFIG;
        a->value = b->concat[(size_t)i * s->d_model + h * d_k + q->arg1 - 1];
        break;
    default: return AV_ERR_CONFIG;
    }
    return AV_OK;
}

int lesson_answer(const LessonQuestion *q, const ModelResult *r, const ModelConfig *c, int layer,
                  int h, int i, LessonAnswer *a)
{
    memset(a, 0, sizeof *a);
    a->unit = "";
    a->choice = -1;
    const AttnShape *s = &r->shape;
    if (q->kind == LESSON_ASK_NONE || s->n_q == 0 || layer < 0 || layer >= r->L || h < 0 ||
        h >= s->H)
        return AV_ERR_CONFIG;
    unsigned need = lesson_answer_needs(q);
    if ((model_holds(r, layer) & need) != need)
        return AV_ERR_NEEDS_MODEL;
    int err = AV_OK;
    switch (q->answer) {
    case LESSON_ANS_CELLS: a->value = (double)s->n_q * s->n_k; break;
    case LESSON_ANS_TOKENS: a->value = s->n_q; break;
    case LESSON_ANS_DK: a->value = s->d_model / s->H; break;
    case LESSON_ANS_PE:
        if (q->arg2 >= c->d_model)
            return AV_ERR_CONFIG;
        a->value = posenc_value(q->arg1, q->arg2, c->d_model);
        break;
    default: err = row_answer(q, r, layer, h, i, a);
    }
    if (!err)
        a->choice = match_choice(q, a, r);
    return err;
}

void lesson_answer_text(const LessonAnswer *a, const ModelResult *r, char *buf, size_t size)
{
    if (a->is_token) {
        snprintf(buf, size, "%s (%.1f%%)", model_key_tokens(r)->tok[a->token].str, a->value);
        return;
    }
    if (isinf(a->value)) {
        snprintf(buf, size, "%s", a->value < 0 ? "-inf (masked)" : "inf");
        return;
    }
    bool whole = a->value == floor(a->value) && fabs(a->value) < 1e15;
    /* to the precision a student predicts in: an entropy of 8.8e-12 bits is
     * 0.00 bits, a value of 3e-7 is 0.0000 */
    double v = a->value;
    if (a->unit[0] == '%')
        snprintf(buf, size, "%.1f%%", v);
    else if (whole)
        snprintf(buf, size, "%.0f%s", v, a->unit);
    else if (!strcmp(a->unit, " bits"))
        snprintf(buf, size, "%.2f%s", fabs(v) < 0.005 ? 0.0 : v, a->unit);
    else if (fabs(v) < 0.001 || fabs(v) >= 1e6)
        snprintf(buf, size, "%.4f%s", fabs(v) < 0.00005 ? 0.0 : v, a->unit);
    else
        snprintf(buf, size, "%.4g%s", v, a->unit);
}

double lesson_tolerance(const LessonQuestion *q, const LessonAnswer *a)
{
    if (q->tolerance >= 0)
        return q->tolerance;
    double t = fabs(a->value) * 0.05;
    if (a->unit[0] == '%' && t < 2)
        t = 2;
    return t < 0.01 ? 0.01 : t;
}

bool lesson_typed_right(const LessonQuestion *q, const LessonAnswer *a, const char *typed)
{
    const double v = strtod(typed, NULL), tol = lesson_tolerance(q, a);
    if (fabs(v - a->value) <= tol)
        return true;
    return a->unit[0] == '%' && v >= 0 && v <= 1 && fabs(v * 100 - a->value) <= tol;
}

/* ---- claims ---- */

/* A lens term's value (lens_rows, lens_prob) from ls, NULL when the page
 * shows none. lens_prob's layer is a grid row + 1 (0: the last row). */
static int lens_eval(const LessonClaimTerm *t, const ModelResult *r, const Lens *ls, int row,
                     LessonAnswer *a, char *why, size_t len)
{
    if (!ls || ls->n <= 0 || ls->rows <= 0)
        return snprintf(why, len, "the page does not show the lens"), AV_ERR_CONFIG;
    if (t->answer == LESSON_ANS_LENS_ROWS) {
        a->value = ls->rows;
        return AV_OK;
    }
    int l = t->layer ? t->layer - 1 : ls->rows - 1;
    int i = t->query.index || t->query.text ? lesson_token_index(&t->query, &r->tokens) : row;
    if (l >= ls->rows)
        return snprintf(why, len, "the lens has no layer %d (rows 0 to %d)", l, ls->rows - 1),
               AV_ERR_CONFIG;
    if (i < 0 || i >= ls->n)
        return snprintf(why, len, "the lens has no token %s",
                        t->query.text ? t->query.text : "of that number"),
               AV_ERR_CONFIG;
    size_t at = lens_at(ls, l, i);
    if (ls->ids[at] < 0)
        return snprintf(why, len, "the lens cell holds no token"), AV_ERR_CONFIG;
    a->value = 100.0 * ls->probs[at], a->unit = "%";
    return AV_OK;
}

/* A side's value: an answer on r (or on the lens ls), or the constant. */
static int term_eval(const LessonClaimTerm *t, const ModelResult *r, const ModelConfig *cfg,
                     const Lens *ls, int layer, int head, int row, LessonAnswer *a, char *why,
                     size_t len)
{
    memset(a, 0, sizeof *a);
    a->unit = "";
    if (t->is_const) {
        a->is_token = t->is_token, a->value = t->value;
        return AV_OK;
    }
    if (t->answer == LESSON_ANS_LAYERS) {
        a->value = r->L + t->offset;
        return AV_OK;
    }
    if (t->answer == LESSON_ANS_LENS_ROWS || t->answer == LESSON_ANS_LENS_PROB) {
        int err = lens_eval(t, r, ls, row, a, why, len);
        a->value += t->offset;
        return err;
    }
    int L = t->layer ? t->layer - 1 : layer, h = t->head ? t->head - 1 : head;
    int i = t->query.index || t->query.text ? lesson_token_index(&t->query, &r->tokens) : row;
    if (L >= r->L)
        return snprintf(why, len, "there is no layer %d", L + 1), AV_ERR_CONFIG;
    if (h >= r->shape.H)
        return snprintf(why, len, "there is no head %d", h + 1), AV_ERR_CONFIG;
    if (i < 0)
        return snprintf(why, len, "the sentence has no token %s",
                        t->query.text ? t->query.text : "of that number"),
               AV_ERR_CONFIG;
    LessonQuestion q = {.kind = t->answer <= LESSON_ANS_LOW ? LESSON_ASK_TOKEN : LESSON_ASK_NUMBER,
                        .answer = t->answer,
                        .key = t->key,
                        .arg1 = t->arg1,
                        .arg2 = t->arg2,
                        .tolerance = -1};
    int err = lesson_answer(&q, r, cfg, L, h, i, a);
    a->value += t->offset;
    if (err == AV_ERR_NEEDS_MODEL)
        snprintf(why, len, "the result shown does not hold what %s reads",
                 lesson_kind_name(t->answer));
    else if (err)
        snprintf(why, len, "%s cannot be read here (a key not in the sentence?)",
                 lesson_kind_name(t->answer));
    return err;
}

/* A side as text: its value, or the constant as written. */
static void term_text(const LessonClaimTerm *t, const LessonAnswer *a, const ModelResult *r,
                      char *buf, size_t len)
{
    if (t->is_const && t->is_token)
        snprintf(buf, len, "%s", t->token);
    else if (t->is_const)
        snprintf(buf, len, "%g%s", t->value, t->answer == LESSON_ANS_WEIGHT ? "%" : "");
    else
        lesson_answer_text(a, r, buf, len);
}

/* Whether two tokens' sides are the same token (a constant by its text). */
static bool same_token(const LessonClaimTerm *ta, const LessonAnswer *a, const LessonClaimTerm *tb,
                       const LessonAnswer *b, const ModelResult *r)
{
    const TokenList *keys = model_key_tokens(r);
    if (ta->is_const)
        return !strcasecmp(ta->token, keys->tok[b->token].str);
    if (tb->is_const)
        return !strcasecmp(tb->token, keys->tok[a->token].str);
    return a->token == b->token;
}

static bool compare(LessonClaimOp op, double x, double y, double eq)
{
    switch (op) {
    case CLAIM_EQ: return fabs(x - y) <= eq;
    case CLAIM_NE: return fabs(x - y) > eq;
    case CLAIM_LT: return x < y;
    case CLAIM_LE: return x <= y + eq;
    case CLAIM_GT: return x > y;
    default: return x >= y - eq;
    }
}

int lesson_answer_claim(const LessonClaim *c, const ModelResult *r, const ModelConfig *cfg,
                        const Lens *ls, int layer, int head, int row, LessonClaimVerdict *v)
{
    memset(v, 0, sizeof *v);
    LessonAnswer a, b;
    int err = term_eval(&c->a, r, cfg, ls, layer, head, row, &a, v->why, sizeof v->why);
    if (!err)
        err = term_eval(&c->b, r, cfg, ls, layer, head, row, &b, v->why, sizeof v->why);
    if (err)
        return err;
    term_text(&c->a, &a, r, v->a, sizeof v->a);
    term_text(&c->b, &b, r, v->b, sizeof v->b);
    if (a.is_token) {
        bool same = same_token(&c->a, &a, &c->b, &b, r);
        v->holds = c->op == CLAIM_EQ ? same : !same;
        return AV_OK;
    }
    /* == with a written number: to its precision; two answers: exactly */
    double eq = c->a.is_const   ? c->a.half_ulp
                : c->b.is_const ? c->b.half_ulp
                                : 1e-9 * fmax(1, fabs(a.value));
    v->holds = compare(c->op, a.value, b.value, eq);
    return AV_OK;
}
