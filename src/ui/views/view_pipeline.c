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
    char title[160];
    int n = snprintf(title, sizeof title, "Pipeline of head %d of %d (%s)", s->head + 1, s->cfg.H,
                     model_head_label(&s->cfg, s->layer, s->head));
    if (u->a.ses.res.L > 1)
        n += snprintf(title + n, sizeof title - n, ", layer %d", s->layer + 1);
    if (s->sel_row >= 0 && s->sel_row < s->n_q)
        n += snprintf(title + n, sizeof title - n, ": query %s", u->labels_q[s->sel_row]);
    if (pages > 1)
        n += snprintf(title + n, sizeof title - n, "   page %d of %d ([ ])", page + 1, pages);
    grid_puts(g, r.x, r.y, title, r.w, STYLE_TITLE);
    static const char ref[] = "the formula in plain C: src/core/attention_ref.c";
    int tw = grid_text_width(title), rw = (int)sizeof ref - 1;
    if (tw + 3 + rw <= r.w) /* where there is room beside the title */
        grid_puts(g, r.x + r.w - rw, r.y, ref, rw, STYLE_DIM);
    pipeline_free(&d);
}
