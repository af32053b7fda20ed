/* posenc.h - sinusoidal positional encoding (Vaswani et al. 2017).
 *
 * PE(pos, 2i)   = sin(pos / 10000^(2i/d_model))
 * PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))
 * pos counted from 0. Computed in double and rounded once to float32.
 */
#ifndef ATTNVIZ_POSENC_H
#define ATTNVIZ_POSENC_H

/* One value of the encoding. */
float posenc_value(int pos, int dim, int d_model);

/* PE is (n, d_model): row pos is the encoding of position first_pos + pos. */
void posenc_fill(int first_pos, int n, int d_model, float *PE);

/* X (n, d_model) += PE(0..n-1). */
void posenc_add(int n, int d_model, float *X);

/* S (n, n) = the cosine similarity of the PE rows of positions 0..n-1:
 * PE(i) . PE(j) / (|PE(i)| |PE(j)|). PE is (n, d_model). */
void posenc_similarity(const float *PE, int n, int d_model, float *S);

#endif
