/* posenc.c - sinusoidal positional encoding (Vaswani et al. 2017).
 *
 * Each value is computed in double from the formula in posenc.h and rounded
 * once to float32, so the table matches the seed article's NumPy code to
 * float precision. With an odd d_model the last (even) dimension is a sine
 * with no cosine partner. Pure functions of their arguments; no allocation.
 */
#include "core/posenc.h"

#include <assert.h>
#include <math.h>
#include <stddef.h>

float posenc_value(int pos, int dim, int d_model)
{
    assert(d_model > 0 && dim >= 0 && dim < d_model);
    /* dims 2i and 2i+1 share the frequency 1 / 10000^(2i/d_model) */
    int two_i = dim & ~1;
    double angle = (double)pos / pow(10000.0, (double)two_i / (double)d_model);
    return (float)((dim & 1) ? cos(angle) : sin(angle));
}

void posenc_fill(int first_pos, int n, int d_model, float *PE)
{
    /* PE is (n, d_model) */
    for (int pos = 0; pos < n; pos++) {
        float *row = PE + (size_t)pos * (size_t)d_model;
        for (int dim = 0; dim < d_model; dim++)
            row[dim] = posenc_value(first_pos + pos, dim, d_model);
    }
}

void posenc_add(int n, int d_model, float *X)
{
    /* X is (n, d_model); the float sum is rounded once per element */
    for (int pos = 0; pos < n; pos++) {
        float *row = X + (size_t)pos * (size_t)d_model;
        for (int dim = 0; dim < d_model; dim++)
            row[dim] += posenc_value(pos, dim, d_model);
    }
}

void posenc_similarity(const float *PE, int n, int d_model, float *S)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double dot = 0, ni = 0, nj = 0;
            const float *row_i = PE + (long)i * d_model, *row_j = PE + (long)j * d_model;
            for (int k = 0; k < d_model; k++) {
                dot += (double)row_i[k] * row_j[k];
                ni += (double)row_i[k] * row_i[k];
                nj += (double)row_j[k] * row_j[k];
            }
            S[(long)i * n + j] = ni > 0 && nj > 0 ? (float)(dot / sqrt(ni * nj)) : 0.0f;
        }
}
