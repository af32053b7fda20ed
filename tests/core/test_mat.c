/* test_mat.c - the packed thin-product kernel (mat_pack, mat_sgemm_packed,
 * mat_sgemm_packed_tri) held to mat_sgemm_ref, the double-precision loops.
 *
 * Odd shapes around the kernel's tile (6 rows, 16 columns) and its copy of a
 * short A (K up to 682 per chunk), padded leading dimensions, alpha, a pack
 * longer and wider than the product reads, the causal limits, and the
 * property attention.c relies on: a row's bits do not depend on the rows
 * around it in the call. On a processor without AVX2 and FMA the kernel does
 * not run and these tests are skipped. Then mat_sgemm_tiled, attnviz's own
 * kernel for any product, and mat_sgemm's choice of it under ulimit -v.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "core/mat.h"
#include "core/rng.h"

enum { PAD = 3 };

static float *filled(Rng *r, size_t n)
{
    float *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t k = 0; k < n; k++)
        x[k] = rng_symmetric(r, 1.0f);
    return x;
}

/* op(B) (K, N) packed with kp >= K rows and np >= N columns, B's leading
 * dimension padded; the caller frees *B and the result. */
static float *packed_new(Rng *r, bool trans_b, int kp, int np, float **B, int *ldb)
{
    *ldb = (trans_b ? kp : np) + PAD;
    *B = filled(r, (size_t)(trans_b ? np : kp) * *ldb);
    float *Bp = malloc(mat_packed_floats(kp, np) * sizeof *Bp);
    assert_non_null(Bp);
    mat_pack(trans_b, kp, np, *B, *ldb, Bp);
    return Bp;
}

/* |C - ref| within 1e-5 of the sum of |a_ik b_kj| (float sums of K terms). */
static void check_product(bool trans_b, int M, int N, int K, float alpha, const float *A, int lda,
                          const float *B, int ldb, const float *C, int ldc)
{
    float *ref = malloc((size_t)M * N * sizeof *ref), *mag = malloc((size_t)M * N * sizeof *mag);
    float *absA = malloc((size_t)M * lda * sizeof *absA);
    float *absB = malloc((size_t)(trans_b ? N : K) * ldb * sizeof *absB);
    assert_true(ref && mag && absA && absB);
    for (long k = 0; k < (long)M * lda; k++)
        absA[k] = fabsf(A[k]);
    for (long k = 0; k < (long)(trans_b ? N : K) * ldb; k++)
        absB[k] = fabsf(B[k]);
    mat_sgemm_ref(false, trans_b, M, N, K, alpha, A, lda, B, ldb, 0.0f, ref, N);
    mat_sgemm_ref(false, trans_b, M, N, K, fabsf(alpha), absA, lda, absB, ldb, 0.0f, mag, N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double got = C[(long)i * ldc + j], want = ref[(long)i * N + j];
            double tol = 1e-5 * mag[(long)i * N + j] + 1e-30;
            if (!(fabs(got - want) <= tol))
                fail_msg("trans_b %d M %d N %d K %d: C[%d][%d] = %.9g, reference %.9g", trans_b, M,
                         N, K, i, j, got, want);
        }
    free(ref), free(mag), free(absA), free(absB);
}

static void test_mat_packed_matches_reference(void **state)
{
    (void)state;
    if (!mat_packed_available())
        skip();
    static const int Ms[] = {1, 2, 5, 6, 7, 13, 61};
    static const int Ns[] = {1, 7, 16, 17, 33, 64};
    static const int Ks[] = {1, 3, 8, 9, 64, 65, 700};
    static const float alphas[] = {1.0f, 0.125f, -2.5f};
    Rng r;
    rng_seed(&r, 11);
    int cases = 0;
    for (int tb = 0; tb < 2; tb++)
        for (size_t a = 0; a < sizeof Ms / sizeof *Ms; a++)
            for (size_t b = 0; b < sizeof Ns / sizeof *Ns; b++)
                for (size_t c = 0; c < sizeof Ks / sizeof *Ks; c++) {
                    const int M = Ms[a], N = Ns[b], K = Ks[c], lda = K + PAD, ldc = N + PAD;
                    const float alpha = alphas[cases++ % 3];
                    /* a pack longer and wider than the product reads */
                    const int kp = K + (cases % 2) * 5, np = N + (cases % 3) * 7;
                    float *B, *A = filled(&r, (size_t)M * lda);
                    int ldb;
                    float *Bp = packed_new(&r, tb, kp, np, &B, &ldb);
                    float *C = malloc((size_t)M * ldc * sizeof *C);
                    assert_non_null(C);
                    for (long k = 0; k < (long)M * ldc; k++)
                        C[k] = k % ldc < N ? NAN : 7.0f; /* beta 0: NaN is overwritten */
                    mat_sgemm_packed(M, N, K, alpha, A, lda, Bp, kp, C, ldc);
                    check_product(tb, M, N, K, alpha, A, lda, B, ldb, C, ldc);
                    for (int i = 0; i < M; i++) /* columns past N untouched */
                        for (int j = N; j < ldc; j++)
                            assert_true(C[(long)i * ldc + j] == 7.0f);
                    free(A), free(B), free(Bp), free(C);
                }
}

