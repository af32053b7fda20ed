/* lesson_claim.c - a lesson page's claim lines parsed (io/lesson_claim.h).
 * Each side that is not a constant names a question's answer for a row,
 * head and layer; lesson_answer.c computes it, so a claim reads the
 * numbers exactly as a question's reveal does.
 */
#include "io/lesson_claim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/lesson_value.h"

static const char *const op_text[] = {"==", "!=", "<", "<=", ">", ">="};

static char *trim(char *s)
{
    s += strspn(s, " \t");
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* The operator outside parentheses and quotes: its position and length. */
static char *find_op(char *s, LessonClaimOp *op, size_t *len)
{
    int depth = 0;
    bool quoted = false;
    for (char *p = s; *p; p++) {
        if (*p == '"')
            quoted = !quoted;
        if (quoted)
            continue;
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        if (depth || !strchr("=!<>", *p))
            continue;
        bool eq2 = p[1] == '=';
        *len = eq2 ? 2 : 1;
        switch (*p) {
        case '=': *op = CLAIM_EQ; return p;
        case '!': *op = CLAIM_NE; return eq2 ? p : NULL;
        case '<': *op = eq2 ? CLAIM_LE : CLAIM_LT; return p;
        default: *op = eq2 ? CLAIM_GE : CLAIM_GT; return p;
        }
    }
    return NULL;
}

/* Half a unit of the last digit written in a number ("52.2" -> 0.05). */
static double half_ulp(const char *s)
{
    const char *dot = strchr(s, '.');
    int decimals = 0;
    while (dot && dot[1 + decimals] >= '0' && dot[1 + decimals] <= '9')
        decimals++;
    return 0.5 * pow(10, -decimals);
}

/* A constant: a number (with % or bits) or a token's text. */
static void parse_const(char *s, LessonClaimTerm *t)
{
    char *end;
    double x = strtod(s, &end);
    const char *unit = end + strspn(end, " \t");
    t->is_const = true;
    if (end != s && (!*unit || !strcmp(unit, "%") || !strcmp(unit, "bits"))) {
        t->value = x, t->half_ulp = half_ulp(s);
        t->answer = *unit == '%' ? LESSON_ANS_WEIGHT : LESSON_ANS_COUNT; /* its unit */
        return;
    }
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
        s[n - 1] = '\0', s++;
    t->is_token = true, t->token = s;
}

/* "head 3" or "layer 2" into t; false when arg is neither. */
static int head_or_layer(char *arg, LessonClaimTerm *t, bool *taken, char *msg, size_t len)
{
    *taken = false;
    bool head = !strncmp(arg, "head ", 5), layer = !strncmp(arg, "layer ", 6);
    if (!head && !layer)
        return AV_OK;
    *taken = true;
    if (layer && t->answer == LESSON_ANS_LENS_PROB) { /* a grid row: 0 is the embedding */
        int err = lesson_value_int("a lens term's layer", trim(arg + 6), 0, AV_MAX_LAYERS,
                                   &t->layer, msg, len);
        t->layer++; /* kept 1-based: 0 stays "not named" */
        return err;
    }
    return lesson_value_int(head ? "a claim's head" : "a claim's layer", trim(arg + 5 + layer), 1,
                            head ? AV_MAX_HEADS : AV_MAX_LAYERS, head ? &t->head : &t->layer, msg,
                            len);
}

/* The arguments in the parentheses, split at commas: head N, layer N, and
 * up to two positional ones into pos. */
static int split_args(char *args, LessonClaimTerm *t, char **pos, int *n_pos, char *msg, size_t len)
{
    *n_pos = 0;
    for (char *a = args; a && *trim(a);) {
        char *comma = strchr(a, ',');
        if (comma)
            *comma = '\0';
        char *arg = trim(a);
        bool taken;
        int err = head_or_layer(arg, t, &taken, msg, len);
        if (err)
            return err;
        if (!taken && *n_pos == 2)
            return snprintf(msg, len, "a claim's term takes at most two tokens or numbers"),
                   AV_ERR_LESSON;
        if (!taken)
            pos[(*n_pos)++] = arg;
        a = comma ? comma + 1 : NULL;
    }
    return AV_OK;
}

/* The positional arguments of answer k: the row, the key, D, POS DIM. */
static int term_args(LessonClaimTerm *t, char **pos, int n, char *msg, size_t len)
{
    LessonAnswerKind k = t->answer;
    const char *name = lesson_kind_name(k);
    bool keyed = k == LESSON_ANS_WEIGHT || k == LESSON_ANS_SCORE || k == LESSON_ANS_DOT;
    bool whole = k == LESSON_ANS_CELLS || k == LESSON_ANS_TOKENS || k == LESSON_ANS_DK ||
                 k == LESSON_ANS_LENS_ROWS || k == LESSON_ANS_LAYERS;
    int err = AV_OK;
    if (k == LESSON_ANS_PE) {
        if (n != 2)
            return snprintf(msg, len, "pe( ) takes a position and a dimension"), AV_ERR_LESSON;
        if ((err = lesson_value_int("pe's position", pos[0], 0, AV_MAX_TOKENS, &t->arg1, msg, len)))
            return err;
        return lesson_value_int("pe's dimension", pos[1], 0, AV_MAX_D_MODEL_OWN - 1, &t->arg2, msg,
                                len);
    }
    if (whole && n)
        return snprintf(msg, len, "%s takes no token", name), AV_ERR_LESSON;
    if ((keyed || k == LESSON_ANS_OUTPUT) && n == 0)
        return snprintf(msg, len, "%s( ) needs a %s", name, keyed ? "key token" : "component"),
               AV_ERR_LESSON;
    if (!keyed && k != LESSON_ANS_OUTPUT && n == 2)
        return snprintf(msg, len, "%s( ) takes one token, the query", name), AV_ERR_LESSON;
    if (n == 2 || (n == 1 && !keyed && k != LESSON_ANS_OUTPUT))
        err = lesson_value_token("a claim's query", pos[0], &t->query.index, &t->query.text, msg,
                                 len);
    if (!err && keyed)
        err =
            lesson_value_token("a claim's key", pos[n - 1], &t->key.index, &t->key.text, msg, len);
    if (!err && k == LESSON_ANS_OUTPUT)
        err = lesson_value_int("output's component", pos[n - 1], 1, AV_MAX_D_MODEL_OWN, &t->arg1,
                               msg, len);
    return err;
}

/* An answer's "+ N" or "- N" after it ("layers + 1"): cut from s into
 * t->offset. A term that does not start with an answer's name keeps its
 * text (a constant's "-3" or a token's). */
static int split_offset(char *s, LessonClaimTerm *t, char *msg, size_t len)
{
    char name[16];
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz_");
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), s);
    if (!n || lesson_kind_of(name) == LESSON_ANS_COUNT)
        return AV_OK;
    char *sign = NULL;
    int depth = 0;
    for (char *p = s; *p; p++) {
        depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
        if (!depth && (*p == '+' || *p == '-') && p > s && (p[-1] == ' ' || p[-1] == ')'))
            sign = p;
    }
    if (!sign)
        return AV_OK;
    char *v = trim(sign + 1);
    if (!*v || strspn(v, "0123456789") != strlen(v))
        return snprintf(msg, len,
                        "a term's offset is a whole number: 'layers + 1', not "
                        "'%.20s'",
                        sign),
               AV_ERR_LESSON;
    int err = lesson_value_int("a term's offset", v, 0, AV_MAX_TOKENS, &t->offset, msg, len);
    if (*sign == '-')
        t->offset = -t->offset;
    *sign = '\0';
    trim(s);
    return err;
}

