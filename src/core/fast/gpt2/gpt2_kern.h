/* gpt2_kern.h - the two products of GPT-2's forward (core/gpt2.c): a linear
 * layer Y = X W + b and one head's causal attention over new query rows.
 * Private to core. Each output row's numbers are summed in an order fixed by
 * the row alone, never by how many rows come with it: what makes a cached
 * run equal a whole one.
 */
#ifndef ATTNVIZ_GPT2_KERN_H
#define ATTNVIZ_GPT2_KERN_H

#include <stdbool.h>
#include <stddef.h>

/* Floats of work gpt2k_linear needs for K input features. */
size_t gpt2k_linear_work(int K);

/* Y (M, N) = X (M, K) W (K, N) + b (N) (b may be NULL): rows of X are ldx
 * apart, of W ldw, of Y ldy; work holds gpt2k_linear_work(K) floats. Each
 * element is a fused multiply-add chain over k in order from 0 (AVX2+FMA:
 * mat_sgemm_packed, or a direct kernel for a few rows, the same
 * operations), or a plain multiply-then-add chain elsewhere. */
void gpt2k_linear(int M, int N, int K, const float *X, int ldx, const float *W, int ldw,
                  const float *b, float *Y, int ldy, float *work);

/* Floats of work gpt2k_head needs for m query rows over n keys of d_k. */
size_t gpt2k_head_work(int m, int n, int d_k);

/* One head, query rows [p, n): P (n - p, n) = softmax(scale Q_h K_h^T) under
 * the causal mask (row r is position p + r: keys past it exactly 0, the rest
 * summing to 1) and O rows (n - p, d_k) = P V_h. Q_h, K_h, V_h point at the
 * head's first column, rows ldq (Q) and ldkv (K, V) apart, O's ldo apart;
 * Q_h and O start at row p, K_h and V_h at row 0. work: gpt2k_head_work. */
void gpt2k_head(int p, int n, int d_k, float scale, const float *Q_h, int ldq, const float *K_h,
                const float *V_h, int ldkv, float *P, float *O, int ldo, float *work);

/* gpt2k_head's typed key (p = n - 1) read from Gpt2State's blocks of the
 * head's cached keys (core/gpt2.h): Kt and V its tiles in the first block,
 * `block` floats from one block's tiles to the next's; P (n) and O (d_k)
 * as gpt2k_head gives them, bit for bit. Returns false, touching nothing,
 * where the processor has no such path (then call gpt2k_head). */
bool gpt2k_head_blocks(int n, int d_k, float scale, const float *q, const float *Kt, const float *V,
                       size_t block, float *P, float *O);

/* out[v] = x (K) . A[v] (K) for v < N, rows of A lda apart (the logits
 * x @ lm_head^T): one pass over A. */
void gpt2k_dots(int N, int K, const float *A, int lda, const float *x, float *out);

/* gpt2k_dots for R rows of X (ldx apart) into R rows of out (ldo apart),
 * a pass over A for every few rows rather than every row: the logit
 * lens's many read-outs. Each dot the bits of gpt2k_dots's. */
void gpt2k_dots_rows(int R, int N, int K, const float *A, int lda, const float *X, int ldx,
                     float *out, int ldo);

/* GELU in its tanh form, in place over m rows of w floats ld apart. The
 * same bits on every processor and in every column. */
void gpt2k_gelu(int m, int w, float *v, int ld);

/* The vectors the linear kernel runs on this processor: "avx512+fma" (the
 * one-tile path of up to 12 rows; the rest AVX2), "avx2+fma" or "plain". */
const char *gpt2k_kernel(void);

#endif