static void test_mat_pack_layout(void **state)
{
    (void)state;
    /* Panel p holds rows k of columns 16p .. 16p+15 at [k][c], zero past N,
     * from B or B^T alike (the 8 x 8 transposes and the single floats). */
    static const int shapes[][2] = {{8, 16}, {64, 48}, {13, 21}, {3, 5}, {17, 40}};
    Rng r;
    rng_seed(&r, 12);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int tb = 0; tb < 2; tb++) {
            const int K = shapes[s][0], N = shapes[s][1];
            float *B;
            int ldb;
            float *Bp = packed_new(&r, tb, K, N, &B, &ldb);
            const int panels = (N + 15) / 16;
            assert_int_equal(mat_packed_floats(K, N), (size_t)panels * 16 * K);
            for (int p = 0; p < panels; p++)
                for (int k = 0; k < K; k++)
                    for (int c = 0; c < 16; c++) {
                        const int j = 16 * p + c;
                        float want = j >= N ? 0.0f
                                     : tb   ? B[(long)j * ldb + k]
                                            : B[(long)k * ldb + j];
                        assert_true(Bp[((long)p * K + k) * 16 + c] == want);
                    }
            free(B), free(Bp);
        }
}

static void test_mat_pack_parts(void **state)
{
    (void)state;
    /* Parts that tile op(B) (rows of V_h from k0, columns of K_h^T from a
     * multiple of 16) give exactly mat_pack's pack of the whole. */
    Rng r;
    rng_seed(&r, 15);
    for (int tb = 0; tb < 2; tb++) {
        const int K = tb ? 24 : 150, N = tb ? 150 : 24, step = tb ? 48 : 37;
        const int ldb = (tb ? K : N) + PAD;
        float *B = filled(&r, (size_t)(tb ? N : K) * ldb);
        float *whole = malloc(mat_packed_floats(K, N) * sizeof(float));
        float *parts = malloc(mat_packed_floats(K, N) * sizeof(float));
        assert_true(whole && parts);
        mat_pack(tb, K, N, B, ldb, whole);
        memset(parts, 0xff, mat_packed_floats(K, N) * sizeof(float));
        for (int a = 0; a < (tb ? N : K); a += step) {
            const int len = (tb ? N : K) - a < step ? (tb ? N : K) - a : step;
            if (tb) /* columns [a, a + len) of B^T: rows a.. of B */
                mat_pack_part(true, K, len, B + (long)a * ldb, ldb, parts, K, 0, a);
            else
                mat_pack_part(false, len, N, B + (long)a * ldb, ldb, parts, K, a, 0);
        }
        assert_memory_equal(whole, parts, mat_packed_floats(K, N) * sizeof(float));
        free(B), free(whole), free(parts);
    }
}

static void test_mat_packed_rows_independent(void **state)
{
    (void)state;
    /* Rows [i0, i1) multiplied alone give bit for bit the rows of the whole
     * product: a row's sum does not depend on its tile or chunk (what makes
     * attention's numbers independent of its row blocks and threads). */
    if (!mat_packed_available())
        skip();
    static const int Ks[] = {64, 700};
    Rng r;
    rng_seed(&r, 13);
    for (size_t c = 0; c < 2; c++) {
        const int M = 100, N = 45, K = Ks[c];
        float *B, *A = filled(&r, (size_t)M * K);
        int ldb;
        float *Bp = packed_new(&r, true, K, N, &B, &ldb);
        float *C = malloc(sizeof(float) * M * N), *C2 = malloc(sizeof(float) * M * N);
        assert_true(C && C2);
        mat_sgemm_packed(M, N, K, 0.5f, A, K, Bp, K, C, N);
        for (int i0 = 0; i0 < M;) {
            int i1 = i0 + 1 + (i0 * 7) % 23;
            i1 = i1 < M ? i1 : M;
            mat_sgemm_packed(i1 - i0, N, K, 0.5f, A + (long)i0 * K, K, Bp, K, C2 + (long)i0 * N, N);
            i0 = i1;
        }
        assert_memory_equal(C, C2, sizeof(float) * M * N);
        free(A), free(B), free(Bp), free(C), free(C2);
    }
}

