/* model_cmd.c - the one model command: --model DIR and --generate N for
 * every kind of model folder (app/kind.h's table of folder kinds), and
 * --attention FILE for imported attention (kind_imported.c). A folder is
 * opened with its progress on a terminal, a Git LFS pointer said with the
 * two ways to the real file, the options checked against the model's sizes,
 * and the text continued by sampling, before the batch or interface runs.
 * A file is mapped and checked by its kind, then dumped, exported or opened
 * in the interface here. What differs between the kinds is their class's
 * (KindClass: file_sizes, no_sentence, budget_message, label, warning),
 * not a test of which kind this is.
 */
#include "cli/model_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/kind.h"
#include "cli/hub_cmd.h"
#include "cli/keytty.h"
#include "cli/outfile.h"
#include "cli/say.h"
#include "core/av.h"
#include "io/hfcache.h"
#include "io/hffolder.h"
#include "io/sentences.h"
#include "ui/ui.h"

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

/* Loading progress on a terminal's standard error: one line rewritten,
 * the model named as --model named it (a cache's snapshot by its hub id,
 * not its long path), cut to the terminal's width. */
static void progress(void *ctx, double fraction, const char *what)
{
    const char *name = ctx;
    say_progress("reading %s: %3.0f%% %s", name, 100 * fraction, what);
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
    if (hfcache_repo_of(o->model_dir, id, sizeof id))
        return say(2,
                   "the cache's copy of %s (%s) holds a Git LFS pointer in place of %s: "
                   "`attnviz get %s` fetches it",
                   id, o->model_dir, name, id);
    return say(2,
               "%s is a Git LFS pointer, not the %s: run `git lfs pull` in %s, or "
               "`attnviz get %s`",
               name, weights ? "weights" : "file", o->model_dir, id);
}

static int open_folder(const CliOptions *o, Kind *k)
{
    char why[512] = "", name[HF_PATH_MAX];
    bool tty = isatty(STDERR_FILENO);
    if (!hfcache_model_name(o->model_dir, name, sizeof name))
        snprintf(name, sizeof name, "%s", o->model_dir);
    int err = kind_open_folder(k, o->model_dir, tty ? progress : NULL, name, why, sizeof why);
    if (tty)
        fputs("\r\033[K", stderr);
    if (err == AV_ERR_NOMEM || (err && !why[0]))
        return say(av_exit_status(err), "%s: %s", o->model_dir, av_strerror(err));
    char id[HF_ID_MAX];
    if (err == AV_ERR_MODEL && strstr(why, ".safetensors: ") && /* a damaged download */
        hfcache_repo_of(o->model_dir, id, sizeof id))
        return say(2, "%s, in the cache's copy of %s (%s): `attnviz get %s` fetches it again", why,
                   id, o->model_dir, id);
    return err ? say(av_exit_status(err), "%s", why) : 0;
}

int model_cmd_check(const CliOptions *o, Kind *k)
{
    *k = (Kind){0};
    int status = lfs_pointer(o);
    if (!status)
        status = open_folder(o, k);
    return status;
}

/* --head and --layer within the model's sizes (c, the kind's), named so:
 * a file's sizes also within what attnviz shows. */
static int check_sizes(const CliOptions *o, const Kind *k, const ModelConfig *c)
{
    const char *name = kind_label(k) ? kind_label(k) : o->model_dir;
    bool file = k->cls->file_sizes;
    if (o->head_1 > c->H)
        return say(2, "--head %d is out of range: %s has %d head%s%s", o->head_1, name, c->H,
                   c->H == 1 ? "" : "s", file ? "" : " a layer");
    if (o->layer_1 > c->layers)
        return say(2, "--layer %d is out of range: %s has %d layer%s", o->layer_1, name, c->layers,
                   c->layers == 1 ? "" : "s");
    if (file && (c->layers > AV_MAX_LAYERS || c->H > AV_MAX_HEADS))
        return say(2,
                   "%s has %d layers of %d heads: attnviz shows at most %d layers of %d "
                   "heads (slice the array, e.g. A[-%d:])",
                   name, c->layers, c->H, AV_MAX_LAYERS, AV_MAX_HEADS, AV_MAX_LAYERS);
    return 0;
}

/* --temperature and --no-scale on a model: the interface's what-if (s, t,
 * T) where it has one; --temperature samples where tokens are sampled
 * (--generate, g), so an export without --generate is where it divides the
 * scores. A model without the what-if refuses them there (exit 2). */
static int check_whatif(const CliOptions *o, const Kind *k, bool batch)
{
    const char *why = kind_refuses(k, KIND_ASK_WHATIF);
    if (!why)
        return 0;
    if (!o->cfg.scale)
        return say(2, "--no-scale: %s", why);
    if (o->cfg.temperature != 1.0f && batch && !o->generate)
        return say(2, "--temperature: %s (it goes with --generate N, the sampling's)", why);
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
    status = check_sizes(o, k, &c);
    if (!status)
        status = check_whatif(o, k, batch);
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
    if (k->cls->temperature_samples && (o->generate || !batch))
        c.temperature = 1.0f; /* --temperature is generation's here (and g's), not the softmax's */
    o->cfg = c;
    o->export.layer = cli_export_layer(o, c.layers);
    return 0;
}

