/* bert_kern.h - BERT's linear layers turned over (core/bert.h): y^T = W x^T
 * with W as nn.Linear stores it, (out, in), read in place, and the
 * sentence's few rows x^T packed once (mat_pack). Private to core.
 */
#ifndef ATTNVIZ_BERT_KERN_H
#define ATTNVIZ_BERT_KERN_H

#include <stddef.h>

/* Yt (M, n) = W (M, K) op(Xp) (K, n), rows of W ldw apart, of Yt ldy apart,
 * Xp the first of K rows of a pack of kp rows, mat_pack(true, kp, n, x, ..)
 * (kp 16 floats apart from one panel to the next; Xp may start at row k0
 * of the pack: Xp = pack + 16 k0). Needs
 * mat_packed_available(). Each element is a chain of fused multiply-adds
 * over k in order from zero, the chain of mat_sgemm_packed(M, n, K, 1, W,
 * ldw, Xp, kp, Yt, ldy), so its bits do not depend on M, the rows beside it
 * or the vectors: with AVX-512 a register tile of up to 12 rows of W by two
 * panels of 16 columns (each weight read once for 32 columns), else
 * mat_sgemm_packed. */
void bertk_linear_t(int M, int n, int K, const float *W, int ldw, const float *Xp, int kp,
                    float *Yt, int ldy);

/* Yd (M, n) = the same product in blocks of kb terms: each element the sum
 * in double, block by block in order, of the chains bertk_linear_t gives
 * over terms [k0, k0 + kb) (each from zero in float). Xp, kp as there;
 * tmp holds M n floats (used without AVX-512). */
void bertk_linear_blocks(int M, int n, int K, int kb, const float *W, int ldw, const float *Xp,
                         int kp, double *Yd, int ldy, float *tmp);

/* "avx512+fma", "avx2+fma" or "plain": the vectors bertk_linear_t runs on. */
const char *bertk_kernel(void);

#endif