static void test_mat_packed_tri(void **state)
{
    (void)state;
    /* The causal limits: with tri_n, each row's wanted columns (below
     * i + tri_n) are the whole product's bits; with tri_k and A zero from
     * column i + tri_k on, every element is the whole product's bits. Edges
     * of tiles and panels fall inside the triangle. */
    if (!mat_packed_available())
        skip();
    Rng r;
    rng_seed(&r, 14);
    static const int offsets[] = {1, 5, 40};
    for (size_t o = 0; o < 3; o++) {
        const int M = 53, N = 97, K = 64, off = offsets[o];
        float *B, *A = filled(&r, (size_t)M * K);
        int ldb;
        float *Bp = packed_new(&r, true, K, N, &B, &ldb);
        float *C = malloc(sizeof(float) * M * N), *C2 = malloc(sizeof(float) * M * N);
        assert_true(C && C2);
        mat_sgemm_packed(M, N, K, 1.0f, A, K, Bp, K, C, N);
        mat_sgemm_packed_tri(M, N, K, 1.0f, A, K, Bp, K, C2, N, off, 0);
        for (int i = 0; i < M; i++) {
            int want = i + off < N ? i + off : N;
            assert_memory_equal(C + (long)i * N, C2 + (long)i * N, sizeof(float) * want);
        }
        free(B), free(Bp);
        /* values: A (M, Kv) zero past i + off, B (Kv, 64) */
        const int Kv = 120, Nv = 64;
        float *Av = filled(&r, (size_t)M * Kv);
        for (int i = 0; i < M; i++)
            for (int k = i + off; k < Kv; k++)
                Av[(long)i * Kv + k] = 0.0f;
        Bp = packed_new(&r, false, Kv, Nv, &B, &ldb);
        float *D = malloc(sizeof(float) * M * Nv), *D2 = malloc(sizeof(float) * M * Nv);
        assert_true(D && D2);
        mat_sgemm_packed(M, Nv, Kv, 1.0f, Av, Kv, Bp, Kv, D, Nv);
        mat_sgemm_packed_tri(M, Nv, Kv, 1.0f, Av, Kv, Bp, Kv, D2, Nv, 0, off);
        assert_memory_equal(D, D2, sizeof(float) * M * Nv);
        check_product(false, M, Nv, Kv, 1.0f, Av, Kv, B, ldb, D2, Nv);
        free(A), free(Av), free(B), free(Bp), free(C), free(C2), free(D), free(D2);
    }
}

static void test_mat_packed_narrow(void **state)
{
    (void)state;
    /* A product of at most 8 columns (a head of d_k 8's P_h V_h, a panel
     * half padding): its columns are bit for bit those of a wider product,
     * with and without the causal limit on A's terms, and near the
     * double-precision reference. */
    if (!mat_packed_available())
        skip();
    Rng r;
    rng_seed(&r, 15);
    static const int Ns[] = {8, 5, 1};
    for (size_t c = 0; c < 3; c++) {
        const int M = 77, K = 300, N = Ns[c], W = 9, off = 3;
        float *A = filled(&r, (size_t)M * K), *B = filled(&r, (size_t)K * W);
        for (int i = 0; i < M; i++) /* A zero past i + off, as P_h under the mask */
            for (int k = i + off; k < K && c == 0; k++)
                A[(long)i * K + k] = 0.0f;
        float *Bn = malloc(sizeof(float) * mat_packed_floats(K, N));
        float *Bw = malloc(sizeof(float) * mat_packed_floats(K, W));
        float *Cn = malloc(sizeof(float) * M * N), *Cw = malloc(sizeof(float) * M * W);
        assert_true(Bn && Bw && Cn && Cw);
        mat_pack(false, K, N, B, W, Bn);
        mat_pack(false, K, W, B, W, Bw);
        for (int t = 0; t < 2; t++) {
            int tk = t && c == 0 ? off : 0;
            mat_sgemm_packed_tri(M, N, K, 0.5f, A, K, Bn, K, Cn, N, 0, tk);
            mat_sgemm_packed_tri(M, W, K, 0.5f, A, K, Bw, K, Cw, W, 0, tk);
            for (int i = 0; i < M; i++)
                assert_memory_equal(Cn + (long)i * N, Cw + (long)i * W, sizeof(float) * N);
        }
        check_product(false, M, N, K, 0.5f, A, K, B, W, Cn, N);
        free(A), free(B), free(Bn), free(Bw), free(Cn), free(Cw);
    }
}

