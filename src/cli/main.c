/* main.c - attnviz's entry point: the command line, batch exports, and the
 * start of the interface.
 *
 * Every input is read and checked here, before curses starts (ncdu's way), so
 * each error is one line on standard error and an exit status of 1 (I/O) or
 * 2 (usage or input), as DESIGN.md fixes.
 */
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "cli/blaskern.h"
#include "cli/cli.h"
#include "cli/train_cmd.h"
#include "cli/lesson_cmd.h"
#include "render/export.h"
#include "io/dump.h"
#include "io/fileio.h"
#include "io/stale.h"
#include "core/mat.h"
#include "core/model.h"
#include "io/npy.h"
#include "io/sentences.h"
#include "ui/ui.h"
#include "io/weights.h"
#include "app/headscan.h"
#include "app/kind.h"
#include "cli/hub_cmd.h"
#include "cli/model_cmd.h"
#include "cli/keytty.h"
#include "cli/lens_cmd.h"
#include "cli/live_cmd.h"
#include "cli/outfile.h"
#include "cli/say.h"

typedef struct {
    CliOptions opt;
    char *file_text; /* -f contents */
    SentenceList sentences;
    ModelWeights weights;
    ModelResult result;
    Kind kind;      /* what runs: the pipeline on weights, --model's (trained or GPT-2) */
    char *gen_text; /* the text continued by --generate, or NULL */
    Lesson lesson;  /* --lesson NAME for the interface */
} App;

/* Make wcwidth and ncursesw see UTF-8 even under a plain "C" locale. */
static void set_locale(void)
{
    setlocale(LC_ALL, "");
    if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
        setlocale(LC_CTYPE, "C.UTF-8");
}

