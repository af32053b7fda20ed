/* test_lesson_claim.c - lesson claims: parsed from a lesson file onto their
 * pages, malformed ones refused in one line with their line number, and
 * checked on a real model run (seed 001's "Cat eats fish", whose numbers
 * the article prints): true claims hold, false ones do not, and a claim
 * naming what the result lacks cannot be checked.
 */
#include "test_common.h"

#include <string.h>

#include "core/av.h"
#include "core/model.h"
#include "io/lesson.h"
#include "io/lesson_answer.h"
#include "io/lesson_builtin.h"
#include "io/lesson_claim.h"
#include "io/weights.h"

static const char text[] =
    "title: T\n"
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
        {"weight(saw, cat) > 0.3", "weight, max and sum are in per cent"},
        {"entropy(she) > 50%", "weight, max and sum are in per cent"},
        {"2 == 3", "both sides are constants"},
        {"d_k(she) == 8", "d_k takes no token"},
        {"weight() > 5%", "weight( ) needs a key token"},
        {"top(a, b) == c", "top( ) takes one token, the query"},
        {"top(bank, head 0) == river", "a claim's head takes a whole number from 1 to"},
        {"pe(3) > 0", "pe( ) takes a position and a dimension"},
        {"top(bank == river", "a claim compares two things"},
        {"top(bank) x == river", "top( ) is not closed"},
        {" == 3", "a term on each side"},
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
    static const char early[] = "title: T\nclaim: d_k == 8\n== P\n";
    assert_int_equal(lesson_parse(early, strlen(early), "t", "", &l, &e), AV_ERR_LESSON);
    assert_int_equal(e.line, 2);
}

/* Claim s on result r at head h, row i: its code, and whether it holds. */
static int check(const char *s, const ModelResult *r, const ModelConfig *c, int h, int i,
                 LessonClaimVerdict *v)
{
    LessonClaim k;
    char msg[160];
    if (parse(s, &k, msg, sizeof msg) != AV_OK)
        fail_msg("claim '%s' refused: %s", s, msg);
    return lesson_answer_claim(&k, r, c, 0, h, i, v);
}

static void expect(const char *s, const ModelResult *r, const ModelConfig *c, bool holds)
{
    LessonClaimVerdict v;
    int err = check(s, r, c, 0, 0, &v);
    if (err || v.holds != holds)
        fail_msg("claim '%s': code %d, holds %d (left %s, right %s), want %d", s, err, v.holds,
                 v.a, v.b, holds);
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
