/* thin.h - the AVX2+FMA kernel for the heads' thin products, private to
 * src/core/ (mat.c dispatches to it; include/core/mat.h is the interface).
 *
 * op(B) (K, N) is copied once into panels of THIN_NR columns (thin_pack),
 * zero past N; products with many row blocks of A then reuse the panels
 * (thin_gemm), which needs thin_available(): on a processor without AVX2
 * and FMA, or a compiler without x86 target attributes, the callers keep
 * their other path.
 */
#ifndef ATTNVIZ_THIN_H
#define ATTNVIZ_THIN_H

#include <stdbool.h>
#include <stddef.h>

/* Columns per panel (two ymm registers) and rows per register tile. */
enum { THIN_NR = 16, THIN_MR = 6 };

/* Whether this processor (and build) runs the kernel: AVX2 and FMA. */
bool thin_available(void);

/* Floats a packed op(B) of K rows and N columns takes. */
size_t thin_packed_floats(int K, int N);

/* Pack op(B) (K, N) (on any processor) into Bp (thin_packed_floats(K, N) floats): panel p holds
 * rows k = 0 .. K-1 of columns p*THIN_NR .. p*THIN_NR+THIN_NR-1, zero past N.
 * trans_b: B is (N, K) with leading dimension ldb, else (K, N). */
void thin_pack(bool trans_b, int K, int N, const float *B, int ldb, float *Bp);

/* thin_pack into part of a pack of kp >= K rows: Bp is where row 0 of the
 * part's first panel goes (the pack's start + k0 * THIN_NR + j0 * kp for
 * rows from k0 and columns from j0, j0 a multiple of THIN_NR); panels are
 * kp * THIN_NR floats apart. */
void thin_pack_into(bool trans_b, int K, int N, const float *B, int ldb, float *Bp, int kp);

/* Limits of a product under a causal mask, for row i of C (0-based in the
 * call): n > 0: only its columns below i + n are wanted (the others may be
 * left as they were or hold anything); k > 0: A's row i is zero from column
 * i + k on, so those terms are not added (the sums are the same bits:
 * adding an exact zero product changes nothing). 0: no limit. */
typedef struct {
    int n, k;
} ThinTri;

/* C (M, N) = alpha A (M, K) op(B) (K, N), where Bp holds op(B)'s first
 * kp >= K rows and at least N columns as thin_pack(.., kp, N', ..) packed
 * them (N' >= N): C reads the first K rows and N columns of it. C is only
 * written (beta 0). Each element sums its K terms in order with fused
 * multiply-adds, whatever M, N and the tile it falls in. tri may be NULL. */
void thin_gemm(int M, int N, int K, float alpha, const float *A, int lda, const float *Bp, int kp,
               float *C, int ldc, const ThinTri *tri);

#endif
