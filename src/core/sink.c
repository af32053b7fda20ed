/* sink.c - the attention-sink what-if (core/sink.h). Pure. */
#include "core/sink.h"

#include <string.h>

bool sink_aside_row(const float *row, int n_k, float *out)
{
    double rest = 0;
    for (int j = 1; j < n_k; j++)
        rest += row[j];
    if (!(rest > 0)) { /* nothing outside key 0 to show */
        if (out != row)
            memmove(out, row, sizeof *out * (size_t)(n_k > 0 ? n_k : 0));
        return false;
    }
    out[0] = 0.0f;
    for (int j = 1; j < n_k; j++)
        out[j] = (float)(row[j] / rest);
    return true;
}

/* Row i of head h of layer l of the inner source, its first key set aside,
 * into buf (the inner row may be read into buf first: the same buffer). */
static const float *sink_row(const void *ctx, int l, int h, int i, float *buf)
{
    const SinkSource *s = ctx;
    const float *row = combine_row(s->in, l, h, i, buf);
    sink_aside_row(row, s->src.n_k, buf);
    return buf;
}

static void sink_release(const void *ctx, int l)
{
    const SinkSource *s = ctx;
    if (s->in->release)
        s->in->release(s->in->ctx, l);
}

void sink_source_init(SinkSource *s, const AttnSource *in)
{
    s->in = in;
    s->src = *in;
    s->src.row = sink_row;
    s->src.release = sink_release;
    s->src.ctx = s;
}
