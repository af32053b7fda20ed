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
#include "io/stale.h"
#include "render/export.h"
#include "render/svg.h"

/* What the sweep of the exports' temporaries left (a running attnviz's),
 * for the status line: the interface's stderr is the screen. */
static char left_note[160];

static void note_left(const char *line)
{
    snprintf(left_note, sizeof left_note, "%s", line);
}

/* The temporaries of earlier exports (attnviz-head2-..., attnviz-heads-...,
 * attnviz-view-...) that a killed attnviz left in the current folder: each
 * export has a name of its own, so no later one writes the same target and
 * the whole family is swept. */
static void sweep_exports(void)
{
    static const char *const txt[] = {"txt", NULL}, *const svg[] = {"svg", NULL};
    static const FileFamily fams[] = {{"attnviz-head", txt, "the interface's exports"},
                                      {"attnviz-view", svg, "the interface's exports"}};
    left_note[0] = '\0';
    stale_set_note(note_left);
    for (size_t k = 0; k < sizeof fams / sizeof *fams; k++)
        file_sweep_family(".", &fams[k]);
    stale_set_note(NULL);
}

/* attnviz-head2-YYYYMMDD-HHMMSS[-k].txt or attnviz-heads-...: try suffixes
 * until a name is free. Returns AV_OK with the name in path, or an error. */
static int save_new(const char *stem, const char *ext, const MemFile *m, char *path, size_t size)
{
    sweep_exports();
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 0; k < 100; k++) {
        if (k == 0)
            snprintf(path, size, "%s-%s.%s", stem, stamp, ext);
        else
            snprintf(path, size, "%s-%s-%d.%s", stem, stamp, k, ext);
        int err = file_write_atomic(path, m->buf, m->len, true);
        if (err != AV_ERR_IO || errno != EEXIST)
            return err;
    }
    return AV_ERR_IO;
}

/* The configuration the exports are titled by: the shown one, and while a
 * combining view shows one head, the number of heads it stands for. */
static ModelConfig save_config(const UiState *u)
{
    ModelConfig c = u->a.app.cfg;
    const CombView *cv = &u->a.ses.comb;
    c.heads_combined = comb_one_head(cv->mode) ? comb_model_heads(cv, &u->a.app) : 0;
    return c;
}

/* A combining view's word in an export's name: attnviz-head-mean-.... */
static const char *comb_tag(CombMode m)
{
    return m == COMB_MEAN ? "mean" : m == COMB_MAX ? "max" : m == COMB_SUM ? "sum" : "rollout";
}

/* No result to export: the status line says which sentence has no tokens.
 * Nor, before a lesson's reveal, the numbers the page hides: the file would
 * hold the answer the screen writes as '?'. */
static bool nothing_to_export(UiState *u)
{
    AppState *s = &u->a.app;
    if (lesson_state_veiled(&u->a.lesson)) {
        snprintf(s->msg, sizeof s->msg,
                 "no export before the reveal: it would show the hidden answer");
        return true;
    }
    if (!u->a.ses.run_err && s->n_q > 0)
        return false;
    snprintf(s->msg, sizeof s->msg, "nothing to export: %s",
             session_cross_empty(&u->a.ses, s)
                 ? "the keys/values sentence has no tokens (E edits it)"
                 : "the sentence has no tokens");
    return true;
}

void save_export(UiState *u, bool all_heads)
{
    AppState *s = &u->a.app;
    if (nothing_to_export(u))
        return;
    /* What was shown: the sentence(s) first, the percentages when the screen
     * wrote them (colour), the settings in each head's title. */
    ExportOptions eo = {.format = EXPORT_TEXT,
                        .head = all_heads ? -1 : s->head,
                        .layer = s->layer,
                        .token = 0,
                        .color = false,
                        .width = 0,
                        .numbers = u->hmode == HEATMAP_COLOR,
                        .sentence = true};
    MemFile m;
    char stem[48], path[96];
    if (memfile_open(&m) != AV_OK) {
        snprintf(s->msg, sizeof s->msg, "export failed: out of memory");
        return;
    }
    ModelConfig c = save_config(u);
    int err = export_write(m.f, &u->a.ses.res, &c, &eo);
    int cerr = memfile_close(&m);
    err = err ? err : cerr;
    CombMode cm = u->a.ses.comb.mode;
    bool combined = !all_heads && comb_one_head(cm); /* one head standing for them all */
    if (all_heads)
        snprintf(stem, sizeof stem, "attnviz-heads");
    else if (combined)
        snprintf(stem, sizeof stem, "attnviz-head-%s", comb_tag(cm));
    else
        snprintf(stem, sizeof stem, "attnviz-head%d", s->head + 1);
    if (!err)
        err = save_new(stem, "txt", &m, path, sizeof path);
    if (err)
        snprintf(s->msg, sizeof s->msg, "export failed: %s%s%s", av_strerror(err),
                 err == AV_ERR_IO ? ": " : "", err == AV_ERR_IO ? strerror(errno) : "");
    else
        snprintf(s->msg, sizeof s->msg, "wrote %s (%s)%s%s", path,
                 all_heads  ? "all heads"
                 : combined ? comb_name(cm)
                            : "focused head",
                 left_note[0] ? "; " : "", left_note);
    memfile_free(&m);
}

/* The panels of the view: the focused head, or the side-by-side pair. */
static int svg_panels(UiState *u, SvgPanel *p)
{
    const AppState *s = &u->a.app;
    p[0] = (SvgPanel){.r = &u->a.ses.res, .layer = s->layer, .head = s->head};
    if (s->compare == CMP_MASK && !u->a.ses.run_err2) {
        bool on = u->a.ses.res.shape.causal;
        p[0].caption = on ? "mask causal" : "mask off";
        p[1] = (SvgPanel){.r = &u->a.ses.res2,
                          .layer = s->layer,
                          .head = s->head,
                          .caption = on ? "mask off" : "mask causal"};
        return 2;
    }
    if (s->compare == CMP_HEADS && s->cfg.H > 1) {
        p[1] = (SvgPanel){.r = &u->a.ses.res, .layer = s->layer, .head = (s->head + 1) % s->cfg.H};
        return 2;
    }
    return 1;
}

void save_svg(UiState *u)
{
    AppState *s = &u->a.app;
    if (nothing_to_export(u))
        return;
    SvgPanel p[2];
    int n = svg_panels(u, p);
    SvgOptions so = {.mono = u->hmode != HEATMAP_COLOR};
    MemFile m;
    char path[96];
    if (memfile_open(&m) != AV_OK) {
        snprintf(s->msg, sizeof s->msg, "export failed: out of memory");
        return;
    }
    ModelConfig c = save_config(u);
    int err = svg_write(m.f, &c, p, n, &so);
    int cerr = memfile_close(&m);
    err = err ? err : cerr;
    if (!err)
        err = save_new("attnviz-view", "svg", &m, path, sizeof path);
    if (err)
        snprintf(s->msg, sizeof s->msg, "export failed: %s%s%s", av_strerror(err),
                 err == AV_ERR_IO ? ": " : "", err == AV_ERR_IO ? strerror(errno) : "");
    else
        snprintf(s->msg, sizeof s->msg, "wrote %s (%s)%s%s", path,
                 n == 2 ? "side by side" : "focused head", left_note[0] ? "; " : "", left_note);
    memfile_free(&m);
}
