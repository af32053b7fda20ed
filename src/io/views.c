/* views.c - the one table of views (views.h). */
#include "io/views.h"

#include <stdio.h>
#include <string.h>

static const ViewInfo VIEWS[VIEW_ID_COUNT] = {
    {VIEW_ID_ATTN, "attention", "the attention heatmaps of the focused head", 0, VIEW_HOME_STATE},
    {VIEW_ID_PIPELINE, "pipeline", "every stage of the focused head, Q K V to the output",
     VIEW_NEEDS_OUTPUTS, VIEW_HOME_STATE},
    {VIEW_ID_TRACE, "trace", "the calculation trace of the selected token", VIEW_NEEDS_OUTPUTS,
     VIEW_HOME_STATE},
    {VIEW_ID_PE, "pe", "the positional encodings", 0, VIEW_HOME_STATE},
    {VIEW_ID_CMP_MASK, "compare-mask", "the focused head with the mask off and on",
     VIEW_NEEDS_FLIPPED, VIEW_HOME_STATE},
    {VIEW_ID_CMP_HEADS, "compare-heads", "the focused head and the next, side by side", 0,
     VIEW_HOME_STATE},
    {VIEW_ID_HEADS, "heads", "every head of the layer", 0, VIEW_HOME_STATE},
    {VIEW_ID_LENS, "lens", "each layer's likeliest next token at every position (the logit lens)",
     0, VIEW_HOME_STATE},
    {VIEW_ID_HEAD_SCORES, "head-scores",
     "every head scored as previous-token, induction, duplicate-token and first-token",
     VIEW_NEEDS_HEADSCAN, VIEW_HOME_UI},
    {VIEW_ID_MODEL, "model", "every layer x head of the text's result as thumbnails", 0,
     VIEW_HOME_UI},
    {VIEW_ID_TRAIN, "train", "a model trained live: its heads, loss and head scores",
     VIEW_NEEDS_TRAINING, VIEW_HOME_LOOP},
};

const ViewInfo *view_info(ViewId v)
{
    return &VIEWS[(int)v >= 0 && v < VIEW_ID_COUNT ? v : VIEW_ID_ATTN];
}

int view_find(const char *name)
{
    for (int k = 0; k < VIEW_ID_COUNT; k++)
        if (strcmp(name, VIEWS[k].name) == 0)
            return k;
    return -1;
}

void view_name_list(char *buf, size_t cap)
{
    size_t len = 0;
    int last = VIEW_ID_COUNT - 1;
    while (last > 0 && VIEWS[last].home != VIEW_HOME_STATE)
        last--;
    if (cap)
        buf[0] = '\0';
    for (int k = 0; k <= last && len < cap; k++) {
        if (VIEWS[k].home != VIEW_HOME_STATE)
            continue;
        const char *sep = k == 0 ? "" : k == last ? " or " : ", ";
        int n = snprintf(buf + len, cap - len, "%s%s", sep, VIEWS[k].name);
        if (n < 0)
            break;
        len += (size_t)n;
    }
}
