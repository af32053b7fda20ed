/* test_lesson_claim.c - lesson claims: parsed from a lesson file onto their
 * pages, malformed ones refused in one line with their line number, and
 * checked on a real model run (seed 001's "Cat eats fish", whose numbers
 * the article prints): true claims hold, false ones do not, and a claim
 * naming what the result lacks cannot be checked; the logit lens's claims
 * on a hand-built lens.
 */
#include "test_common.h"

#include <string.h>

#include "core/av.h"
#include "core/lens.h"
#include "core/model.h"
#include "io/lesson.h"
#include "io/lesson_answer.h"
#include "io/lesson_builtin.h"
#include "io/lesson_claim.h"
#include "io/weights.h"

static const char text[] = "title: T\n"
                           "== P\n"
                           "sentence: Cat eats fish\n"
                           "d-model: 4\n"
                           "heads: 2\n"
                           "pe: off\n"
                           "weights: assets/seed001\n"
                           "token: Cat\n"
                           "Cat gives most to itself.\n"
                           "claim: top(Cat) == Cat\n"
                           "== Q\n"
                           "claim: d_k == 2\n"
                           "claim: top(fish, head 2) != \"eats\"\n";

/* One claim parsed alone: its code, and the message when refused. */
static int parse(const char *s, LessonClaim *c, char *msg, size_t len)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    msg[0] = '\0';
    return lesson_claim_parse(buf, c, msg, len);
}

static void test_claim_parse(void **state)
{
    (void)state;
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
    assert_int_equal(l.n_claims, 3);
    assert_int_equal(l.pages[0].n_claims, 1);
    assert_int_equal(l.pages[0].claim_first, 0);
    assert_int_equal(l.pages[1].n_claims, 2);
    assert_int_equal(l.pages[1].claim_first, 1);
    assert_int_equal(l.pages[0].n_text, 1); /* a claim is not narration */
    const LessonClaim *c = &l.claims[2];
    assert_int_equal(c->line, 13);
    assert_string_equal(c->text, "top(fish, head 2) != \"eats\"");
    assert_int_equal(c->op, CLAIM_NE);
    assert_int_equal(c->a.answer, LESSON_ANS_TOP);
    assert_string_equal(c->a.query.text, "fish");
    assert_int_equal(c->a.head, 2);
    assert_true(c->b.is_const && c->b.is_token);
    assert_string_equal(c->b.token, "eats");
    lesson_free(&l);

    LessonClaim k;
    char msg[160];
    assert_int_equal(parse("weight(saw, cat) > weight(saw, the)", &k, msg, sizeof msg), AV_OK);
    assert_int_equal(k.op, CLAIM_GT);
    assert_string_equal(k.a.query.text, "saw");
    assert_string_equal(k.a.key.text, "cat");
    assert_int_equal(parse("entropy(head 3) > 2.5 bits", &k, msg, sizeof msg), AV_OK);
    assert_int_equal(k.a.head, 3);
    assert_true(k.b.is_const && !k.b.is_token);
    assert_float_equal(k.b.value, 2.5, 0);
    assert_float_equal(k.b.half_ulp, 0.05, 1e-12);
    assert_int_equal(parse("weight(fish) <= 52.25%", &k, msg, sizeof msg), AV_OK);
    assert_null(k.a.query.text); /* one token: the key, the row is the page's */
    assert_string_equal(k.a.key.text, "fish");
    assert_float_equal(k.b.half_ulp, 0.005, 1e-12);
    assert_int_equal(parse("output(she, 2, layer 2) < 0", &k, msg, sizeof msg), AV_OK);
    assert_int_equal(k.a.arg1, 2);
    assert_int_equal(k.a.layer, 2);
    assert_int_equal(parse("pe(3, 0) > 0", &k, msg, sizeof msg), AV_OK);
    assert_int_equal(k.a.arg1, 3);

    static const struct {
        const char *claim, *msg;
    } bad[] = {
        {"top(bank) river", "a claim compares two things with =="},
        {"top(bank) > river", "tokens are compared with == or !="},
        {"top(bank) == 3", "a token with a token, a number with a number"},
        {"weight(saw, cat) > 0.3", "weight, max, sum and lens_prob are in per cent"},
        {"entropy(she) > 50%", "weight, max, sum and lens_prob are in per cent"},
        {"2 == 3", "both sides are constants"},
        {"d_k(she) == 8", "d_k takes no token"},
        {"weight() > 5%", "weight( ) needs a key token"},
        {"top(a, b) == c", "top( ) takes one token, the query"},
        {"top(bank, head 0) == river", "a claim's head takes a whole number from 1 to"},
        {"pe(3) > 0", "pe( ) takes a position and a dimension"},
        {"top(bank == river", "a claim compares two things"},
        {"top(bank) x == river", "top( ) is not closed"},
        {" == 3", "a term on each side"},
        {"lens_rows(3) == 4", "lens_rows takes no token"},
        {"lens_rows == layers + x", "a term's offset is a whole number"},
        {"lens_rows == layers + 1.5", "a term's offset is a whole number"},
        {"lens_rows == layers +", "a term's offset is a whole number"},
        {"top(bank) + 1 == 2", "an offset is added to a number"},
        {"lens_prob(last) == 3", "in per cent"},
        {"lens_prob(last, layer -1) > 5%", "a lens term's layer"},
    };
    for (size_t k2 = 0; k2 < sizeof bad / sizeof bad[0]; k2++) {
        assert_int_equal(parse(bad[k2].claim, &k, msg, sizeof msg), AV_ERR_LESSON);
        if (!strstr(msg, bad[k2].msg))
            fail_msg("claim '%s': message '%s', want '%s'", bad[k2].claim, msg, bad[k2].msg);
    }
    /* in a file: the claim's line */
    static const char badfile[] = "title: T\n== P\nText.\nclaim: top(bank) > river\n";
    assert_int_equal(lesson_parse(badfile, strlen(badfile), "t", "", &l, &e), AV_ERR_LESSON);
    assert_int_equal(e.line, 4);
    assert_non_null(strstr(e.msg, "tokens are compared with == or !="));
    /* a question has no lens: its kinds are claims' alone */
    static const char lensq[] = "title: T\n== P\nText.\nask: How many?\nanswer: lens_rows\n";
    assert_int_equal(lesson_parse(lensq, strlen(lensq), "t", "", &l, &e), AV_ERR_LESSON);
    assert_int_equal(e.line, 5);
    assert_non_null(strstr(e.msg, "lens_rows reads the logit lens"));
    static const char early[] = "title: T\nclaim: d_k == 8\n== P\n";
    assert_int_equal(lesson_parse(early, strlen(early), "t", "", &l, &e), AV_ERR_LESSON);
    assert_int_equal(e.line, 2);
}

