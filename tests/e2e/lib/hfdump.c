/* hfdump.c - the Hugging Face GPT-2 reader from the command line, for
 * tests/e2e/hfmodel.sh (until attnviz --model DIR --dump exists).
 *
 *   hfdump DIR OUT    open DIR (io/hfmodel.h); write each weight the forward
 *                     reads as OUT/NAME.npy (float32, NAME without the
 *                     "transformer." prefix) and print one line of facts
 *   hfdump DIR        open DIR only, and print the facts
 *   hfdump --tensor FILE NAME OUT.npy   one tensor of a safetensors file as
 *                     float32 (any F32, F16 or BF16 values, NaN included)
 *
 * A refusal prints "hfdump: WHY" and exits with av_exit_status (2, or 1 for
 * an I/O failure), as attnviz itself will.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/hfmodel.h"
#include "io/npy.h"
#include "io/safetensors.h"

typedef struct {
    int calls;
    double last;
    int backwards; /* fractions that went down */
} Progress;

static void on_progress(void *ctx, double fraction, const char *what)
{
    Progress *p = ctx;
    (void)what;
    p->backwards += fraction < p->last;
    p->last = fraction;
    p->calls++;
}

/* A line of /proc/self/status in KB: VmRSS (resident now), VmHWM (peak). */
static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, strlen(key)) == 0)
            kb = atol(line + strlen(key));
    if (f)
        fclose(f);
    return kb;
}

static int put(const char *out, const char *name, const float *x, size_t r, size_t c)
{
    char path[4096];
    size_t shape[2] = {r, c};
    snprintf(path, sizeof path, "%s/%s.npy", out, name);
    return npy_write(path, c ? 2 : 1, shape, x);
}

/* put for a matrix the reader laid in panels (core/gpt2.h): row after row
 * again, as the file has it. */
static int put_panels(const char *out, const char *name, const float *x, size_t r, size_t c)
{
    float *rows = malloc(r * c * sizeof *rows + 1);
    if (!rows)
        return AV_ERR_NOMEM;
    for (size_t k = 0; k < r; k++)
        for (size_t j = 0; j < c; j++)
            rows[k * c + j] = x[gpt2_weight_index(true, (int)r, (int)c, (int)k, (int)j)];
    int rc = put(out, name, rows, r, c);
    free(rows);
    return rc;
}

/* Bytes of the matrices the reader lays in panels (those wide enough). */
static size_t panelled_bytes(const Gpt2Config *c)
{
    const size_t D = (size_t)c->d_model, F = (size_t)c->d_ff;
    size_t b = (gpt2_panel_split(3 * c->d_model) ? D * 3 * D : 0) +
               (gpt2_panel_split(c->d_ff) ? D * F : 0) + (gpt2_panel_split(c->d_model) ? F * D : 0);
    return b * sizeof(float) * (size_t)c->n_layer;
}

static int dump(const HfModel *m, const char *out)
{
    const Gpt2Config *c = &m->w.cfg;
    size_t V = (size_t)c->n_vocab, T = (size_t)c->n_ctx, D = (size_t)c->d_model,
           F = (size_t)c->d_ff;
    int rc = put(out, "wte.weight", m->w.wte, V, D) | put(out, "wpe.weight", m->w.wpe, T, D) |
             put(out, "ln_f.weight", m->w.lnf_g, D, 0) | put(out, "ln_f.bias", m->w.lnf_b, D, 0) |
             put(out, "lm_head.weight", m->w.lm_head, V, D);
    for (int l = 0; l < c->n_layer; l++) {
        const Gpt2Layer *y = &m->w.layer[l];
        const bool pn = m->w.panels;
        const struct {
            const char *n;
            const float *x;
            size_t r, c;
            bool panels;
        } t[12] = {{"ln_1.weight", y->ln1_g, D, 0, false},
                   {"ln_1.bias", y->ln1_b, D, 0, false},
                   {"attn.c_attn.weight", y->attn_w, D, 3 * D, pn},
                   {"attn.c_attn.bias", y->attn_b, 3 * D, 0, false},
                   {"attn.c_proj.weight", y->proj_w, D, D, false},
                   {"attn.c_proj.bias", y->proj_b, D, 0, false},
                   {"ln_2.weight", y->ln2_g, D, 0, false},
                   {"ln_2.bias", y->ln2_b, D, 0, false},
                   {"mlp.c_fc.weight", y->fc_w, D, F, pn},
                   {"mlp.c_fc.bias", y->fc_b, F, 0, false},
                   {"mlp.c_proj.weight", y->fcproj_w, F, D, pn},
                   {"mlp.c_proj.bias", y->fcproj_b, D, 0, false}};
        for (int k = 0; k < 12; k++) {
            char name[64];
            snprintf(name, sizeof name, "h.%d.%s", l, t[k].n);
            rc |= (t[k].panels ? put_panels : put)(out, name, t[k].x, t[k].r, t[k].c);
        }
    }
    return rc;
}

static int one_tensor(const char *file, const char *name, const char *out)
{
    StFile f;
    char why[512];
    int rc = st_open(file, &f, why, sizeof why);
    if (rc != AV_OK) {
        fprintf(stderr, "hfdump: %s\n", why);
        return av_exit_status(rc);
    }
    const StTensor *t = st_find(&f, name);
    float *x = t ? malloc((size_t)t->count * sizeof(float) + 1) : NULL;
    size_t n = t ? (size_t)t->count : 0;
    rc = x && st_load_f32(&f, t, x) == AV_OK && npy_write(out, 1, &n, x) == AV_OK ? 0 : 1;
    if (rc)
        fprintf(stderr, "hfdump: %s: cannot dump \"%s\"\n", file, name);
    free(x);
    st_close(&f);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--tensor") == 0)
        return one_tensor(argv[2], argv[3], argv[4]);
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: hfdump DIR [OUT] | hfdump --tensor FILE NAME OUT.npy\n");
        return 2;
    }
    HfModel m;
    Progress p = {0};
    char why[512];
    long rss0 = status_kb("VmRSS:");
    int rc = hfmodel_open(argv[1], &m, on_progress, &p, why, sizeof why);
    if (rc != AV_OK) {
        fprintf(stderr, "hfdump: %s\n", why);
        return av_exit_status(rc);
    }
    long rss1 = status_kb("VmRSS:"), peak = status_kb("VmHWM:");
    printf("layers %d d_model %d heads %d vocab %d ctx %d d_ff %d eps %g params %zu "
           "copied_bytes %zu panelled_bytes %zu tied %d prefixed %d dtype %s progress_calls %d "
           "last_fraction %.6f backwards %d rss_before_kb %ld rss_after_kb %ld rss_peak_kb %ld\n",
           m.w.cfg.n_layer, m.w.cfg.d_model, m.w.cfg.n_head, m.w.cfg.n_vocab, m.w.cfg.n_ctx,
           m.w.cfg.d_ff, (double)m.w.cfg.ln_eps, m.n_params, m.copied_bytes,
           panelled_bytes(&m.w.cfg), m.tied, m.prefixed, st_dtype_name(m.dtype), p.calls, p.last,
           p.backwards, rss0, rss1, peak);
    if (argc == 3 && dump(&m, argv[2]) != AV_OK) {
        fprintf(stderr, "hfdump: cannot write to %s\n", argv[2]);
        rc = AV_ERR_IO;
    }
    hfmodel_close(&m);
    return rc == AV_OK ? 0 : 1;
}