static int load_text(App *a)
{
    size_t len;
    if (!a->opt.file)
        return 0;
    int err = file_read_all(a->opt.file, AV_MAX_TEXT_BYTES, &a->file_text, &len);
    if (err == AV_ERR_TOO_LARGE)
        return say(2, "%s: larger than the %d MiB a text may have", a->opt.file,
                   AV_MAX_TEXT_BYTES >> 20);
    if (err)
        return say(av_exit_status(err), "cannot read %s: %s", a->opt.file,
                   err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
    if (memchr(a->file_text, '\0', len))
        return say(2, "%s: the text holds a NUL byte", a->opt.file);
    return 0;
}

static int load_sentences(App *a)
{
    if (!a->opt.sentences)
        return sentences_builtin(&a->sentences) ? say(1, "built-in sentences are broken") : 0;
    char *data;
    size_t len;
    int err = file_read_all(a->opt.sentences, AV_MAX_TEXT_BYTES, &data, &len);
    if (err)
        return say(av_exit_status(err), "cannot read %s: %s", a->opt.sentences,
                   err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
    err = sentences_parse(data, len, &a->sentences);
    free(data);
    if (err == AV_ERR_EMPTY)
        return say(2, "%s: no sentence in the file", a->opt.sentences);
    if (err)
        return say(av_exit_status(err), "%s:%d: %s", a->opt.sentences, a->sentences.bad_line,
                   a->sentences.err[0] ? a->sentences.err : av_strerror(err));
    return 0;
}

/* A .npy of the wrong shape: say what it is and what it should be. */
static int shape_error(const App *a, const char *which)
{
    char path[4096], have[96] = "?";
    NpyArray arr = {0};
    int d = a->opt.cfg.d_model;
    snprintf(path, sizeof path, "%s/%s", a->opt.weights_dir, which);
    if (npy_read(path, &arr) == AV_OK) {
        int n = snprintf(have, sizeof have, "(");
        for (int k = 0; k < arr.ndim && n < 80; k++)
            n += snprintf(have + n, sizeof have - n, "%s%zu", k ? ", " : "", arr.shape[k]);
        snprintf(have + n, sizeof have - n, "%s)", arr.ndim == 1 ? "," : "");
    }
    npy_free(&arr);
    if (strcmp(which, "X.npy") == 0)
        return say(2, "%s has shape %s; --d-model %d needs (tokens, %d)", path, have, d, d);
    return say(2, "%s has shape %s; --d-model %d needs (%d, %d)", path, have, d, d, d);
}

static int load_weights(App *a)
{
    const char *which = "";
    int err;
    if (!a->opt.weights_dir)
        err = model_weights_toy(&a->opt.cfg, &a->weights);
    else
        err = weights_load(&a->opt.cfg, a->opt.weights_dir, &a->weights, &which);
    if (err == AV_ERR_IO)
        return say(1, "cannot read %s/%s: %s", a->opt.weights_dir, which, strerror(errno));
    if (err == AV_ERR_NPY_SHAPE)
        return shape_error(a, which);
    if (err)
        return say(av_exit_status(err), "%s/%s: %s", a->opt.weights_dir, which, av_strerror(err));
    return 0;
}

static const char *the_text(const App *a)
{
    if (a->gen_text)
        return a->gen_text;
    if (a->file_text)
        return a->file_text;
    return a->opt.text ? a->opt.text : a->sentences.items[0];
}

/* Run the model once; an error becomes one line naming what is wrong. */
static int run_model(App *a)
{
    const char *text = the_text(a), *cross = a->opt.cross;
    int err = kind_run(&a->kind, &a->opt.cfg, text, strlen(text), cross, cross ? strlen(cross) : 0,
                       &a->result);
    if (err == AV_ERR_TOO_LARGE && !a->opt.dump_dir && a->opt.cfg.keep_scores) {
        /* the HTML page's scores: not for a text too long to keep its weights */
        a->opt.cfg.keep_scores = false;
        err = kind_run(&a->kind, &a->opt.cfg, text, strlen(text), cross, cross ? strlen(cross) : 0,
                       &a->result);
    }
    if (a->opt.model_dir && err)
        return model_cmd_error(&a->opt, &a->kind, err);
    char note[256];
    kind_run_note(&a->kind, &a->result, note, sizeof note);
    if (note[0])
        say(0, "%s", note);
    const TokenList *t =
        a->result.tokens.bad_offset || !cross ? &a->result.tokens : &a->result.cross_tokens;
    switch (err) {
    case AV_OK: return 0;
    case AV_ERR_EMPTY:
        return say(2, "the %s holds no token", a->result.tokens.n ? "--cross text" : "text");
    case AV_ERR_UTF8:
        if (t == &a->result.tokens && a->file_text)
            return say(2, "%s: invalid UTF-8 at byte %zu", a->opt.file, t->bad_offset);
        return say(2, "invalid UTF-8 in the %s at byte %zu",
                   t == &a->result.tokens ? "text" : "--cross text", t->bad_offset);
    case AV_ERR_TOO_MANY:
        return say(2,
                   "the text has more than %d tokens (raise the limit with --max-tokens, "
                   "up to %d)",
                   a->opt.cfg.max_tokens, AV_MAX_TOKENS);
    case AV_ERR_NPY_SHAPE:
        return say(2, "%s/X.npy has %d rows but the text has %d tokens", a->opt.weights_dir,
                   a->weights.n_x, a->result.tokens.n);
    case AV_ERR_TOO_LARGE:
        return say(2, "%d tokens are too many to dump: the weights alone would take %.1f GiB",
                   a->result.tokens.n,
                   model_weight_bytes(&a->opt.cfg, a->result.tokens.n,
                                      cross ? a->result.cross_tokens.n : a->result.tokens.n) /
                       (1 << 30));
    case AV_ERR_OVERFLOW:
        if (a->opt.weights_dir)
            return say(2, "%s: %s", a->opt.weights_dir, av_strerror(err));
        return say(2, "%s", av_strerror(err));
    default: return say(av_exit_status(err), "%s", av_strerror(err));
    }
}

static int write_export(App *a)
{
    return model_cmd_export(&a->opt, &a->kind, &a->result, &a->opt.cfg, a->opt.export);
}

static int heads_to(FILE *f, void *hs)
{
    return headscan_write_csv(hs, f);
}

/* --export heads: every head scored on the probes (app/headscan.h), CSV to
 * standard output or --output. */
static int write_heads(App *a)
{
    const char *why = headscan_refuses(&a->kind, &a->opt.cfg);
    if (why)
        return say(2, "--export heads: %s", why);
    HeadScan hs;
    int err = headscan_run(&a->kind, &a->opt.cfg, HEADSCAN_SEED, &hs);
    if (err)
        return say(av_exit_status(err), "--export heads: %s", av_strerror(err));
    int status = outfile_write(a->opt.output, "the scores", heads_to, &hs);
    headscan_free(&hs);
    return status;
}

static int batch(App *a)
{
    if (!a->opt.export_set && !a->opt.dump_dir)
        return 0; /* --generate alone: the continuation is printed */
    if (a->opt.export_heads && !a->opt.dump_dir)
        return write_heads(a);
    if (a->opt.export_lens && !a->opt.dump_dir)
        return lens_cmd_write(&a->opt, &a->kind, the_text(a));
    int status = run_model(a);
    if (status)
        return status;
    if (a->opt.export.token >= a->result.tokens.n)
        return say(2, "--token %d is out of range: the text has %d token%s", a->opt.token_1,
                   a->result.tokens.n, a->result.tokens.n == 1 ? "" : "s");
    if (a->opt.dump_dir) {
        const char *which = "";
        /* attnviz's own weights: norms.npy too (a trained model's W_O is its own) */
        int err = kind_dump(&a->kind, a->opt.dump_dir, &a->result, &a->opt.cfg, &which);
        if (err && !which)
            return say(1, "cannot make the folder %s: %s", a->opt.dump_dir, strerror(errno));
        if (err)
            return say(1, "cannot write %s in %s: %s", which, a->opt.dump_dir, strerror(errno));
    }
    if (a->opt.export_heads)
        return write_heads(a);
    if (a->opt.export_lens)
        return lens_cmd_write(&a->opt, &a->kind, the_text(a));
    return a->opt.export_set ? write_export(a) : 0;
}

static int interactive(App *a)
{
    if (a->opt.lesson_set) { /* a malformed lesson is said before curses starts */
        int status = lesson_cmd_open(a->opt.lesson, &a->lesson);
        if (!status)
            status = lesson_cmd_use(&a->opt, &a->lesson); /* --model: every page on it */
        if (status)
            return status;
    }
    int tty = keytty_open(a->opt.file && strcmp(a->opt.file, "-") == 0,
                          "not a terminal: use --export FMT or --dump DIR for batch output");
    if (tty)
        return tty;
    if (a->opt.text || a->file_text || a->gen_text) {
        int status = run_model(a);
        if (status)
            return status;
    }
    /* a model opened without TEXT starts on text of its own vocabulary
     * (model_cmd_prepare), not on a sentence it cannot read */
    UiOptions u = {
        .cfg = a->opt.cfg,
        .text = a->gen_text    ? a->gen_text
                : a->file_text ? a->file_text
                               : a->opt.text,
        .cross = a->opt.cross,
        .sentences = &a->sentences,
        .weights = a->opt.weights_dir ? &a->weights : NULL,
        .color = a->opt.color,
        .kind = a->opt.model_dir && !a->opt.lesson_set ? &a->kind : NULL,
        .defaults = !a->opt.dims_given && !a->opt.preset_given,
    };
    u.lesson = a->opt.lesson_set ? &a->lesson : NULL;
    /* o's lessons run on --model's folder, as --lesson NAME --model DIR's do */
    char *model_abs = a->opt.model_dir ? realpath(a->opt.model_dir, NULL) : NULL;
    u.model_dir = model_abs;
    stale_set_note(NULL); /* standard error would land on the screen */
    int status = ui_run(&u);
    free(model_abs);
    return status;
}

/* --help and --version: the usage, or the version with the BLAS kernel in
 * use and who chose it (blaskern.h). */
static int help_or_version(const App *a)
{
    if (a->opt.help) {
        fputs(cli_usage(), stdout);
    } else {
        char blas[192];
        blaskern_describe(blas, sizeof blas);
        printf("attnviz %s (%s)\n", AV_VERSION, blas);
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        return say(1, "cannot write to standard output: %s", strerror(errno));
    return 0;
}

/* The live training view (--train TASK). */
static int live(App *a)
{
    int status = load_text(a);
    if (!status)
        status = load_sentences(a);
    stale_set_note(NULL); /* the interface: standard error would land on the screen */
    return status ? status : live_cmd_main(&a->opt, a->file_text, &a->sentences);
}

/* A sentence through the toy pipeline, a trained model or a lesson: batch
 * exports, a handout, or the interface. */
static int run(App *a)
{
    /* the HTML page shows each cell's raw score */
    a->opt.cfg.keep_scores =
        a->opt.dump_dir != NULL || (a->opt.export_set && a->opt.export.format == EXPORT_HTML);
    /* A text or trace export of a long text needs the weights one block at a
     * time: computing them on demand spares the first touch of hundreds of
     * MiB that keeping them would cost. */
    bool drawn = a->opt.export_set &&
                 (a->opt.export.format == EXPORT_TEXT || a->opt.export.format == EXPORT_TRACE);
    if (drawn && !a->opt.dump_dir && a->opt.cfg.weights_budget == 0)
        a->opt.cfg.weights_budget = 64.0 * 1024 * 1024;
    int status = load_text(a);
    if (!status)
        status = load_sentences(a);
    if (status)
        return status;
    /* --lesson NAME --model DIR: the pages open the model; see first that it opens */
    if (a->opt.lesson_set && a->opt.model_dir && (status = lesson_cmd_model(&a->opt)) != 0)
        return status;
    if (a->opt.check) /* the lesson checker: pages drawn off-screen, no terminal */
        return lesson_cmd_check(&a->opt, &a->sentences);
    /* --lesson alone lists the lessons; with --export md it writes a handout */
    if (a->opt.lesson_set && (a->opt.export_set || !a->opt.lesson))
        return lesson_cmd_batch(&a->opt, &a->sentences);
    bool batch_run = a->opt.export_set || a->opt.dump_dir || a->opt.generate;
    bool model = a->opt.model_dir && !a->opt.lesson_set; /* a lesson's pages open theirs */
    if (model && (status = hub_cmd_resolve(&a->opt)) != 0)
        return status; /* --model NAME: a hub id's snapshot in the cache */
    if (model) {
        status = model_cmd_prepare(&a->opt, a->file_text ? a->file_text : a->opt.text,
                                   a->sentences.items[0], batch_run, &a->kind, &a->gen_text);
    } else {
        status = load_weights(a);
        if (!status)
            kind_pipeline_open(&a->kind, &a->weights);
    }
    if (status)
        return status;
    return batch_run ? batch(a) : interactive(a);
}

static void app_free(App *a)
{
    model_result_free(&a->result);
    lesson_free(&a->lesson);
    kind_close(&a->kind);
    model_weights_free(&a->weights);
    free(a->gen_text);
    sentences_free(&a->sentences);
    free(a->file_text);
    cli_free(&a->opt);
}

/* Before any work: --dump's folder is missing, empty or an earlier dump,
 * which the dump replaces whole (app/kind.h kind_dump); else one line. */
static int check_dump_dir(const char *dir)
{
    char which[512];
    if (!dump_check_folder(dir, which, sizeof which))
        return 0;
    if (errno == ENOTDIR)
        return say(1, "cannot dump into %s: not a folder", dir);
    if (errno == ENOTEMPTY)
        return say(1,
                   "cannot dump into %s: it holds %s, which is not a file of a dump (dump "
                   "into a new folder, or one that holds an earlier dump)",
                   dir, which);
    return say(1, "cannot dump into %s: %s", dir, strerror(errno));
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "get") == 0)
        return hub_cmd_get(argc - 1, argv + 1);
    blaskern_ensure(argv);    /* OpenBLAS on the processor's own kernel: may re-execute once */
    stale_set_note(say_note); /* a killed run's temporary left beside a file: one line */
    if (argc > 1 && strcmp(argv[1], "train") == 0)
        return train_cmd_main(argc - 1, argv + 1);
    App a = {0};
    set_locale();
    int status = cli_parse(argc, argv, &a.opt) ? say(2, "%s", a.opt.err) : 0;
    mat_set_threads(1);
    if (!status && !a.opt.help && !a.opt.version && a.opt.dump_dir)
        status = check_dump_dir(a.opt.dump_dir);
    if (!status && (a.opt.help || a.opt.version))
        status = help_or_version(&a);
    else if (!status && a.opt.attention) /* imported attention: no model to run */
        status = model_cmd_file(&a.opt);
    else if (!status && a.opt.train)
        status = live(&a);
    else if (!status)
        status = run(&a);
    app_free(&a);
    return status;
}
