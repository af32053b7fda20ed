/* model_cmd.c - --model DIR and --generate N, for every kind of model folder
 * (app/kind.h's table of folder kinds): the folder opened with its progress
 * on a terminal, a Git LFS pointer said with the two ways to the real file,
 * the options checked against the model's sizes, and the text continued by
 * sampling, before the batch or interface runs.
 */
#include "cli/model_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/kind.h"
#include "cli/hub_cmd.h"
#include "cli/say.h"
#include "core/av.h"
#include "io/hfcache.h"
#include "io/hffolder.h"

int model_cmd_error(const CliOptions *o, const Kind *k, int err)
{
    int V = 0, n_ctx = 0;
    switch (err) {
    case AV_OK: return 0;
    case AV_ERR_VOCAB:
        return say(2, "'%s' is not in the model's vocabulary (%s)", k->bad, o->model_dir);
    case AV_ERR_UTF8: return say(2, "the text is not valid UTF-8");
    case AV_ERR_EMPTY: return say(2, "the text holds no token");
    case AV_ERR_TOO_MANY:
        kind_vocab(k, &o->cfg, &V, &n_ctx);
        return say(2, "the text has more tokens than %s's context of %d", o->model_dir, n_ctx);
    case AV_ERR_TOO_LARGE: return say(2, "the text is too long to dump every weight");
    default: return say(av_exit_status(err), "%s: %s", o->model_dir, av_strerror(err));
    }
}

/* Loading progress on a terminal's standard error: one line rewritten. */
static void progress(void *ctx, double fraction, const char *what)
{
    const char *dir = ctx;
    fprintf(stderr, "\rattnviz: reading %s: %3.0f%% %-32.32s", dir, 100 * fraction, what);
    fflush(stderr);
}

/* A Git LFS pointer left in place of a file (a clone made without git-lfs):
 * said with the two ways to the real file. */
static int lfs_pointer(const CliOptions *o)
{
    char name[256], id[HF_ID_MAX];
    if (!hffolder_lfs_pointer(o->model_dir, name, sizeof name))
        return 0;
    hub_cmd_guess_id(o->model_dir, id, sizeof id);
    bool weights = strstr(name, ".safetensors") && !strstr(name, ".json");
    return say(2, "%s is a Git LFS pointer, not the %s: run `git lfs pull` in %s, or "
               "`attnviz get %s`", name, weights ? "weights" : "file", o->model_dir, id);
}

static int open_folder(const CliOptions *o, Kind *k)
{
    char why[512] = "";
    bool tty = isatty(STDERR_FILENO);
    int err = kind_open_folder(k, o->model_dir, tty ? progress : NULL, (void *)o->model_dir, why,
                               sizeof why);
    if (tty)
        fputs("\r\033[K", stderr);
    if (err == AV_ERR_NOMEM || (err && !why[0]))
        return say(av_exit_status(err), "%s: %s", o->model_dir, av_strerror(err));
    return err ? say(av_exit_status(err), "%s", why) : 0;
}

int model_cmd_check(const CliOptions *o)
{
    Kind k = {0};
    int status = lfs_pointer(o);
    if (!status)
        status = open_folder(o, &k);
    kind_close(&k);
    return status;
}

/* --head and --layer within the model's sizes. */
static int check_sizes(const CliOptions *o, const ModelConfig *c)
{
    if (o->head_1 > c->H)
        return say(2, "--head %d is out of range: %s has %d head%s a layer", o->head_1,
                   o->model_dir, c->H, c->H == 1 ? "" : "s");
    if (o->layer_1 > c->layers)
        return say(2, "--layer %d is out of range: %s has %d layer%s", o->layer_1,
                   o->model_dir, c->layers, c->layers == 1 ? "" : "s");
    return 0;
}

/* --generate: continue text, print the continuation, keep the whole sequence. */
static int generate(const CliOptions *o, Kind *k, const char *text, bool batch, char **whole)
{
    const char *why = kind_refuses(k, KIND_ASK_GENERATE);
    if (why)
        return say(2, "--generate: %s", why);
    size_t cont = 0;
    int err = kind_generate(k, text, strlen(text), o->generate, o->cfg.temperature, o->top_k,
                            o->cfg.seed, whole, &cont);
    if (err)
        return model_cmd_error(o, k, err);
    if (batch && !(o->export_set && !o->output)) {
        printf("%s\n", *whole + cont);
        if (fflush(stdout) != 0)
            return say(1, "cannot write to standard output");
    }
    return 0;
}

int model_cmd_prepare(CliOptions *o, const char *text, const char *example, bool batch, Kind *k,
                      char **whole)
{
    *whole = NULL;
    int status = lfs_pointer(o);
    if (!status)
        status = open_folder(o, k);
    if (status)
        return status;
    ModelConfig c = o->cfg;
    kind_config(k, &c);
    status = check_sizes(o, &c);
    if (!text && !k->cls->start_text)
        text = example; /* a model of open vocabulary reads the built-in example */
    if (!status && !text && (batch || o->generate) && !o->export_heads)
        status = say(2, "--model needs a TEXT in the model's vocabulary (%s)", o->model_dir);
    if (!status && o->generate)
        status = generate(o, k, text, batch, whole);
    if (!status && !text && k->cls->start_text && !(*whole = kind_start_text(k)))
        status = say(1, "out of memory");
    if (status) {
        free(*whole);
        *whole = NULL;
        kind_close(k);
        return status;
    }
    k->temperature = o->cfg.temperature, k->top_k = o->top_k; /* what g samples with */
    if (k->cls->temperature_samples)
        c.temperature = 1.0f; /* --temperature is generation's here, not the softmax's */
    o->cfg = c;
    o->export.layer = cli_export_layer(o, c.layers);
    return 0;
}
