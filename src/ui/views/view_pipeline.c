/* view_pipeline.c - the pipeline view: Q_h, K_h, V_h, the raw, scaled and
 * masked scores, the weights and the output of the focused head, each a
 * labelled heatmap (render/pipeline.c draws them; this file only asks for
 * them and adds the title line with the page).
 */
#include "view_pipeline.h"

#include <stdio.h>

#include "core/av.h"
#include "render/pipeline.h"
#include "../term.h"

static void say(Grid *g, Rect r, const char *msg)
{
    grid_puts(g, r.x, r.y + 1, msg, r.w, STYLE_DIM);
}

/* The view's title in at most width columns, the longest form that fits:
 * "Pipeline of head 6 of 6 (verb -> subject), layer 1: query it   page 1
 * of 8 ([ ])", then without the head's label, then "Head 6 of 6, ...",
 * then "Head 6, ... page 1/8 ([ ])": the page and its keys are never cut. */
static void pipeline_title(UiState *u, int width, int pages, int page, char *buf, size_t size)
{
    const AppState *s = &u->a.app;
    char layer[24] = "", query[80] = "", pg[48] = "", pg_short[48] = "", t[4][320];
    if (u->a.ses.res.L > 1)
        snprintf(layer, sizeof layer, ", layer %d", s->layer + 1);
    if (s->sel_row >= 0 && s->sel_row < s->n_q)
        snprintf(query, sizeof query, ": query %s", u->labels_q[s->sel_row]);
    if (pages > 1) {
        snprintf(pg, sizeof pg, "   page %d of %d ([ ])", page + 1, pages);
        snprintf(pg_short, sizeof pg_short, "   page %d/%d ([ ])", page + 1, pages);
    }
    int h = s->head + 1, H = s->cfg.H;
    snprintf(t[0], sizeof t[0], "Pipeline of head %d of %d (%s)%s%s%s", h, H,
             model_head_label(&s->cfg, s->layer, s->head), layer, query, pg);
    snprintf(t[1], sizeof t[1], "Pipeline of head %d of %d%s%s%s", h, H, layer, query, pg);
    snprintf(t[2], sizeof t[2], "Head %d of %d%s%s%s", h, H, layer, query, pg);
    snprintf(t[3], sizeof t[3], "Head %d%s%s%s", h, layer, query, pg_short);
    const char *const forms[] = {t[0], t[1], t[2], t[3]};
    int k = grid_first_fit(forms, 4, width);
    snprintf(buf, size, "%s", forms[k < 0 ? 3 : k]);
}

void view_pipeline_draw(UiState *u, Grid *g, Rect r)
{
    const AppState *s = &u->a.app;
    if (u->a.ses.run_err || s->n_q == 0) {
        say(g, r, "the pipeline view needs a sentence with tokens");
        return;
    }
    if ((long)s->n_q * s->n_k > VIEW_PIPELINE_MAX_CELLS) {
        say(g, r, "the pipeline view draws texts of up to 256 tokens: shorten the text");
        return;
    }
    PipelineData d;
    int err = pipeline_compute(&u->a.ses.res, s->layer, s->head, &d);
    if (err == AV_ERR_NOMEM)
        term_die("out of memory");
    if (err) {
        say(g, r,
            err == AV_ERR_NEEDS_MODEL
                ? "the pipeline view needs Q, K, V and the heads' outputs"
                : "the pipeline view needs the weights kept (a shorter text)");
        return;
    }
    PipelineSpec sp = {
        .d = &d,
        .row_labels = u->labels_q,
        .col_labels = u->labels_k,
        .sel_row = s->sel_row,
        .sel_col = s->sel_col,
        .glyphs = u->depth == DEPTH_MONO,
        .page = s->pipe_page,
        .veil = lesson_state_veil_stage(&u->a.lesson),
    };
    const LessonPage *lp = lesson_state_page(&u->a.lesson);
    sp.lead = lp && lp->set.view == VIEW_ID_PIPELINE ? lp->set.stage : 0;
    sp.lead_last = sp.lead ? lp->set.stage_last : 0;
    /* a lesson's page shows the values of the stages it speaks of and those
     * before; the stages after it are the next pages' questions */
    int upto = sp.lead_last > sp.lead ? sp.lead_last : sp.lead;
    if (upto && upto < PIPE_STAGES && (!sp.veil || sp.veil > upto + 1))
        sp.veil = upto + 1;
    if (u->a.lesson.active && u->a.lesson.want_stage) { /* the page the lesson talks about */
        sp.page = pipeline_page_of(&sp, r.w, r.h - 1, (PipelineStage)(u->a.lesson.want_stage - 1));
        u->report.stage_shown = true;
    }
    int page = 0, pages = pipeline_draw(g, r.x, r.y + 1, r.w, r.h - 1, &sp, &page);
    u->report.pipe_page = page; /* clamped to the pages there are */
    char title[320];
    pipeline_title(u, r.w, pages, page, title, sizeof title);
    grid_puts(g, r.x, r.y, title, r.w, STYLE_TITLE);
    static const char ref[] = "the formula in plain C: src/core/attention_ref.c";
    int tw = grid_text_width(title), rw = (int)sizeof ref - 1;
    if (tw + 3 + rw <= r.w) /* where there is room beside the title */
        grid_puts(g, r.x + r.w - rw, r.y, ref, rw, STYLE_DIM);
    pipeline_free(&d);
}
