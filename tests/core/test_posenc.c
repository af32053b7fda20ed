/* test_posenc.c - the sinusoidal positional encoding against its formula,
 * the seed article's NumPy code, and its rotation property.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/posenc.h"

static void test_posenc_position0(void **state)
{
    /* expect: at pos 0 every even dim is sin(0) = 0 and every odd dim cos(0) = 1 */
    (void)state;
    for (int dim = 0; dim < 64; dim++)
        assert_true(posenc_value(0, dim, 64) == ((dim & 1) ? 1.0f : 0.0f));
}

static void test_posenc_position1_first_pair(void **state)
{
    /* expect: PE(1,0) = sin(1) and PE(1,1) = cos(1), rounded to float */
    (void)state;
    assert_true(posenc_value(1, 0, 32) == (float)sin(1.0));
    assert_true(posenc_value(1, 1, 32) == (float)cos(1.0));
}

static void test_posenc_dim2_of_d4_is_sin_pos_over_100(void **state)
{
    /* expect: with d_model 4, PE(pos, 2) = sin(pos / 100) since 10000^(2/4) = 100 */
    (void)state;
    for (int pos = 0; pos < 50; pos++)
        assert_float_equal(posenc_value(pos, 2, 4), sin(pos / 100.0), 1e-7);
}

static void test_posenc_matches_numpy_formula(void **state)
{
    /* expect: posenc_fill(0, 100, 64) matches the article's exp/log NumPy code within 1e-6 */
    (void)state;
    enum { N = 100, DM = 64 };
    float *pe = malloc(sizeof(float) * N * DM), *ref = malloc(sizeof(float) * N * DM);
    assert_non_null(pe);
    assert_non_null(ref);
    posenc_fill(0, N, DM, pe);
    for (int pos = 0; pos < N; pos++) {
        for (int two_i = 0; two_i < DM; two_i += 2) {
            double div_term = exp(two_i * -(log(10000.0) / DM));
            ref[pos * DM + two_i] = (float)sin(pos * div_term);
            ref[pos * DM + two_i + 1] = (float)cos(pos * div_term);
        }
    }
    assert_floats_near(pe, ref, (size_t)N * DM, 1e-6);
    free(pe);
    free(ref);
}

static void test_posenc_rotation_property(void **state)
{
    /* expect: for k = 5, each (sin, cos) pair at pos+k is the pair at pos rotated by the
     * matrix built from PE(k), to 1e-5, for every pos < 60 and every pair of d_model 32 */
    (void)state;
    enum { DM = 32, K = 5 };
    float pk[DM], p[DM], q[DM];
    posenc_fill(K, 1, DM, pk);
    for (int pos = 0; pos < 60; pos++) {
        posenc_fill(pos, 1, DM, p);
        posenc_fill(pos + K, 1, DM, q);
        for (int d = 0; d < DM; d += 2) {
            double s = pk[d], c = pk[d + 1];
            /* sin(a+b) = sin a cos b + cos a sin b; cos(a+b) = cos a cos b - sin a sin b */
            assert_float_equal(q[d], c * p[d] + s * p[d + 1], 1e-5);
            assert_float_equal(q[d + 1], -s * p[d] + c * p[d + 1], 1e-5);
        }
    }
}

static void test_posenc_odd_d_model(void **state)
{
    /* expect: with d_model 5 the last dim is sin(pos / 10000^(4/5)) with no cos partner */
    (void)state;
    float pe[3 * 5];
    posenc_fill(0, 3, 5, pe);
    for (int pos = 0; pos < 3; pos++)
        assert_float_equal(pe[pos * 5 + 4], sin(pos / pow(10000.0, 0.8)), 1e-7);
    assert_float_equal(pe[2 * 5 + 3], cos(2 / pow(10000.0, 0.4)), 1e-7);
}

static void test_posenc_fill_first_pos_offset(void **state)
{
    /* expect: row r of posenc_fill(10, ...) equals row 10 + r of posenc_fill(0, ...) */
    (void)state;
    float a[20 * 8], b[4 * 8];
    posenc_fill(0, 20, 8, a);
    posenc_fill(10, 4, 8, b);
    assert_memory_equal(a + 10 * 8, b, sizeof(b));
}

static void test_posenc_add_adds_rows(void **state)
{
    /* expect: posenc_add on a matrix of ones gives 1 + PE(pos, dim) */
    (void)state;
    float x[6 * 10], pe[6 * 10], want[6 * 10];
    for (int k = 0; k < 60; k++)
        x[k] = 1.0f;
    posenc_fill(0, 6, 10, pe);
    for (int k = 0; k < 60; k++)
        want[k] = 1.0f + pe[k];
    posenc_add(6, 10, x);
    assert_floats_near(x, want, 60, 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_posenc_position0),
        cmocka_unit_test(test_posenc_position1_first_pair),
        cmocka_unit_test(test_posenc_dim2_of_d4_is_sin_pos_over_100),
        cmocka_unit_test(test_posenc_matches_numpy_formula),
        cmocka_unit_test(test_posenc_rotation_property),
        cmocka_unit_test(test_posenc_odd_d_model),
        cmocka_unit_test(test_posenc_fill_first_pos_offset),
        cmocka_unit_test(test_posenc_add_adds_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
