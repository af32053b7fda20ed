/* bertdump.c - the BERT reader and forward from the command line, for
 * tests/e2e/bert.sh: what attnviz's BERT kind computes, without the
 * interface.
 *
 *   bertdump DIR TEXT [OUT] [--causal]
 *
 * Opens DIR (io/hfbert.h, io/hfwordpiece.h: the sentence-transformers layout
 * too), encodes TEXT with BERT's WordPiece (a typed [SEP] makes a sentence
 * pair), runs bert_forward and writes into OUT: ids.npy and types.npy (n,)
 * int32, attention.npy (L, H, n, n), hidden.npy (L + 1, n, D) (the
 * embeddings after their LayerNorm, then each layer's output) and, when the
 * checkpoint has the masked-LM head, mlm_logits.npy (n, V). Prints one line
 * of facts. A refusal prints "bertdump: WHY" and exits with av_exit_status
 * (2, or 1 for an I/O failure), as attnviz itself does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/bert.h"
#include "core/wordpiece.h"
#include "io/hfbert.h"
#include "io/hfwordpiece.h"
#include "io/npy.h"

static int put(const char *out, const char *name, int ndim, size_t a, size_t b, size_t c,
               size_t d, const float *x)
{
    char path[4096];
    size_t shape[4] = {a, b, c, d};
    snprintf(path, sizeof path, "%s/%s", out, name);
    return npy_write(path, ndim, shape, x);
}

static int put_ints(const char *out, const char *name, int n, const int *x)
{
    char path[4096];
    size_t shape[1] = {(size_t)n};
    snprintf(path, sizeof path, "%s/%s", out, name);
    return npy_write_int32(path, 1, shape, x);
}

static int dump(const HfBert *m, const BertState *st, const char *out)
{
    const BertConfig *c = &m->w.cfg;
    size_t n = (size_t)st->n, L = (size_t)c->n_layer, H = (size_t)c->n_head, D = (size_t)c->d_model;
    int rc = put_ints(out, "ids.npy", st->n, st->ids) | put_ints(out, "types.npy", st->n, st->types) |
             put(out, "attention.npy", 4, L, H, n, n, st->P) |
             put(out, "hidden.npy", 3, L + 1, n, D, 0, st->x);
    if (bert_has_mlm(&m->w)) {
        float *mlm = malloc(sizeof *mlm * n * (size_t)c->n_vocab);
        rc |= !mlm || bert_mlm_logits(&m->w, st, 0, st->n, mlm) != AV_OK;
        if (!rc)
            rc |= put(out, "mlm_logits.npy", 2, n, (size_t)c->n_vocab, 0, 0, mlm);
        free(mlm);
    }
    return rc;
}

int main(int argc, char **argv)
{
    bool causal = argc > 1 && strcmp(argv[argc - 1], "--causal") == 0;
    argc -= causal;
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: bertdump DIR TEXT [OUT] [--causal]\n");
        return 2;
    }
    HfBert m;
    WordPiece wp = {0};
    WpEncoding enc = {0};
    BertState st = {0};
    char why[512];
    int rc = hfbert_open(argv[1], &m, NULL, NULL, why, sizeof why);
    if (rc == AV_OK)
        rc = hfwp_read_dir(m.dir, &wp, why, sizeof why);
    if (rc == AV_OK && wp.n_vocab > m.w.cfg.n_vocab) {
        snprintf(why, sizeof why, "the vocabulary has %d tokens, config.json's model %d",
                 wp.n_vocab, m.w.cfg.n_vocab);
        rc = AV_ERR_MODEL;
    }
    if (rc != AV_OK) {
        fprintf(stderr, "bertdump: %s\n", why);
        hfbert_close(&m);
        wp_free(&wp);
        return av_exit_status(rc);
    }
    rc = wp_encode(&wp, argv[2], strlen(argv[2]), m.w.cfg.n_pos, &enc);
    int *ids = malloc(sizeof *ids * (size_t)(enc.n + 1)), *types = malloc(sizeof *types * (size_t)(enc.n + 1));
    for (int i = 0; !rc && i < enc.n; i++)
        ids[i] = enc.piece[i].id, types[i] = enc.second >= 0 && i >= enc.second && m.w.cfg.n_types > 1;
    if (rc == AV_OK)
        rc = bert_forward(&m.w, ids, types, enc.n, causal, &st);
    if (rc == AV_OK)
        printf("layers %d d_model %d heads %d vocab %d pos %d types %d d_ff %d eps %g distil %d "
               "prefixed %d tied %d mlm %d dtype %s n %d second %d\n",
               m.w.cfg.n_layer, m.w.cfg.d_model, m.w.cfg.n_head, m.w.cfg.n_vocab, m.w.cfg.n_pos,
               m.w.cfg.n_types, m.w.cfg.d_ff, (double)m.w.cfg.ln_eps, m.distil, m.prefixed, m.tied,
               bert_has_mlm(&m.w), st_dtype_name(m.dtype), st.n, enc.second);
    else
        fprintf(stderr, "bertdump: %s\n", av_strerror(rc));
    if (rc == AV_OK && argc == 4 && dump(&m, &st, argv[3]) != AV_OK) {
        fprintf(stderr, "bertdump: cannot write to %s\n", argv[3]);
        rc = AV_ERR_IO;
    }
    free(ids), free(types);
    bert_state_free(&st);
    wp_encoding_free(&enc);
    wp_free(&wp);
    hfbert_close(&m);
    return rc == AV_OK ? 0 : av_exit_status(rc);
}