/* mat_sgemm_small_multi: each product the bits of its own mat_sgemm_small
 * call (three or two products from one A, and one alone), at the model's sizes
 * (32, 64 columns) and others, odd row counts included; the sizes it takes. */
static void test_mat_small_multi_bits(void **state)
{
    (void)state;
    static const int rows[] = {1, 2, 3, 5, 10, 16}, cols[] = {32, 64, 96};
    Rng r;
    rng_seed(&r, 99);
    for (size_t a = 0; a < sizeof rows / sizeof *rows; a++) {
        for (size_t b = 0; b < sizeof cols / sizeof *cols; b++) {
            const int M = rows[a], N = cols[b], K = b == 2 ? 40 : N, ld = N + 8;
            float *A = filled(&r, (size_t)M * K), *B[3], *C[3], *R = malloc(sizeof *R * M * ld);
            for (int p = 0; p < 3; p++) {
                B[p] = filled(&r, (size_t)K * ld);
                C[p] = malloc(sizeof(float) * M * ld);
            }
            assert_true(mat_small_multi_fits(M, N, K));
            for (int count = 1; count <= 3; count++) {
                mat_sgemm_small_multi(count, M, N, K, A, K, (const float *const *)B, ld, C, ld);
                for (int p = 0; p < count; p++) {
                    mat_sgemm_small(false, M, N, K, 1.0f, A, K, B[p], ld, 0.0f, R, ld);
                    for (int i = 0; i < M; i++)
                        assert_memory_equal(C[p] + (size_t)i * ld, R + (size_t)i * ld,
                                            sizeof(float) * N);
                }
            }
            for (int p = 0; p < 3; p++)
                free(B[p]), free(C[p]);
            free(A), free(R);
        }
    }
    assert_false(mat_small_multi_fits(10, 48, 48));
    assert_false(mat_small_multi_fits(1024, 512, 512));
}

/* mat_sgemm_tiled against the reference: every transpose, shapes around its
 * tiles (64 rows of a transposed A, 64 columns, 128 of K), padded leading
 * dimensions, beta 0 (C's NaN ignored), 1 and -0.5, and K = 0 (C = beta C);
 * within 1e-5 of the sum of the terms' magnitudes. */
