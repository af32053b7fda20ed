/* import_cmd.c - imported attention on the command line: the file mapped and
 * checked by the imported kind (kind_imported_load), then one ModelResult
 * backed by it (model_result_import) for the exports and the interface, and
 * the dump of the file itself (dump_write_import).
 *
 * A float32 file's weights are read in place from the memory map; a float64
 * file's are converted into memory when they fit the budget, else read a row
 * at a time. Nothing of the file is read twice into memory. Every value is
 * checked before an export or a dump writes anything; the interface on a file
 * over ATTNFILE_BACKGROUND_BYTES starts with its first layer checked and
 * checks the others while it is up (the imported kind, app/kind_imported.c).
 */
#include "cli/import_cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/kind.h"
#include "core/av.h"
#include "io/attnimport.h"
#include "io/sentences.h"
#include "render/export.h"
#include "ui/ui.h"
#include "cli/outfile.h"
#include "cli/say.h"

/* The head and layer asked for, against the file's; sets eo's 0-based ones. */
static int check_selection(const CliOptions *o, const AttnFile *af, ExportOptions *eo)
{
    if (o->head_1 > af->H)
        return say(2, "--head %d is out of range: %s has %d head%s", o->head_1, af->name,
                   af->H, af->H == 1 ? "" : "s");
    if (o->layer_1 > af->L)
        return say(2, "--layer %d is out of range: %s has %d layer%s", o->layer_1, af->name,
                   af->L, af->L == 1 ? "" : "s");
    if (af->L > AV_MAX_LAYERS || af->H > AV_MAX_HEADS)
        return say(2, "%s has %d layers of %d heads: attnviz shows at most %d layers of %d "
                   "heads (slice the array, e.g. A[-%d:])", af->name, af->L, af->H,
                   AV_MAX_LAYERS, AV_MAX_HEADS, AV_MAX_LAYERS);
    eo->head = o->head_1 - 1;
    eo->layer = cli_export_layer(o, af->L);
    return 0;
}

/* The result the exports read (the kind's run): the file's float32 layers in
 * place, or its float64 values converted (in memory when they fit). */
static int build_result(Kind *k, const AttnImport *im, const ModelConfig *c, ModelResult *r)
{
    int err = kind_run(k, c, im->text, im->text_len, NULL, 0, r);
    return err ? say(av_exit_status(err), "%s: %s", im->a.name, av_strerror(err)) : 0;
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

static int write_export(const CliOptions *o, const ModelResult *r, const ModelConfig *c,
                        ExportOptions *eo)
{
    const char *no_color = getenv("NO_COLOR");
    eo->color = o->color == COLOR_ALWAYS || (o->color == COLOR_AUTO && !o->output &&
                isatty(STDOUT_FILENO) && !(no_color && *no_color));
    if (r->lazy && eo->format != EXPORT_TEXT && eo->format != EXPORT_SVG &&
        eo->format != EXPORT_HTML) /* these two pool */
        return say(2, "%s is too large to export every weight (over the %.0f MiB budget as "
                   "float32): use --export text, which pools them", o->attention,
                   (c->weights_budget > 0 ? c->weights_budget : MODEL_BUDGET) / (1 << 20));
    if (!o->output) {
        int err = export_write(stdout, r, c, eo);
        if (err && err != AV_ERR_IO) /* standard output holds what came before */
            return say(av_exit_status(err), "the export stopped: %s", av_strerror(err));
        return err ? say(1, "cannot write the export: %s", strerror(errno)) : 0;
    }
    return outfile_write(o->output, NULL, export_to, &(ExportJob){r, c, eo});
}

static int batch(const CliOptions *o, Kind *k, const AttnImport *im, const ModelConfig *c,
                 ExportOptions *eo)
{
    ModelResult r = {0};
    if (o->dump_dir) {
        const char *which = NULL;
        int err = kind_dump(k, o->dump_dir, &r, c, &which);
        if (err && !which)
            return say(1, "cannot make the folder %s: %s", o->dump_dir, strerror(errno));
        if (err)
            return say(av_exit_status(err), "cannot write %s in %s: %s", which, o->dump_dir,
                       err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
    }
    if (!o->export_set)
        return 0;
    int status = build_result(k, im, c, &r);
    if (!status)
        status = write_export(o, &r, c, eo);
    model_result_free(&r);
    return status;
}

static int interactive(const CliOptions *o, Kind *k, const AttnImport *im,
                       const ModelConfig *c)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return say(2, "not a terminal: use --export FMT or --dump DIR for batch output");
    SentenceList examples = {0}; /* not shown: the text is the file's tokens */
    if (sentences_builtin(&examples))
        return say(1, "built-in sentences are broken");
    UiOptions u = {.cfg = *c, .text = im->text, .sentences = &examples, .color = o->color,
                   .kind = k};
    int status = ui_run(&u);
    sentences_free(&examples);
    return status;
}

int import_cmd_main(const CliOptions *o)
{
    char msg[512];
    bool batch_mode = o->export_set || o->dump_dir;
    Kind k;
    int err = kind_imported_load(&k, o->attention, o->tokens_file, o->key_tokens_file,
                                 !batch_mode && isatty(STDIN_FILENO) && isatty(STDOUT_FILENO),
                                 msg, sizeof msg);
    if (err)
        return say(av_exit_status(err), "%s", msg);
    const AttnImport *im = kind_imported_file(&k);
    ExportOptions eo = o->export;
    int status = check_selection(o, &im->a, &eo);
    if (!status && im->a.warning[0] && batch_mode)
        fprintf(stderr, "attnviz: warning: %s\n", im->a.warning);
    ModelConfig c;
    model_config_import(&c, im->a.L, im->a.H, im->a.causal);
    c.weights_budget = o->cfg.weights_budget;
    if (!status)
        status = batch_mode ? batch(o, &k, im, &c, &eo) : interactive(o, &k, im, &c);
    kind_close(&k);
    return status;
}
