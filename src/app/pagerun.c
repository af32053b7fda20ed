/* pagerun.c - a lesson page's model as a kind, for the handout (pagerun.h):
 * its model folder of any kind, or its weights (toy ones) in the pipeline. */
#include "app/pagerun.h"

#include <stdlib.h>
#include <string.h>

#include "app/kind.h"
#include "core/av.h"
#include "io/lesson_builtin.h"
#include "io/weights.h"
#include "render/lens.h"

typedef struct {
    ModelWeights w; /* the pipeline's: toy or from the page's folder */
    Kind kind;
    char *text; /* the text run last (the lens's) */
} PageModel;

/* The page's model (any folder kind, or a hub id in the Hugging Face
 * cache), opened through the table of folder kinds. */
static int open_model(const Lesson *l, const LessonSettings *s, PageModel *pm, HandoutRun *run)
{
    char path[4096], why[LESSON_PROBLEM_MAX];
    if (!lesson_find_model(l, s->model, path, sizeof path)) {
        lesson_model_missing(l, s->model, why, sizeof why);
        return handout_problem(run, AV_ERR_MODEL, "%s", why);
    }
    int err = kind_open_folder(&pm->kind, path, NULL, NULL, why, sizeof why);
    if (err == AV_ERR_NOMEM)
        return err;
    if (err)
        return handout_problem(run, err, "The model could not be opened: %s.",
                               why[0] ? why : av_strerror(err));
    ModelConfig c = run->cfg;
    model_config_default(&run->cfg);
    run->cfg.keep_scores = c.keep_scores, run->cfg.weights_budget = c.weights_budget;
    run->cfg.max_tokens = c.max_tokens; /* the command line's limits, as the interface keeps them */
    kind_config(&pm->kind, &run->cfg);
    return AV_OK;
}

/* The page's weights folder, else toy weights, run by the pipeline kind. */
static int open_pipeline(const Lesson *l, const LessonSettings *s, PageModel *pm, HandoutRun *run)
{
    char path[4096];
    int err;
    if (!s->weights) {
        err = model_weights_toy(&run->cfg, &pm->w);
    } else if (!lesson_find_path(l, s->weights, path, sizeof path)) {
        return handout_problem(run, AV_ERR_IO,
                               "This page needs the weights folder %s, which "
                               "was not found.",
                               s->weights);
    } else {
        const char *which = "";
        err = weights_load(&run->cfg, path, &pm->w, &which);
        if (err && err != AV_ERR_NOMEM)
            return handout_problem(run, err, "The weights in %s could not be read.", s->weights);
    }
    if (!err)
        kind_pipeline_open(&pm->kind, &pm->w);
    return err;
}

static int page_open(const Lesson *l, const LessonSettings *s, HandoutRun *run)
{
    PageModel *pm = calloc(1, sizeof *pm);
    if (!pm)
        return AV_ERR_NOMEM;
    run->model = pm;
    return s->model ? open_model(l, s, pm, run) : open_pipeline(l, s, pm, run);
}

static int page_run(HandoutRun *run, const char *text, const char *cross)
{
    PageModel *pm = run->model;
    if (kind_refuses(&pm->kind, KIND_ASK_CROSS)) /* a decoder runs on its own tokens */
        cross = NULL;
    free(pm->text);
    pm->text = strdup(text);
    if (!pm->text)
        return AV_ERR_NOMEM;
    return kind_run(&pm->kind, &run->cfg, text, strlen(text), cross, cross ? strlen(cross) : 0,
                    &run->r);
}

static void page_close(void *model)
{
    PageModel *pm = model;
    if (!pm)
        return;
    kind_close(&pm->kind);
    model_weights_free(&pm->w);
    free(pm->text);
    free(pm);
}

static void token_name(const void *ctx, int id, char *out, size_t len)
{
    kind_token_text(ctx, id, out, len);
}

static int page_lens(HandoutRun *run, FILE *f, int width)
{
    PageModel *pm = run->model;
    if (!pm || !pm->text)
        return AV_ERR_NEEDS_MODEL;
    Lens ls;
    lens_init(&ls);
    int err = kind_lens(&pm->kind, pm->text, strlen(pm->text), &ls);
    if (!err)
        err = lens_export_text(f, &ls, token_name, &pm->kind, width, false);
    lens_free(&ls);
    return err;
}

static const HandoutModel page_model = {page_open, page_run, page_close, page_lens};

const HandoutModel *pagerun_model(void)
{
    return &page_model;
}
