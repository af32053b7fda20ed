/* lessonnote.c - a lesson page's false claims as lines of the page
 * (lessonnote.h): the quantity the claim names, its value on the model
 * shown, and what the text says of it.
 */
#include "io/lessonnote.h"

#include <stdio.h>
#include <string.h>

#include "core/av.h"

/* What the text says, after "the text: ", for each operator. */
static const char *const op_word[] = {
    [CLAIM_EQ] = "",         [CLAIM_NE] = "not ",       [CLAIM_LT] = "less than ",
    [CLAIM_LE] = "at most ", [CLAIM_GT] = "more than ", [CLAIM_GE] = "at least ",
};

/* The operator read the other way: 3 < d_k is d_k > 3. */
static LessonClaimOp flipped(LessonClaimOp op)
{
    switch (op) {
    case CLAIM_LT: return CLAIM_GT;
    case CLAIM_LE: return CLAIM_GE;
    case CLAIM_GT: return CLAIM_LT;
    case CLAIM_GE: return CLAIM_LE;
    default: return op;
    }
}

/* The claim's two sides as written ("dot(it, mat)", "100") into l and r;
 * false when its operator is not found in the text kept. */
static bool sides(const LessonClaim *c, char *l, char *r, size_t size)
{
    const char *op = lesson_claim_op_text(c->op);
    const char *at = strstr(c->text, op);
    if (!at)
        return false;
    size_t n = (size_t)(at - c->text);
    while (n && c->text[n - 1] == ' ')
        n--;
    snprintf(l, size, "%.*s", (int)n, c->text);
    const char *b = at + strlen(op);
    snprintf(r, size, "%s", b + strspn(b, " "));
    return true;
}

/* Claim c, false on the model shown with verdict v, as a note. */
static void note_of(LessonNote *nt, const LessonClaim *c, const LessonClaimVerdict *v)
{
    char l[120], r[120], other[240];
    memset(nt, 0, sizeof *nt);
    nt->reads[0] = !c->a.is_const, nt->reads[1] = !c->b.is_const;
    nt->kind[0] = c->a.answer, nt->kind[1] = c->b.answer;
    if (!sides(c, l, r, sizeof l) || (c->a.is_const && c->b.is_const)) {
        snprintf(nt->said, sizeof nt->said, "the text's \"%s\" does not hold here", c->text);
        memcpy(nt->veiled, nt->said, sizeof nt->veiled);
        return;
    }
    bool left = !c->a.is_const; /* the side named first is an answer */
    const char *subject = left ? l : r, *value = left ? v->a : v->b;
    const LessonClaimTerm *o = left ? &c->b : &c->a;
    LessonClaimOp op = left ? c->op : flipped(c->op);
    if (o->is_const) /* a constant as the author wrote it: "1 bits", "90%" */
        snprintf(other, sizeof other, "%s", left ? r : l);
    else
        snprintf(other, sizeof other, "%s, here %s", left ? r : l, left ? v->b : v->a);
    snprintf(nt->said, sizeof nt->said, "%s is %s (the text: %s%s)", subject, value, op_word[op],
             other);
    snprintf(nt->veiled, sizeof nt->veiled, "%s (shown with the answer)", subject);
}

void lessonnote_make(LessonNotes *out, const LessonClaim *c, int n, const ModelResult *r,
                     const ModelConfig *cfg, const Lens *lens, int layer, int head, int row)
{
    memset(out, 0, sizeof *out);
    for (int k = 0; k < n; k++) {
        LessonClaimVerdict v;
        if (lesson_answer_claim(&c[k], r, cfg, lens, layer, head, row, &v) != AV_OK || v.holds)
            continue;
        if (out->n == LESSON_NOTES_MAX)
            out->more++;
        else
            note_of(&out->note[out->n++], &c[k], &v);
    }
    if (out->n) { /* the first after the header, on its line */
        LessonNote *nt = &out->note[0];
        char said[sizeof nt->said], veiled[sizeof nt->veiled];
        memcpy(said, nt->said, sizeof said), memcpy(veiled, nt->veiled, sizeof veiled);
        snprintf(nt->said, sizeof nt->said, "%s %.400s", lessonnote_header(), said);
        snprintf(nt->veiled, sizeof nt->veiled, "%s %.400s", lessonnote_header(), veiled);
    }
    if (out->more)
        snprintf(out->more_text, sizeof out->more_text, "and %d more of its claims", out->more);
}

const char *lessonnote_header(void)
{
    return "On this model the text's numbers differ:";
}
