/* handout.c - a lesson as Markdown (handout.h): each page is run with its
 * own settings, its question is answered from that run, and the view it
 * names is drawn as text with the same renderers the interface and the
 * exports use.
 */
#include "render/handout.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "render/export.h"
#include "render/pipeline.h"
#include "render/trace.h"
#include "io/lesson_answer.h"
#include "io/lessonnote.h"
#include "io/views.h"

int handout_problem(HandoutRun *run, int err, const char *fmt, const char *what)
{
    run->err = err;
    snprintf(run->problem, sizeof run->problem, fmt, what);
    return AV_OK;
}

int handout_run(const Lesson *l, int k, const char *const *sentences, const HandoutModel *hm,
                const HandoutOptions *ho, HandoutRun *run)
{
    memset(run, 0, sizeof *run);
    run->hm = hm;
    const LessonSettings *s = &l->pages[k].set;
    lesson_config(s, &run->cfg);
    run->width = ho && ho->width > 0 ? ho->width : HANDOUT_WIDTH;
    if (ho && ho->max_tokens > 0)
        run->cfg.max_tokens = ho->max_tokens;
    if (ho && ho->weights_budget > 0)
        run->cfg.weights_budget = ho->weights_budget;
    run->row = run->key = -1;
    run->text = s->sentence ? s->sentence : sentences && sentences[0] ? sentences[0] : "";
    int err = hm->open(l, s, run);
    run->stand_in = !err && run->err && (s->model || s->weights);
    if (err || (run->err && !run->stand_in))
        return err;
    int layer = s->layer ? s->layer : run->cfg.layers;
    run->layer = (layer < run->cfg.layers ? layer : run->cfg.layers) - 1;
    run->head = lesson_head_index(s, &run->cfg, run->layer);
    if (run->stand_in) { /* the layer and head the interface shows meanwhile */
        run->head = run->head < 0 ? 0 : run->head;
        return AV_OK;
    }
    if (run->head < 0)
        return handout_problem(run, AV_ERR_CONFIG, "No head of this model is labelled \"%s\".",
                               s->head_label);
    err = hm->run(run, run->text, s->cross);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err)
        return handout_problem(run, err, "The page's model could not run: %s.", av_strerror(err));
    run->row = lesson_token_index(&s->token, &run->r.tokens);
    run->key = lesson_token_index(&s->key, model_key_tokens(&run->r));
    return AV_OK;
}

void handout_run_free(HandoutRun *run)
{
    model_result_free(&run->r);
    if (run->hm)
        run->hm->close(run->model);
    memset(run, 0, sizeof *run);
}

/* Narration as Markdown: consecutive lines are one paragraph; a line that
 * starts with a space (a formula, a table row) is a line of its own, kept
 * by Markdown's line break (two spaces) on the line before it and its own. */
static void md_lines(FILE *f, const Lesson *l, int first, int n)
{
    for (int k = 0; k < n; k++) {
        const char *s = l->lines[first + k], *next = k + 1 < n ? l->lines[first + k + 1] : "";
        bool own = s[0] == ' ', next_own = next[0] == ' ';
        if (!*s)
            fputs("\n", f);
        else
            fprintf(f, "%s%s\n", own ? s + strspn(s, " ") : s,
                    (own || next_own) && *next ? "  " : "");
    }
    if (n)
        fputc('\n', f);
}

static void md_settings(FILE *f, const LessonSettings *s, const HandoutRun *run)
{
    const ModelConfig *c = &run->cfg;
    fprintf(f, "*Settings:* \"%s\"", run->text);
    if (s->cross)
        fprintf(f, " with keys and values from \"%s\"", s->cross);
    fprintf(f, "; d_model %d, %d head%s (d_k %d), head %d", c->d_model, c->H, c->H == 1 ? "" : "s",
            c->d_model / c->H, run->head + 1);
    if (c->layers > 1)
        fprintf(f, ", layer %d of %d", run->layer + 1, c->layers);
    if (run->row >= 0)
        fprintf(f, ", query \"%s\"", run->r.tokens.tok[run->row].str);
    fprintf(f, "; mask %s, ", c->causal ? "causal" : "off");
    if (!c->about) /* a model that says what it is says its positions (learned PE) */
        fprintf(f, "PE %s, ", c->pe ? "on" : "off");
    fprintf(f, "%s", c->scale ? "scaled by 1/sqrt(d_k)" : "not scaled");
    if (c->temperature != 1.0f)
        fprintf(f, ", temperature %g", (double)c->temperature);
    if (run->stand_in) /* as the interface shows it meanwhile (app/lesson.c) */
        fprintf(f, "; %s%llu in place of the %s %s",
                s->preset == PRESET_DESIGNED && s->model ? "designed heads, seed "
                                                         : "toy weights from seed ",
                (unsigned long long)c->seed, s->model ? "model" : "weights folder",
                s->model ? s->model : s->weights);
    else if (s->model)
        fprintf(f, "; the model %s%s%s%s", s->model, c->about ? " (" : "", c->about ? c->about : "",
                c->about ? ")" : "");
    else if (s->weights)
        fprintf(f, "; weights from %s", s->weights);
    else if (s->preset == PRESET_DESIGNED)
        fprintf(f, "; designed heads");
    else
        fprintf(f, "; seed %llu", (unsigned long long)c->seed);
    fprintf(f, "; view: %s.\n\n", view_info(s->view)->name);
}