/* Claim s on result r (and lens ls, or NULL) at head h, row i: its code,
 * and whether it holds. */
static int check_lens(const char *s, const ModelResult *r, const ModelConfig *c, const Lens *ls,
                      int h, int i, LessonClaimVerdict *v)
{
    LessonClaim k;
    char msg[160];
    if (parse(s, &k, msg, sizeof msg) != AV_OK)
        fail_msg("claim '%s' refused: %s", s, msg);
    return lesson_answer_claim(&k, r, c, ls, 0, h, i, v);
}

static int check(const char *s, const ModelResult *r, const ModelConfig *c, int h, int i,
                 LessonClaimVerdict *v)
{
    return check_lens(s, r, c, NULL, h, i, v);
}

static void expect_lens(const char *s, const ModelResult *r, const ModelConfig *c, const Lens *ls,
                        bool holds)
{
    LessonClaimVerdict v;
    int err = check_lens(s, r, c, ls, 0, 0, &v);
    if (err || v.holds != holds)
        fail_msg("claim '%s': code %d, holds %d (left %s, right %s), want %d (%s)", s, err, v.holds,
                 v.a, v.b, holds, v.why);
}

static void expect(const char *s, const ModelResult *r, const ModelConfig *c, bool holds)
{
    LessonClaimVerdict v;
    int err = check(s, r, c, 0, 0, &v);
    if (err || v.holds != holds)
        fail_msg("claim '%s': code %d, holds %d (left %s, right %s), want %d", s, err, v.holds, v.a,
                 v.b, holds);
}