/* The result as --export says, for outfile_write. */
typedef struct {
    const ModelResult *r;
    const ModelConfig *c;
    const ExportOptions *eo;
} ExportJob;

static int export_to(FILE *f, void *ctx)
{
    const ExportJob *j = ctx;
    return export_write(f, j->r, j->c, j->eo);
}

/* The lazy result's refusal: a file's budget, or a text's length. */
static int too_large(const CliOptions *o, const Kind *k, const ModelResult *r, const ModelConfig *c)
{
    if (k->cls->budget_message)
        return say(2,
                   "%s is too large to export every weight (over the %.0f MiB budget as "
                   "float32): use --export text, which pools them",
                   o->attention,
                   (c->weights_budget > 0 ? c->weights_budget : MODEL_BUDGET) / (1 << 20));
    return say(2,
               "%d tokens are too many to export every weight: use --export text, "
               "which pools them",
               r->tokens.n);
}

int model_cmd_export(const CliOptions *o, const Kind *k, const ModelResult *r, const ModelConfig *c,
                     ExportOptions eo)
{
    /* text and md open with the sentence and its numbered tokens */
    eo.sentence = !k->cls->no_sentence;
    eo.color = ui_color_wanted(o->color, !o->output && isatty(STDOUT_FILENO));
    if (r->lazy && eo.format != EXPORT_TEXT && eo.format != EXPORT_TRACE &&
        eo.format != EXPORT_SVG && eo.format != EXPORT_HTML) /* these two pool */
        return too_large(o, k, r, c);
    if (!o->output) {
        int err = export_write(stdout, r, c, &eo);
        if (err && err != AV_ERR_IO) /* standard output holds what came before */
            return say(av_exit_status(err), "the export stopped: %s", av_strerror(err));
        return err ? say(1, "cannot write the export: %s", strerror(errno)) : 0;
    }
    return outfile_write(o->output, NULL, export_to, &(ExportJob){r, c, &eo});
}

/* A file's --dump: the kind's files, said with the kind's code. */
static int file_dump(const CliOptions *o, Kind *k, const ModelResult *r, const ModelConfig *c)
{
    const char *which = NULL;
    int err = kind_dump(k, o->dump_dir, r, c, &which);
    if (err && !which)
        return say(1, "cannot make the folder %s: %s", o->dump_dir, strerror(errno));
    if (err)
        return say(av_exit_status(err), "cannot write %s in %s: %s", which, o->dump_dir,
                   err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
    return 0;
}

/* A file's batch: its dump first (the file itself, bit for bit, whatever a
 * run would make), then the run and the export. */
static int file_batch(const CliOptions *o, Kind *k, const ModelConfig *c, ExportOptions eo)
{
    ModelResult r = {0};
    int status = 0;
    if (o->dump_dir && (status = file_dump(o, k, &r, c)) != 0)
        return status;
    if (!o->export_set)
        return 0;
    int err = kind_run(k, c, "", 0, NULL, 0, &r); /* the file's text: the kind's own */
    if (err)
        status = say(av_exit_status(err), "%s: %s", kind_label(k), av_strerror(err));
    if (!status)
        status = model_cmd_export(o, k, &r, c, eo);
    model_result_free(&r);
    return status;
}

/* A file in the interface: its tokens are the text (the kind's own), and
 * the example sentences are not shown (kind_refuses KIND_ASK_EXAMPLES). */
static int file_interactive(const CliOptions *o, Kind *k, const ModelConfig *c)
{
    int tty = keytty_open(o->file && strcmp(o->file, "-") == 0,
                          "not a terminal: use --export FMT or --dump DIR for batch output");
    if (tty)
        return tty;
    SentenceList examples = {0};
    if (sentences_builtin(&examples))
        return say(1, "built-in sentences are broken");
    char *text = kind_start_text(k);
    if (!text) {
        sentences_free(&examples);
        return say(1, "out of memory");
    }
    UiOptions u = {.cfg = *c, .text = text, .sentences = &examples, .color = o->color, .kind = k};
    int status = ui_run(&u);
    free(text);
    sentences_free(&examples);
    return status;
}

int model_cmd_file(const CliOptions *o)
{
    char msg[512];
    bool batch = o->export_set || o->dump_dir;
    Kind k;
    int err = kind_imported_load(&k, o->attention, o->tokens_file, o->key_tokens_file,
                                 !batch && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO), msg,
                                 sizeof msg);
    if (err)
        return say(av_exit_status(err), "%s", msg);
    ModelConfig c = o->cfg;
    kind_config(&k, &c);
    ExportOptions eo = o->export;
    int status = check_sizes(o, &k, &c);
    eo.head = o->head_1 - 1;
    eo.layer = cli_export_layer(o, c.layers);
    if (!status && kind_warning(&k) && batch)
        fprintf(stderr, "attnviz: warning: %s\n", kind_warning(&k));
    if (!status)
        status = batch ? file_batch(o, &k, &c, eo) : file_interactive(o, &k, &c);
    kind_close(&k);
    return status;
}