static void md_question(FILE *f, const Lesson *l, const LessonPage *p, const HandoutRun *run)
{
    const LessonQuestion *q = &p->q;
    fprintf(f, "**Question.** %s\n\n", q->text);
    for (int k = 0; k < q->n_choices; k++)
        fprintf(f, "- (%c) %s\n", 'a' + k, q->choices[k]);
    if (q->n_choices)
        fputc('\n', f);
    fprintf(f, "Your prediction: ____________\n\n");
    LessonAnswer a;
    char text[128];
    int err = run->err ? run->err
                       : lesson_answer(q, &run->r, &run->cfg, run->layer, run->head,
                                       run->row >= 0 ? run->row : 0, &a);
    if (err) {
        fprintf(f, "**Answer:** not available (%s).\n\n",
                run->err ? "the page could not run" : "the question does not fit the sentence");
    } else {
        lesson_answer_text(&a, &run->r, text, sizeof text);
        fprintf(f, "**Answer** (computed by attnviz): %s", text);
        if (a.choice >= 0)
            fprintf(f, ", choice (%c)", 'a' + a.choice);
        fputs(".\n\n", f);
    }
    md_lines(f, l, q->explain_first, q->n_explain);
}

/* What the page shows, as text, in a code block. */
static int md_view(FILE *f, const LessonSettings *s, HandoutRun *run)
{
    int err = AV_OK, row = run->row >= 0 ? run->row : 0;
    const ModelResult *r = &run->r;
    ExportOptions o = {.format = EXPORT_TEXT,
                       .head = run->head,
                       .layer = run->layer,
                       .token = row,
                       .width = run->width,
                       .numbers = true};
    fputs("```text\n", f);
    switch (s->view) {
    case VIEW_ID_PIPELINE:
        err = pipeline_write(f, r, &run->cfg, run->layer, run->head, run->row, false, run->width);
        break;
    case VIEW_ID_TRACE: err = trace_write(f, r, &run->cfg, run->layer, run->head, row); break;
    case VIEW_ID_LENS:
        err = run->hm->lens ? run->hm->lens(run, f, run->width) : AV_ERR_NEEDS_MODEL;
        if (err == AV_ERR_NEEDS_MODEL)
            err = AV_OK, fputs("(no logit lens: this page's model predicts no tokens)\n", f);
        break;
    case VIEW_ID_CMP_HEADS:
        err = export_text_head(f, r, &run->cfg, run->head, &o);
        if (!err && run->head + 1 < run->cfg.H)
            err = export_text_head(f, r, &run->cfg, run->head + 1, &o);
        break;
    case VIEW_ID_HEADS:
        for (int h = 0; h < run->cfg.H && !err; h++)
            err = export_text_head(f, r, &run->cfg, h, &o);
        break;
    default: err = export_text_head(f, r, &run->cfg, run->head, &o);
    }
    fputs("```\n\n", f);
    return err == AV_ERR_CONFIG || err == AV_ERR_TOO_LARGE ? AV_OK : err;
}

/* On a model other than the lesson's own (--lesson NAME --model DIR), the
 * page's claims that are false on the run, as the interface says them under
 * the narration; written after the question's answer, whose value a note
 * may give. The lens is not computed here: a claim on it says nothing. */
static void md_notes(FILE *f, const Lesson *l, const LessonPage *p, const HandoutRun *run)
{
    if (!l->model || run->err || !p->n_claims)
        return;
    LessonNotes n;
    lessonnote_make(&n, &l->claims[p->claim_first], p->n_claims, &run->r, &run->cfg, NULL,
                    run->layer, run->head, run->row >= 0 ? run->row : 0);
    if (!n.n)
        return;
    const size_t skip = strlen(lessonnote_header()) + 1; /* note 0 starts with it */
    fprintf(f, "> **%s**\n", lessonnote_header());
    for (int i = 0; i < n.n; i++)
        fprintf(f, "> - %s\n", i ? n.note[i].said : n.note[i].said + skip);
    if (n.more)
        fprintf(f, "> - %s\n", n.more_text);
    fputc('\n', f);
}

static int md_page(FILE *f, const Lesson *l, int k, const char *const *sentences,
                   const HandoutModel *hm, const HandoutOptions *ho)
{
    const LessonPage *p = &l->pages[k];
    HandoutRun run;
    int err = handout_run(l, k, sentences, hm, ho, &run);
    if (!err) {
        fprintf(f, "## %d. %s\n\n", k + 1, p->title);
        md_settings(f, &p->set, &run);
        if (run.err)
            fprintf(f, "> %s\n\n", run.problem);
        md_lines(f, l, p->text_first, p->n_text);
        if (p->q.kind != LESSON_ASK_NONE)
            md_question(f, l, p, &run);
        md_notes(f, l, p, &run);
        if (!run.err)
            err = md_view(f, &p->set, &run);
    }
    handout_run_free(&run);
    return err;
}

int handout_write(FILE *f, const Lesson *l, const char *const *sentences, const HandoutModel *hm,
                  const HandoutOptions *ho)
{
    fprintf(f, "# %s\n\n", l->title);
    if (l->summary && *l->summary)
        fprintf(f, "*%s*\n\n", l->summary);
    fprintf(f,
            "A lesson of attnviz (`attnviz --lesson %s`): %d page%s. Each answer below was "
            "computed by attnviz from the page's model when this handout was made.\n\n",
            l->name, l->n_pages, l->n_pages == 1 ? "" : "s");
    int err = AV_OK;
    for (int k = 0; k < l->n_pages && !err; k++)
        err = md_page(f, l, k, sentences, hm, ho);
    if (!err && (fflush(f) != 0 || ferror(f)))
        err = AV_ERR_IO;
    return err;
}
