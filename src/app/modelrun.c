/* modelrun.c - attnviz's own pipeline or a trained model, chosen in one
 * place (modelrun.h).
 */
#include "app/modelrun.h"

#include <string.h>

#include "core/av.h"

/* Control bytes of the bad piece as '?', so the message stays one line. */
static void printable(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            *s = '?';
}

int modelrun_run(ModelSource *ms, const ModelConfig *c, const char *text, size_t len,
                 const char *cross, size_t cross_len, ModelResult *r)
{
    ms->bad[0] = 0;
    if (!ms->net)
        return model_run(c, ms->w, text, len, cross, cross_len, r);
    if (cross) {
        r->shape.n_q = 0;
        return AV_ERR_CONFIG;
    }
    int err = netresult_run(ms->net, c, text, len, r, ms->bad, sizeof ms->bad);
    printable(ms->bad);
    return err;
}

int modelrun_next(ModelSource *ms, const char *text, size_t len, float temperature, int top_k,
                  uint64_t seed, char **out, size_t *cont)
{
    ms->bad[0] = 0;
    *out = NULL;
    if (!ms->net)
        return AV_ERR_CONFIG;
    int err = netresult_generate(ms->net, text, len, 1, temperature, top_k, seed, out, cont,
                                 ms->bad, sizeof ms->bad);
    printable(ms->bad);
    return err;
}