static void test_claim_eval_seed001(void **state)
{
    (void)state;
    Lesson l;
    LessonError e;
    assert_int_equal(lesson_parse(text, strlen(text), "t", "", &l, &e), AV_OK);
    char path[4096];
    assert_true(lesson_find_path(&l, l.pages[0].set.weights, path, sizeof path));
    ModelConfig c;
    lesson_config(&l.pages[0].set, &c);
    ModelWeights w = {0};
    const char *which;
    assert_int_equal(weights_load(&c, path, &w, &which), AV_OK);
    ModelResult r = {0};
    const char *s = l.pages[0].set.sentence;
    assert_int_equal(model_run(&c, &w, s, strlen(s), NULL, 0, &r), AV_OK);
    /* the article's numbers: Cat's weights 0.38, 0.30, 0.32; q.k on eats 0.38 */
    expect("top(Cat) == Cat", &r, &c, true);
    expect("top(Cat) != Cat", &r, &c, false);
    expect("top(Cat) == fish", &r, &c, false);
    expect("top(Cat) == \"cat\"", &r, &c, true); /* tokens ignore ASCII case */
    expect("low(Cat) == eats", &r, &c, true);
    expect("weight(Cat, eats) < weight(Cat, fish)", &r, &c, true);
    expect("weight(eats) > weight(fish)", &r, &c, false);
    expect("weight(Cat, eats) == 29.6%", &r, &c, true);
    expect("weight(Cat, eats) == 29.4%", &r, &c, false);
    expect("weight(Cat, eats) > 30%", &r, &c, false);
    expect("max(Cat) == 38%", &r, &c, true);
    expect("sum(Cat) == 100%", &r, &c, true);
    expect("dot(Cat, eats) == 0.38", &r, &c, true);
    expect("dot(Cat, eats) == 0.39", &r, &c, false);
    expect("score(fish) < dot(fish)", &r, &c, true);
    expect("entropy(Cat) > 1.5 bits", &r, &c, true);
    expect("entropy(Cat) > 1.6 bits", &r, &c, false);
    expect("d_k == 2", &r, &c, true);
    expect("tokens == 3", &r, &c, true);
    expect("cells != 9", &r, &c, false);
    expect("visible(fish) >= 3", &r, &c, true);
    expect("output(Cat, 1) == 0.54", &r, &c, true);
    LessonClaimVerdict v;
    assert_int_equal(check("top(Cat) != fish", &r, &c, 0, 0, &v), AV_OK);
    assert_string_equal(v.a, "Cat (38.2%)");
    assert_string_equal(v.b, "fish");
    /* what the result lacks: said, never read */
    assert_int_equal(check("top(dog) == Cat", &r, &c, 0, 0, &v), AV_ERR_CONFIG);
    assert_non_null(strstr(v.why, "no token dog"));
    assert_int_equal(check("top(Cat, head 3) == Cat", &r, &c, 0, 0, &v), AV_ERR_CONFIG);
    assert_non_null(strstr(v.why, "no head 3"));
    assert_int_equal(check("top(Cat, layer 2) == Cat", &r, &c, 0, 0, &v), AV_ERR_CONFIG);
    assert_int_equal(check("weight(Cat, dog) > 5%", &r, &c, 0, 0, &v), AV_ERR_CONFIG);

    /* the logit lens: a hand-built one of the 3 tokens, a row per layer
     * and one for the embedding; cell (l, i)'s top token at 10 (l + 1) + i
     * per cent */
    assert_int_equal(r.L, 1);
    Lens ls;
    lens_init(&ls);
    assert_int_equal(lens_reserve(&ls, r.L + 1, 3), AV_OK);
    ls.n = 3;
    for (int i = 0; i < 3; i++)
        for (int row = 0; row < ls.rows; row++)
            for (int q = 0; q < LENS_K; q++) {
                ls.ids[lens_at(&ls, row, i) + q] = q;
                ls.probs[lens_at(&ls, row, i) + q] = q ? 0.01f : (10.0f * (row + 1) + i) / 100;
            }
    expect_lens("layers == 1", &r, &c, &ls, true);
    expect_lens("lens_rows == 2", &r, &c, &ls, true);
    expect_lens("lens_rows > layers", &r, &c, &ls, true);
    expect_lens("lens_rows == layers", &r, &c, &ls, false);
    expect_lens("lens_rows == layers + 1", &r, &c, &ls, true);
    expect_lens("lens_rows - 1 == layers", &r, &c, &ls, true);
    expect_lens("lens_rows == layers + 2", &r, &c, &ls, false);
    expect("tokens - 1 == 2", &r, &c, true);
    expect("visible(fish) + 2 == 5", &r, &c, true);
    expect_lens("lens_prob(Cat) == 20%", &r, &c, &ls, true); /* the last row */
    expect_lens("lens_prob(fish, layer 0) == 12%", &r, &c, &ls, true);
    expect_lens("lens_prob(last, layer 1) == 22%", &r, &c, &ls, true);
    expect_lens("lens_prob(eats, layer 0) > lens_prob(eats)", &r, &c, &ls, false);
    assert_int_equal(check_lens("lens_prob(Cat) < 15%", &r, &c, &ls, 0, 0, &v), AV_OK);
    assert_string_equal(v.a, "20.0%");
    /* a grid row that is not there, a token the lens lacks, no lens */
    assert_int_equal(check_lens("lens_prob(Cat, layer 2) > 0%", &r, &c, &ls, 0, 0, &v),
                     AV_ERR_CONFIG);
    assert_non_null(strstr(v.why, "no layer 2"));
    assert_int_equal(check_lens("lens_prob(dog) > 0%", &r, &c, &ls, 0, 0, &v), AV_ERR_CONFIG);
    ls.n = 2;
    assert_int_equal(check_lens("lens_prob(fish) > 0%", &r, &c, &ls, 0, 0, &v), AV_ERR_CONFIG);
    assert_int_equal(check_lens("lens_rows == 2", &r, &c, NULL, 0, 0, &v), AV_ERR_CONFIG);
    assert_non_null(strstr(v.why, "does not show the lens"));
    expect("layers == 1", &r, &c, true); /* the model's, no lens needed */
    lens_free(&ls);
    model_result_free(&r);
    model_weights_free(&w);
    lesson_free(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_claim_parse),
        cmocka_unit_test(test_claim_eval_seed001),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
