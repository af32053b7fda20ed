/* test_embed.c - the toy embeddings and weights, and the RNG beneath them:
 * determinism, case folding, seed independence, golden values and the
 * statistics of rng_symmetric.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/embed.h"
#include "core/rng.h"
#include "core/tokenize.h"

#define D 16

static void test_rng_splitmix64_seed0_golden(void **state)
{
    /* expect: SplitMix64 from seed 0 gives the reference implementation's first three outputs */
    (void)state;
    Rng r;
    rng_seed(&r, 0);
    assert_true(rng_next(&r) == 0xe220a8397b1dcdafULL);
    assert_true(rng_next(&r) == 0x6e789e6aa1b965f4ULL);
    assert_true(rng_next(&r) == 0x06c45d188009454fULL);
}

static void test_rng_mix_is_the_output_function(void **state)
{
    /* expect: rng_mix(golden ratio) equals the first output of seed 0 */
    (void)state;
    assert_true(rng_mix(0x9e3779b97f4a7c15ULL) == 0xe220a8397b1dcdafULL);
    assert_true(rng_mix(0) == 0);
}

static void test_rng_hash_fnv1a_known_values(void **state)
{
    /* expect: FNV-1a 64 of "" is the offset basis and of "a" is 0xaf63dc4c8601ec8c */
    (void)state;
    assert_true(rng_hash("", 0) == 0xcbf29ce484222325ULL);
    assert_true(rng_hash("a", 1) == 0xaf63dc4c8601ec8cULL);
}

static void test_rng_uniform_range_and_grid(void **state)
{
    /* expect: every draw is in [0, 1) and an exact multiple of 2^-24 */
    (void)state;
    Rng r;
    rng_seed(&r, 7);
    for (int k = 0; k < 10000; k++) {
        float u = rng_uniform(&r);
        assert_true(u >= 0.0f && u < 1.0f);
        float scaled = u * 16777216.0f;
        assert_true(scaled == (float)(long)scaled);
    }
}

static void test_rng_symmetric_mean_and_std(void **state)
{
    /* expect: over 100000 draws of std 2, mean within 0.03 of 0, std within 0.03 of 2,
     * all within [-2 sqrt 3, 2 sqrt 3) */
    (void)state;
    Rng r;
    rng_seed(&r, 12345);
    double sum = 0, sum2 = 0;
    const int n = 100000;
    for (int k = 0; k < n; k++) {
        float x = rng_symmetric(&r, 2.0f);
        assert_true(x >= -3.4641017f && x < 3.4641017f);
        sum += x;
        sum2 += (double)x * x;
    }
    double mean = sum / n;
    double sd = sqrt(sum2 / n - mean * mean);
    assert_float_equal(mean, 0.0, 0.03);
    assert_float_equal(sd, 2.0, 0.03);
}

static void test_embed_token_golden_cat(void **state)
{
    /* expect: embed_token("cat", seed 42, d_model 8) starts with these pinned floats, exactly */
    (void)state;
    static const float golden[4] = {-0.557307839f, 1.11556506f, -0.590569377f, -0.949597359f};
    float row[8];
    embed_token("cat", 3, 42, 8, row);
    assert_floats_near(row, golden, 4, 0.0);
}

static void test_embed_same_word_same_vector_at_any_position(void **state)
{
    /* expect: both "the" rows equal, "The" equal to "the", and "cat" differs */
    (void)state;
    const char *text = "The cat saw the cat";
    TokenList tl = {0};
    assert_int_equal(tokenize(text, strlen(text), 16, &tl), AV_OK);
    assert_int_equal(tl.n, 5);
    float X[5 * D];
    assert_int_equal(embed_tokens(&tl, 42, D, X, NULL), AV_OK);
    assert_memory_equal(X + 0 * D, X + 3 * D, sizeof(float) * D);
    assert_memory_equal(X + 1 * D, X + 4 * D, sizeof(float) * D);
    assert_memory_not_equal(X + 0 * D, X + 1 * D, sizeof(float) * D);
    tokenize_free(&tl);
}

static void test_embed_cache_gives_the_same_rows(void **state)
{
    /* expect: rows through the cache equal rows drawn afresh, bit for bit, on
     * a text with more distinct words than the cache has slots (slots taken
     * over), repeated words (hits), then another seed and another d_model */
    (void)state;
    enum { WORDS = 700, DISTINCT = 3 * EMBED_CACHE_SLOTS / 2, DMAX = 24 };
    char *text = malloc(WORDS * 8);
    size_t len = 0;
    assert_non_null(text);
    for (int k = 0; k < WORDS; k++)
        len += (size_t)sprintf(text + len, k % 3 ? "w%d " : "W%d ", (k * 7) % DISTINCT);
    TokenList tl = {0};
    assert_int_equal(tokenize(text, len, 4096, &tl), AV_OK);
    assert_int_equal(tl.n, WORDS);
    float *X1 = malloc(sizeof(float) * WORDS * DMAX), *X2 = malloc(sizeof(float) * WORDS * DMAX);
    assert_non_null(X1);
    assert_non_null(X2);
    EmbedCache cache = {0};
    static const struct {
        uint64_t seed;
        int d;
    } runs[] = {{42, 16}, {42, 16}, {7, 16}, {42, DMAX}};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        assert_int_equal(embed_tokens(&tl, runs[k].seed, runs[k].d, X1, &cache), AV_OK);
        assert_int_equal(embed_tokens(&tl, runs[k].seed, runs[k].d, X2, NULL), AV_OK);
        assert_memory_equal(X1, X2, sizeof(float) * WORDS * (size_t)runs[k].d);
        assert_int_equal(cache.d_model, runs[k].d);
    }
    embed_cache_free(&cache);
    assert_null(cache.rows);
    free(X1), free(X2), free(text);
    tokenize_free(&tl);
}