static void test_mat_tiled_matches_reference(void **state)
{
    (void)state;
    static const int Ms[] = {1, 5, 64, 67}, Ns[] = {1, 17, 64, 80}, Ks[] = {0, 3, 128, 300};
    static const float betas[] = {0.0f, 1.0f, -0.5f};
    Rng r;
    rng_seed(&r, 23);
    int cases = 0;
    for (int t = 0; t < 4; t++)
        for (size_t a = 0; a < 4; a++)
            for (size_t b = 0; b < 4; b++)
                for (size_t c = 0; c < 4; c++) {
                    const bool ta = t & 1, tb = t & 2;
                    const int M = Ms[a], N = Ns[b], K = Ks[c];
                    const int lda = (ta ? M : K) + PAD, ldb = (tb ? K : N) + PAD, ldc = N + PAD;
                    const float alpha = cases % 2 ? 0.75f : 1.0f, beta = betas[cases % 3];
                    cases++;
                    float *A = filled(&r, (size_t)(ta ? K : M) * lda + 1);
                    float *B = filled(&r, (size_t)(tb ? N : K) * ldb + 1);
                    float *C = filled(&r, (size_t)M * ldc), *R = malloc(sizeof *R * M * ldc);
                    float *absA = malloc(sizeof *absA * ((ta ? K : M) * lda + 1));
                    float *absB = malloc(sizeof *absB * ((tb ? N : K) * ldb + 1));
                    float *mag = malloc(sizeof *mag * M * ldc);
                    assert_true(R && absA && absB && mag);
                    for (long k = 0; k < (long)(ta ? K : M) * lda + 1; k++)
                        absA[k] = fabsf(A[k]);
                    for (long k = 0; k < (long)(tb ? N : K) * ldb + 1; k++)
                        absB[k] = fabsf(B[k]);
                    for (long k = 0; k < (long)M * ldc; k++) {
                        if (beta == 0.0f && k % ldc < N)
                            C[k] = NAN;
                        mag[k] = beta == 0.0f ? 0.0f : fabsf(beta * C[k]);
                        R[k] = C[k];
                    }
                    mat_sgemm_ref(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, R, ldc);
                    mat_sgemm_ref(ta, tb, M, N, K, alpha, absA, lda, absB, ldb, 1.0f, mag, ldc);
                    mat_sgemm_tiled(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
                    for (int i = 0; i < M; i++)
                        for (int j = 0; j < ldc; j++) {
                            const long k = (long)i * ldc + j;
                            if (j >= N) { /* columns past N untouched */
                                assert_memory_equal(&C[k], &R[k], sizeof *C);
                                continue;
                            }
                            if (!(fabs((double)C[k] - R[k]) <= 1e-5 * mag[k] + 1e-30))
                                fail_msg("ta %d tb %d M %d N %d K %d beta %g: C[%d][%d] = %.9g, "
                                         "reference %.9g",
                                         ta, tb, M, N, K, beta, i, j, C[k], R[k]);
                        }
                    free(A), free(B), free(C), free(R), free(absA), free(absB), free(mag);
                }
}

/* Under an address-space limit below MAT_BLAS_AS_MIN, or one that leaves no
 * room for OpenBLAS's buffers, mat_sgemm never calls OpenBLAS (whose buffer
 * map would fail and be retried for ever): it gives mat_sgemm_tiled's bits.
 * Nothing is allocated while the limit is low. */
static void test_mat_blas_address_limit(void **state)
{
    (void)state;
    enum { M = 300, N = 96, K = 200 };
    Rng r;
    rng_seed(&r, 5);
    float *A = filled(&r, (size_t)M * K), *B = filled(&r, (size_t)K * N);
    float *C = malloc(sizeof *C * M * N), *T = malloc(sizeof *T * M * N);
    assert_true(C && T && !mat_small_fits(false, M, N, K));
    mat_sgemm_tiled(false, false, M, N, K, 1.0f, A, K, B, N, 0.0f, T, N);
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_AS, &old), 0);
    if (old.rlim_max != RLIM_INFINITY && old.rlim_max < MAT_BLAS_AS_MIN)
        skip(); /* a hard limit this low: the limit cannot be raised again */
    low = old;
    low.rlim_cur = MAT_BLAS_AS_MIN / 2;
    assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
    const bool usable_low = mat_blas_usable();
    mat_sgemm(false, false, M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    assert_false(usable_low);
#ifndef NO_BLAS /* with NO_BLAS mat_sgemm runs the reference */
    assert_memory_equal(C, T, sizeof *C * M * N);
#endif
    /* a limit above the bound that the process already fills */
    low.rlim_cur = MAT_BLAS_AS_MIN;
    void *held =
        mmap(NULL, MAT_BLAS_AS_MIN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    assert_true(held != MAP_FAILED);
    assert_int_equal(setrlimit(RLIMIT_AS, &low), 0);
    const bool usable_full = mat_blas_usable();
    assert_int_equal(setrlimit(RLIMIT_AS, &old), 0);
    munmap(held, MAT_BLAS_AS_MIN);
    assert_false(usable_full);
#ifndef NO_BLAS
    if (old.rlim_cur == RLIM_INFINITY)
        assert_true(mat_blas_usable());
#endif
    free(A), free(B), free(C), free(T);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mat_packed_matches_reference),
        cmocka_unit_test(test_mat_pack_layout),
        cmocka_unit_test(test_mat_pack_parts),
        cmocka_unit_test(test_mat_packed_rows_independent),
        cmocka_unit_test(test_mat_packed_tri),
        cmocka_unit_test(test_mat_packed_narrow),
        cmocka_unit_test(test_mat_small_multi_bits),
        cmocka_unit_test(test_mat_tiled_matches_reference),
        cmocka_unit_test(test_mat_blas_address_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
