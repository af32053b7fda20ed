/* save.c - the interface's exports: the focused head, or all heads, written
 * as text by export_write (the rendering of `attnviz --export text`) to a
 * new file in the current folder. An existing file is never overwritten; the
 * outcome, good or bad, goes to the status line and the program goes on.
 */
#include "save.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "io/fileio.h"
#include "render/export.h"

/* attnviz-head2-YYYYMMDD-HHMMSS[-k].txt or attnviz-heads-...: try suffixes
 * until a name is free. Returns AV_OK with the name in path, or an error. */
static int save_new(const char *stem, const MemFile *m, char *path, size_t size)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 0; k < 100; k++) {
        if (k == 0)
            snprintf(path, size, "%s-%s.txt", stem, stamp);
        else
            snprintf(path, size, "%s-%s-%d.txt", stem, stamp, k);
        int err = file_write_atomic(path, m->buf, m->len, true);
        if (err != AV_ERR_IO || errno != EEXIST)
            return err;
    }
    return AV_ERR_IO;
}

void save_export(UiState *u, bool all_heads)
{
    AppState *s = &u->app;
    if (u->run_err || s->n_q == 0) {
        snprintf(s->msg, sizeof s->msg, "nothing to export: the sentence has no tokens");
        return;
    }
    /* What was shown: the sentence(s) first, the percentages when the screen
     * wrote them (colour), the settings in each head's title. */
    ExportOptions eo = {.format = EXPORT_TEXT, .head = all_heads ? -1 : s->head,
                        .layer = s->layer, .token = 0, .color = false, .width = 0,
                        .numbers = u->hmode == HEATMAP_COLOR, .sentence = true};
    MemFile m;
    char stem[48], path[96];
    if (memfile_open(&m) != AV_OK) {
        snprintf(s->msg, sizeof s->msg, "export failed: out of memory");
        return;
    }
    int err = export_write(m.f, &u->res, &s->cfg, &eo);
    int cerr = memfile_close(&m);
    err = err ? err : cerr;
    if (all_heads)
        snprintf(stem, sizeof stem, "attnviz-heads");
    else
        snprintf(stem, sizeof stem, "attnviz-head%d", s->head + 1);
    if (!err)
        err = save_new(stem, &m, path, sizeof path);
    if (err)
        snprintf(s->msg, sizeof s->msg, "export failed: %s%s%s", av_strerror(err),
                 err == AV_ERR_IO ? ": " : "", err == AV_ERR_IO ? strerror(errno) : "");
    else
        snprintf(s->msg, sizeof s->msg, "wrote %s (%s)", path,
                 all_heads ? "all heads" : "focused head");
    memfile_free(&m);
}