static void test_embed_case_folding_shares_vectors(void **state)
{
    /* expect: "É" and "é", "ΣΟΦΙΑ" and "σοφια", "ЁЛКА" and "ёлка" get the same vectors */
    (void)state;
    static const char *pairs[][2] = {
        {"\xc3\x89", "\xc3\xa9"},
        {"\xce\xa3\xce\x9f\xce\xa6\xce\x99\xce\x91", "\xcf\x83\xce\xbf\xcf\x86\xce\xb9\xce\xb1"},
        {"\xd0\x81\xd0\x9b\xd0\x9a\xd0\x90", "\xd1\x91\xd0\xbb\xd0\xba\xd0\xb0"},
    };
    for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
        float a[D], b[D];
        embed_token(pairs[k][0], strlen(pairs[k][0]), 42, D, a);
        embed_token(pairs[k][1], strlen(pairs[k][1]), 42, D, b);
        assert_memory_equal(a, b, sizeof(a));
    }
}

static void test_embed_casefold_table(void **state)
{
    /* expect: the fixed table folds ASCII, Latin-1, Latin Ext-A, Greek and Cyrillic;
     * U+00D7, U+0130 and U+03A2 stay as they are */
    (void)state;
    const char *src = "AZ \xc3\x80\xc3\x9e\xc3\x97 \xc4\x80\xc4\xb0\xc4\xb9\xc5\xb8\xc5\xbd "
                      "\xce\x91\xce\xa2\xce\xa9 \xd0\x80\xd0\x8f\xd0\x90\xd0\xaf";
    const char *want = "az \xc3\xa0\xc3\xbe\xc3\x97 \xc4\x81\xc4\xb0\xc4\xba\xc3\xbf\xc5\xbe "
                       "\xce\xb1\xce\xa2\xcf\x89 \xd1\x90\xd1\x9f\xd0\xb0\xd1\x8f";
    char dst[64];
    size_t n = embed_casefold(src, strlen(src), dst);
    assert_int_equal(n, strlen(want));
    assert_string_equal(dst, want);
}

static void test_embed_seeds_differ(void **state)
{
    /* expect: seeds 42 and 43 give different vectors for the same word */
    (void)state;
    float a[D], b[D];
    embed_token("cat", 3, 42, D, a);
    embed_token("cat", 3, 43, D, b);
    assert_memory_not_equal(a, b, sizeof(a));
}

static void test_embed_token_mean_and_scale(void **state)
{
    /* expect: a 1024-wide embedding has mean within 0.1 of 0 and std within 0.1 of 1 */
    (void)state;
    static float row[1024];
    embed_token("attention", 9, 42, 1024, row);
    double sum = 0, sum2 = 0;
    for (int c = 0; c < 1024; c++) {
        sum += row[c];
        sum2 += (double)row[c] * row[c];
    }
    double mean = sum / 1024;
    assert_float_equal(mean, 0.0, 0.1);
    assert_float_equal(sqrt(sum2 / 1024 - mean * mean), 1.0, 0.1);
}

static void test_embed_weights_tags_and_layers(void **state)
{
    /* expect: same (seed, tag) repeats, other tags and layers differ, layer 0 = plain tag */
    (void)state;
    float q1[D * D], q2[D * D], k1[D * D], q_l1[D * D];
    assert_int_equal(EMBED_TAG_LAYER(0, EMBED_TAG_WQ), EMBED_TAG_WQ);
    assert_int_equal(EMBED_TAG_LAYER(2, EMBED_TAG_W2), 38);
    embed_weights(42, EMBED_TAG_WQ, D, D, 0.25f, q1);
    embed_weights(42, EMBED_TAG_WQ, D, D, 0.25f, q2);
    embed_weights(42, EMBED_TAG_WK, D, D, 0.25f, k1);
    embed_weights(42, EMBED_TAG_LAYER(1, EMBED_TAG_WQ), D, D, 0.25f, q_l1);
    assert_memory_equal(q1, q2, sizeof(q1));
    assert_memory_not_equal(q1, k1, sizeof(q1));
    assert_memory_not_equal(q1, q_l1, sizeof(q1));
    for (int k = 0; k < D * D; k++)
        assert_true(fabsf(q1[k]) <= 0.25f * 1.7320509f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rng_splitmix64_seed0_golden),
        cmocka_unit_test(test_rng_mix_is_the_output_function),
        cmocka_unit_test(test_rng_hash_fnv1a_known_values),
        cmocka_unit_test(test_rng_uniform_range_and_grid),
        cmocka_unit_test(test_rng_symmetric_mean_and_std),
        cmocka_unit_test(test_embed_token_golden_cat),
        cmocka_unit_test(test_embed_same_word_same_vector_at_any_position),
        cmocka_unit_test(test_embed_cache_gives_the_same_rows),
        cmocka_unit_test(test_embed_case_folding_shares_vectors),
        cmocka_unit_test(test_embed_casefold_table),
        cmocka_unit_test(test_embed_seeds_differ),
        cmocka_unit_test(test_embed_token_mean_and_scale),
        cmocka_unit_test(test_embed_weights_tags_and_layers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
