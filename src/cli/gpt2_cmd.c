/* gpt2_cmd.c - --model DIR of a Hugging Face GPT-2 folder on the command
 * line (gpt2_cmd.h).
 */
#include "cli/gpt2_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "cli/hub_cmd.h"
#include "cli/say.h"
#include "io/hfcache.h"
#include "io/hffolder.h"

/* Loading progress on a terminal's standard error: one line rewritten. */
static void progress(void *ctx, double fraction, const char *what)
{
    const char *dir = ctx;
    fprintf(stderr, "\rattnviz: reading %s: %3.0f%% %-32.32s", dir, 100 * fraction, what);
    fflush(stderr);
}

static int open_error(const CliOptions *o, int err, const char *why)
{
    if (err == AV_ERR_NOMEM)
        return say(1, "%s: out of memory", o->model_dir);
    if (why[0])
        return say(av_exit_status(err), "%s", why);
    return say(av_exit_status(err), "%s: %s", o->model_dir, av_strerror(err));
}

int gpt2_cmd_error(const CliOptions *o, const Kind *k, int err)
{
    const Gpt2Config *g = kind_gpt2_config(k);
    switch (err) {
    case AV_OK: return 0;
    case AV_ERR_UTF8: return say(2, "the text is not valid UTF-8");
    case AV_ERR_EMPTY: return say(2, "the text holds no token");
    case AV_ERR_TOO_MANY:
        return say(2, "the text has more tokens than %s's context of %d", o->model_dir,
                   g ? g->n_ctx : 0);
    case AV_ERR_TOO_LARGE: return say(2, "the text is too long to dump every weight");
    default: return say(av_exit_status(err), "%s: %s", o->model_dir, av_strerror(err));
    }
}

static int check_sizes(const CliOptions *o, const Gpt2Config *g)
{
    if (o->head_1 > g->n_head)
        return say(2, "--head %d is out of range: %s has %d heads a layer", o->head_1,
                   o->model_dir, g->n_head);
    if (o->layer_1 > g->n_layer)
        return say(2, "--layer %d is out of range: %s has %d layers", o->layer_1, o->model_dir,
                   g->n_layer);
    return 0;
}

static int generate(const CliOptions *o, Kind *k, const char *text, bool batch, char **whole)
{
    size_t cont = 0;
    int err = kind_generate(k, text, strlen(text), o->generate, o->cfg.temperature, o->top_k,
                            o->cfg.seed, whole, &cont);
    if (err)
        return gpt2_cmd_error(o, k, err);
    if (batch && !(o->export_set && !o->output)) {
        printf("%s\n", *whole + cont);
        if (fflush(stdout) != 0)
            return say(1, "cannot write to standard output");
    }
    return 0;
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

int gpt2_cmd_prepare(CliOptions *o, const char *text, bool batch, Kind *k, char **whole)
{
    char why[512] = "";
    *whole = NULL;
    int pointer = lfs_pointer(o);
    if (pointer)
        return pointer;
    bool tty = isatty(STDERR_FILENO);
    int err = kind_gpt2_load(k, o->model_dir, tty ? progress : NULL, (void *)o->model_dir, why,
                             sizeof why);
    if (tty)
        fputs("\r\033[K", stderr);
    if (err)
        return open_error(o, err, why);
    int status = check_sizes(o, kind_gpt2_config(k));
    if (!status && o->generate)
        status = generate(o, k, text, batch, whole);
    if (status) {
        kind_close(k);
        return status;
    }
    k->temperature = o->cfg.temperature, k->top_k = o->top_k; /* what g samples with */
    ModelConfig c = o->cfg;
    kind_config(k, &c);
    c.temperature = 1.0f; /* --temperature is generation's here, not the softmax's */
    o->cfg = c;
    o->export.layer = cli_export_layer(o, c.layers);
    return 0;
}
