/* views.c - the one table of views (views.h), from views.def. */
#include "io/views.h"

#include <stdio.h>
#include <string.h>

static const ViewInfo VIEWS[VIEW_ID_COUNT] = {
#define VIEW_ROW(id, name, what, needs, home, ...) {VIEW_ID_##id, name, what, needs, home},
#include "io/views.def"
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
