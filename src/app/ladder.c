/* ladder.c - the steps the interface's settings move in: heads that divide
 * d_model, a ladder of d_model values, the temperature within its range.
 * Pure arithmetic on numbers, no state.
 */
#include "app/ladder.h"

#include "core/av.h"

static const int dmodel_ladder[] = {8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024};
#define LADDER_LEN ((int)(sizeof dmodel_ladder / sizeof dmodel_ladder[0]))

int ladder_heads_step(int d_model, int H, int dir)
{
    int limit = d_model < AV_MAX_HEADS ? d_model : AV_MAX_HEADS;
    for (int h = H + (dir > 0 ? 1 : -1); h >= 1 && h <= limit; h += dir > 0 ? 1 : -1)
        if (d_model % h == 0)
            return h;
    return H;
}

int ladder_heads_fit(int d_model, int H)
{
    int h = H < AV_MAX_HEADS ? H : AV_MAX_HEADS;
    while (h > 1 && d_model % h != 0)
        h--;
    return h < 1 ? 1 : h;
}

int ladder_dmodel_step(int d, int dir)
{
    if (dir > 0) {
        for (int k = 0; k < LADDER_LEN; k++)
            if (dmodel_ladder[k] > d)
                return dmodel_ladder[k];
    } else {
        for (int k = LADDER_LEN - 1; k >= 0; k--)
            if (dmodel_ladder[k] < d)
                return dmodel_ladder[k];
    }
    return d;
}

float ladder_temp_step(float t, float factor)
{
    float v = t * factor;
    return v < LADDER_TEMP_MIN * 0.999f || v > LADDER_TEMP_MAX * 1.001f ? t : v;
}
