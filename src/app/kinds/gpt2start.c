/* gpt2start.c - the text a GPT-2 folder that attnviz trained opens on
 * (gpt2start.h): what kind_trained.c's start text is for attnviz's own
 * folder, found through the byte-level vocabulary instead of ModelSpec's.
 */
#include "gpt2start.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "train/task.h"

#define START_MAX_TOKENS 64 /* as kind_trained.c's task sequence */

/* Whether text[0..len) is at most the context's tokens, each one with a row. */
static bool readable(const Bpe *bpe, const Gpt2Config *cfg, const char *text, size_t len)
{
    BpeEncoding enc = {0};
    bool ok = len > 0 && bpe_encode(bpe, text, len, cfg->n_ctx, &enc) == AV_OK && enc.n > 0;
    for (int i = 0; ok && i < enc.n; i++)
        ok = enc.piece[i].id < cfg->n_vocab;
    bpe_encoding_free(&enc);
    return ok;
}

/* The pieces of one sequence of the task, back to back (malloc'd), or NULL:
 * an unknown task, one that needs a file (text), or no memory. */
static char *task_text(const Gpt2Config *cfg, const HfOrigin *origin)
{
    Task t;
    Batch b;
    char why[256], *text = NULL;
    if (!origin->task[0] || task_init(&t, origin->task, NULL, 0, why, sizeof why) != AV_OK)
        return NULL;
    int n = cfg->n_ctx < START_MAX_TOKENS ? cfg->n_ctx : START_MAX_TOKENS;
    if (task_batch_init(&b, &t, 1, n) == AV_OK) {
        task_batch(&t, origin->seed, 0, &b);
        size_t len = 0;
        for (int i = 0; i < n; i++)
            len += strlen(t.vocab[b.tok[i]]);
        if ((text = malloc(len + 1))) {
            text[0] = '\0';
            for (int i = 0; i < n; i++)
                strcat(text, t.vocab[b.tok[i]]);
        }
        task_batch_free(&b);
    }
    task_free(&t);
    return text;
}

/* Up to 8 of the model's tokens that begin with a printable byte, back to
 * back (malloc'd; "" when it has none). */
static char *first_tokens(const Bpe *bpe, const Gpt2Config *cfg)
{
    size_t used = 0;
    int taken = 0, V = cfg->n_vocab < bpe->n_vocab ? cfg->n_vocab : bpe->n_vocab;
    int ids[8];
    char one[1];
    for (int v = 0; v < V && taken < 8; v++) {
        char first;
        size_t n = bpe_decode(bpe, &v, 1, &first, 1);
        if (v == bpe->eot || n == 0 || n == (size_t)-1 || (unsigned char)first <= ' ' ||
            first == 0x7f)
            continue;
        ids[taken++] = v;
    }
    used = taken ? bpe_decode(bpe, ids, taken, one, 0) : 0;
    char *text = malloc(used + 1);
    if (text) {
        if (taken)
            bpe_decode(bpe, ids, taken, text, used);
        text[used] = '\0';
    }
    return text;
}

char *gpt2start_text(const Bpe *bpe, const Gpt2Config *cfg, const HfOrigin *origin)
{
    static const char sentence[] = "the cat sat on the mat";
    char *text = task_text(cfg, origin);
    if (text && readable(bpe, cfg, text, strlen(text)))
        return text;
    free(text);
    if (readable(bpe, cfg, sentence, sizeof sentence - 1))
        return strdup(sentence);
    return first_tokens(bpe, cfg);
}
