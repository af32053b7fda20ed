/* gpt2dump.c - what --dump writes of a GPT-2 model's run (gpt2dump.h). */
#include "gpt2dump.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "io/dump.h"
#include "io/fileio.h"
#include "io/npy.h"

/* tokens.txt of DESIGN.md: each token's own text a line, \n, \t and \\
 * escaped (not the display copy dump_write writes: a space is a space),
 * and each byte of a token holding part of a character (an emoji, CJK,
 * accented Greek split by the BPE) as \xNN: the file stays UTF-8, which
 * --tokens and Python's open() read. */
static int write_tokens(const Bpe *bpe, const Gpt2State *st, const char *path)
{
    size_t cap = 1, used = 0;
    for (int i = 0; i < st->n; i++) {
        size_t len;
        bpe_token(bpe, st->ids[i], &len);
        cap += 4 * len + 1;
    }
    char *buf = malloc(cap);
    if (!buf)
        return AV_ERR_NOMEM;
    for (int i = 0; i < st->n; i++) {
        size_t len;
        const char *t = bpe_token(bpe, st->ids[i], &len);
        for (size_t k = 0; k < len;) {
            char c = t[k], e = c == '\n' ? 'n' : c == '\t' ? 't' : c == '\\' ? '\\' : 0;
            unsigned cp;
            int m = e ? 0 : utf8_decode(t + k, len - k, &cp);
            if (e)
                buf[used++] = '\\', buf[used++] = e, k++;
            else if (m == 0)
                used += (size_t)sprintf(buf + used, "\\x%02x", (unsigned char)c), k++;
            else
                for (int b = 0; b < m; b++)
                    buf[used++] = t[k++];
        }
        buf[used++] = '\n';
    }
    int err = file_write_atomic(path, buf, used, false);
    free(buf);
    return err;
}

/* The lens of the run in the state, written by dump_write_lens. */
static int dump_lens(const Gpt2Weights *w, Gpt2State *st, float *logits, const char *dir,
                     const char **which)
{
    Lens ls;
    lens_init(&ls);
    *which = "lens_ids.npy";
    int err = gpt2_lens(w, st, &ls, logits, NULL);
    if (!err)
        err = dump_write_lens(dir, &ls, which);
    lens_free(&ls);
    return err;
}

int gpt2dump_write(const char *dir, const ModelResult *r, const ModelConfig *c,
                   const Gpt2Weights *w, const Bpe *bpe, Gpt2State *st, float *logits,
                   const char **which)
{
    int err = dump_write(dir, r, c, which);
    if (err)
        return err;
    const float *Wo[AV_MAX_LAYERS];
    for (int l = 0; l < w->cfg.n_layer; l++)
        Wo[l] = w->layer[l].proj_w;
    if ((err = dump_write_norms(dir, r, Wo, which)) != AV_OK)
        return err;
    size_t dlen = strlen(dir) + 16;
    char *path = malloc(dlen);
    *which = "ids.npy";
    if (!path)
        return AV_ERR_NOMEM;
    int n = st->n;
    snprintf(path, dlen, "%s/tokens.txt", dir);
    *which = "tokens.txt";
    if ((err = write_tokens(bpe, st, path)) != AV_OK) {
        free(path);
        return err;
    }
    snprintf(path, dlen, "%s/ids.npy", dir);
    size_t shape_ids[1] = {(size_t)n};
    *which = "ids.npy";
    err = npy_write_int32(path, 1, shape_ids, st->ids);
    if (!err) {
        err = gpt2_logits(w, st, n - 1, logits);
        snprintf(path, dlen, "%s/logits.npy", dir);
        size_t shape_v[1] = {(size_t)w->cfg.n_vocab};
        if (!err)
            err = npy_write(path, 1, shape_v, logits);
        *which = "logits.npy";
    }
    free(path);
    if (!err)
        err = dump_lens(w, st, logits, dir, which);
    return err;
}