/* A term: NAME(args), d_k, tokens, cells, ... with an offset, or a
 * constant. */
static int parse_term(char *s, LessonClaimTerm *t, char *msg, size_t len)
{
    memset(t, 0, sizeof *t);
    if (!*s)
        return snprintf(msg, len, "a claim needs a term on each side of its operator"),
               AV_ERR_LESSON;
    int oerr = split_offset(s, t, msg, len);
    if (oerr)
        return oerr;
    s = trim(s);
    char *open = strchr(s, '(');
    size_t n = open ? (size_t)(open - s) : strlen(s);
    char name[16];
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), s);
    LessonAnswerKind k = lesson_kind_of(trim(name));
    bool bare = k == LESSON_ANS_DK || k == LESSON_ANS_TOKENS || k == LESSON_ANS_CELLS ||
                k == LESSON_ANS_LENS_ROWS || k == LESSON_ANS_LAYERS;
    if (k == LESSON_ANS_COUNT || (!open && !bare)) {
        parse_const(s, t);
        return AV_OK;
    }
    if (t->offset && k <= LESSON_ANS_LOW)
        return snprintf(msg, len, "%s is a token: an offset is added to a number", name),
               AV_ERR_LESSON;
    t->answer = k;
    char *pos[2];
    int n_pos = 0, err = AV_OK;
    if (open) {
        char *close = strrchr(open, ')');
        if (!close || *trim(close + 1))
            return snprintf(msg, len, "%s( ) is not closed with ')'", name), AV_ERR_LESSON;
        *close = '\0';
        err = split_args(open + 1, t, pos, &n_pos, msg, len);
    }
    return err ? err : term_args(t, pos, n_pos, msg, len);
}

