/* trace.c - the calculation of one attention row laid out step by step, as
 * seed 001's worked example: query, keys, dot products, scaling, softmax and
 * the weighted sum of the values, with the real numbers of the sentence.
 *
 * Vectors longer than TRACE_MAX_SHOW entries are shown by their first ones;
 * dot products are spelled out term by term when d_k is 4 or less.
 */
#include "render/trace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render/grid.h"

#define TRACE_MAX_SHOW 8

static void print_vec(FILE *f, const float *v, int len, int stride)
{
    fputc('[', f);
    for (int c = 0; c < len && c < TRACE_MAX_SHOW; c++) {
        double x = v[(size_t)c * stride];
        fprintf(f, "%s%.2f", c ? ", " : "", fabs(x) < 0.005 ? 0.0 : x); /* no "-0.00" */
    }
    fputs(len > TRACE_MAX_SHOW ? ", ...]" : "]", f);
}

typedef struct {
    const ModelResult *r;
    const AttnBuffers *b;
    const TokenList *keys;
    int h, i, d, d_k, vis;
    const float *P_row; /* the query's weights (n_k) */
} Trace;

static void trace_vectors(FILE *f, const Trace *t)
{
    const int off = t->h * t->d_k;
    fprintf(f, "Step 1. Query, keys and values: columns %d-%d of Q, K, V (d_k = %d)\n", off,
            off + t->d_k - 1, t->d_k);
    fprintf(f, "  q[%s] = ", t->r->tokens.tok[t->i].str);
    print_vec(f, t->b->Q + (size_t)t->i * t->d + off, t->d_k, 1);
    fputc('\n', f);
    for (int j = 0; j < t->keys->n; j++) {
        fprintf(f, "  k[%s] = ", t->keys->tok[j].str);
        print_vec(f, t->b->K + (size_t)j * t->d + off, t->d_k, 1);
        fprintf(f, "   v[%s] = ", t->keys->tok[j].str);
        print_vec(f, t->b->V + (size_t)j * t->d + off, t->d_k, 1);
        fputs(j < t->vis ? "\n" : "   (masked: a future token)\n", f);
    }
}

/* The unscaled dot product q_i . k_j, spelled out when short. */
static double trace_dot(FILE *f, const Trace *t, int j)
{
    const float *q = t->b->Q + (size_t)t->i * t->d + t->h * t->d_k;
    const float *k = t->b->K + (size_t)j * t->d + t->h * t->d_k;
    double dot = 0;
    for (int c = 0; c < t->d_k; c++) {
        dot += (double)q[c] * k[c];
        if (t->d_k <= 4)
            fprintf(f, "%s(%.2f)(%.2f)", c ? " + " : "", (double)q[c], (double)k[c]);
    }
    if (t->d_k <= 4)
        fputs(" = ", f);
    return dot;
}

/* "  TOKEN" padded to 12 columns of the terminal (not bytes: GPT-2's
 * tokens begin with the 3-byte mark of their space), and a space. */
static void put_token_column(FILE *f, const char *tok)
{
    int pad = 12 - grid_text_width(tok);
    fprintf(f, "  %s%*s ", tok, pad > 0 ? pad : 0, "");
}

static void trace_scores(FILE *f, const Trace *t, double scale, double *dots, double *scaled)
{
    const char *qs = t->r->tokens.tok[t->i].str;
    fputs("\nStep 2. Dot products q . k (how well each key matches the query)\n", f);
    for (int j = 0; j < t->vis; j++) {
        fprintf(f, "  score(%s -> %s) = ", qs, t->keys->tok[j].str);
        dots[j] = trace_dot(f, t, j);
        fprintf(f, "%.4f\n", dots[j]);
    }
    if (t->vis < t->keys->n)
        fprintf(f, "  %d later tokens are masked: their scores are -inf\n", t->keys->n - t->vis);
    double div = 1.0 / scale;
    fprintf(f, "\nStep 3. Scale: divide by %.4f", div);
    if (t->r->shape.scale)
        fprintf(f, " = sqrt(d_k) = sqrt(%d)", t->d_k);
    else
        fputs(" (scaling is off)", f);
    if (t->r->shape.temperature != 1.0f)
        fprintf(f, ", times the temperature %.2f", (double)t->r->shape.temperature);
    fputc('\n', f);
    for (int j = 0; j < t->vis; j++) {
        scaled[j] = dots[j] * scale;
        put_token_column(f, t->keys->tok[j].str);
        fprintf(f, "%.4f / %.4f = %.4f\n", dots[j], div, scaled[j]);
    }
}

static void trace_softmax(FILE *f, const Trace *t, const double *scaled)
{
    const float *P_row = t->P_row;
    double max = -INFINITY, sum = 0;
    for (int j = 0; j < t->vis; j++)
        max = scaled[j] > max ? scaled[j] : max;
    for (int j = 0; j < t->vis; j++)
        sum += exp(scaled[j] - max);
    fprintf(f, "\nStep 4. Softmax: exp(s - max) / sum, with max = %.4f and sum = %.4f\n", max, sum);
    for (int j = 0; j < t->vis; j++) {
        put_token_column(f, t->keys->tok[j].str);
        fprintf(f, "exp(%.4f) / %.4f = %.4f  (%.1f%%)\n", scaled[j] - max, sum, (double)P_row[j],
                100.0 * P_row[j]);
    }
}

static void trace_output(FILE *f, const Trace *t)
{
    const float *P_row = t->P_row;
    fprintf(f, "\nStep 5. Weighted sum of the values\n  output[%s] =", t->r->tokens.tok[t->i].str);
    for (int j = 0; j < t->vis; j++)
        fprintf(f, "%s %.2f v[%s]", j ? " +" : "", (double)P_row[j], t->keys->tok[j].str);
    fputs("\n             = ", f);
    print_vec(f, t->b->concat + (size_t)t->i * t->d + t->h * t->d_k, t->d_k, 1);
    fputs("\n\n", f);
}

int trace_write(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h, int i)
{
    const AttnShape *s = &r->shape;
    if (layer < 0 || layer >= r->L || h < 0 || h >= s->H || i < 0 || i >= s->n_q)
        return AV_ERR_CONFIG;
    if (!model_has_vectors(r, layer))
        return AV_ERR_NEEDS_MODEL;
    int vis = attention_visible_keys(s, i);
    Trace t = {r,   &r->layer[layer].ab, model_key_tokens(r), h,
               i,   s->d_model,          s->d_model / s->H,   vis,
               NULL};
    double *dots = malloc(sizeof *dots * (size_t)s->n_k);
    double *scaled = malloc(sizeof *scaled * (size_t)s->n_k);
    float *row = malloc(sizeof *row * (size_t)s->n_k);
    if (!dots || !scaled || !row) {
        free(dots), free(scaled), free(row);
        return AV_ERR_NOMEM;
    }
    t.P_row = model_head_row(r, layer, h, i, row);
    fprintf(f, "Calculation trace: head %d of %d (%s), layer %d, query token %d \"%s\"\n\n", h + 1,
            c->H, model_head_label(c, layer, h), layer + 1, i + 1, r->tokens.tok[i].str);
    trace_vectors(f, &t);
    trace_scores(f, &t, attention_scale(s), dots, scaled);
    trace_softmax(f, &t, scaled);
    trace_output(f, &t);
    fprintf(f, "The same steps in plain C, every head at once: src/core/attention_ref.c\n");
    free(dots);
    free(scaled);
    free(row);
    return ferror(f) ? AV_ERR_IO : AV_OK;
}