/* What a term is: 't' a token, '%' a weight in per cent, 'n' another number. */
static char term_type(const LessonClaimTerm *t)
{
    if (t->is_const)
        return t->is_token ? 't' : t->answer == LESSON_ANS_WEIGHT ? '%' : 'n';
    LessonAnswerKind k = t->answer;
    return k <= LESSON_ANS_LOW ? 't'
           : k == LESSON_ANS_WEIGHT || k == LESSON_ANS_MAX || k == LESSON_ANS_SUM ||
                   k == LESSON_ANS_LENS_PROB
               ? '%'
               : 'n';
}

int lesson_claim_parse(char *text, LessonClaim *c, char *msg, size_t len)
{
    memset(c, 0, sizeof *c);
    text = trim(text);
    snprintf(c->text, sizeof c->text, "%s", text); /* the terms are cut from text */
    size_t n;
    char *at = find_op(text, &c->op, &n);
    if (!at)
        return snprintf(msg, len,
                        "a claim compares two things with ==, !=, <, <=, > or >=, "
                        "as 'top(bank) != river'"),
               AV_ERR_LESSON;
    char *right = at + n;
    *at = '\0';
    int err = parse_term(trim(text), &c->a, msg, len);
    if (err)
        return err;
    if ((err = parse_term(trim(right), &c->b, msg, len)))
        return err;
    char ta = term_type(&c->a), tb = term_type(&c->b);
    if (c->a.is_const && c->b.is_const)
        return snprintf(msg, len,
                        "a claim compares something on screen: both sides are "
                        "constants"),
               AV_ERR_LESSON;
    if ((ta == 't') != (tb == 't'))
        return snprintf(msg, len,
                        "a claim compares a token with a token, a number with a "
                        "number"),
               AV_ERR_LESSON;
    if (ta == 't' && c->op != CLAIM_EQ && c->op != CLAIM_NE)
        return snprintf(msg, len, "tokens are compared with == or !="), AV_ERR_LESSON;
    if (ta != tb && (c->a.is_const || c->b.is_const))
        return snprintf(msg, len,
                        "weight, max, sum and lens_prob are in per cent: write "
                        "'50%%', and only with them"),
               AV_ERR_LESSON;
    return AV_OK;
}

const char *lesson_claim_op_text(LessonClaimOp op)
{
    return op_text[op];
}
