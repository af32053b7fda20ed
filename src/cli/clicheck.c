/* clicheck.c - what the command line's options may not be together
 * (cli/cli.h): read by cli.c, checked here before anything runs, each
 * refusal one line in o->err.
 */
#include "cli/cli.h"

#include <string.h>

#include "core/av.h"
#include "core/designed.h"

/* A path option given as "" is a usage error, not the current folder; and
 * --dump - is refused, not a folder named "-": -o - means standard output,
 * where a folder of files cannot go. */
static int check_paths(CliOptions *o)
{
    const char *const names[] = {"--file",  "--weights",   "--dump",   "--output",    "--sentences",
                                 "--model", "--attention", "--tokens", "--key-tokens"};
    const char *const values[] = {o->file,      o->weights_dir, o->dump_dir,
                                  o->output,    o->sentences,   o->model_dir,
                                  o->attention, o->tokens_file, o->key_tokens_file};
    for (int k = 0; k < 9; k++)
        if (values[k] && !*values[k])
            return cli_fail(o, "%s needs a path, not an empty string", names[k]);
    if (o->dump_dir && strcmp(o->dump_dir, "-") == 0)
        return cli_fail(o, "--dump writes a folder of files, not standard output: give a "
                           "folder's path (./- for one named -)");
    return AV_OK;
}

int cli_export_layer(const CliOptions *o, int layers)
{
    if (o->layer_1)
        return o->layer_1 - 1;
    return o->export_set && o->export.format == EXPORT_HTML ? 0 : layers - 1;
}

/* The export's head, layer and query token, 0-based, from the 1-based
 * options; layers is the model's layer count (0: known only once a model or
 * a file is read, which sets the layer then). Returns AV_OK. */
static int export_targets(CliOptions *o, int layers)
{
    o->export.head = o->head_1 - 1;
    o->export.layer = cli_export_layer(o, layers);
    o->export.token = o->token_1 - 1;
    o->export.mono = o->color == COLOR_NEVER; /* SVG and HTML: the grey ramp */
    o->export.source = o->model_dir ? o->model_dir : o->attention ? o->attention : o->weights_dir;
    return AV_OK;
}

/* The text given once, and what the export asks for: checked alike with
 * --model and without. */
static int check_text_and_output(CliOptions *o)
{
    if (o->text && o->file)
        return cli_fail(o, "give the text either as TEXT or with --file, not both");
    if (o->export_set && o->export.format == EXPORT_TRACE && !o->token_1)
        return cli_fail(o, "--export trace needs --token N (the query token, 1-based)");
    if (o->output && !o->export_set)
        return cli_fail(o, "--output goes with --export");
    return AV_OK;
}

/* --model: the model fixes the sizes, preset, mask and weights; --head and
 * --layer are checked against it once it is loaded (main.c). */
static int check_model(CliOptions *o)
{
    if (!o->model_dir)
        return o->generate || o->top_k
                   ? cli_fail(o, "--%s goes with --model DIR", o->generate ? "generate" : "top-k")
                   : AV_OK;
    if (o->weights_dir || o->cfg.preset != PRESET_RANDOM)
        return cli_fail(o, "--model excludes --weights and --preset");
    if (o->dims_given || o->cfg.layers != 1)
        return cli_fail(o, "--model fixes the heads, d_model and layers: leave out --heads, "
                           "--d-model and --layers");
    if (!o->cfg.pe)
        return cli_fail(o, "--model keeps the positions it was trained with: leave out --no-pe");
    if (o->cross)
        return cli_fail(o, "--model is a causal decoder: it takes no --cross");
    if (o->top_k && !o->generate && (o->export_set || o->dump_dir))
        return cli_fail(o, "--top-k goes with --generate N (or g in the interface)");
    int err = check_text_and_output(o);
    return err ? err : export_targets(o, 0); /* the layers: known once the model is loaded */
}

/* The lens format asked for, as --export names it. */
static const char *lens_name(const CliOptions *o)
{
    return o->export_lens == 2 ? "lens-json" : "lens";
}

/* --attention: no model, so none of its settings; the head and layer are
 * checked against the file (cli/model_cmd.c). */
static int check_import(CliOptions *o)
{
    const ModelConfig *c = &o->cfg;
    const char *clash = o->text                      ? "TEXT"
                        : o->file                    ? "--file"
                        : o->cross                   ? "--cross"
                        : o->weights_dir             ? "--weights"
                        : o->model_dir               ? "--model"
                        : o->lesson_set              ? "--lesson"
                        : o->dims_given              ? "--heads/--d-model"
                        : c->layers != 1             ? "--layers"
                        : c->preset != PRESET_RANDOM ? "--preset"
                        : c->causal                  ? "--causal"
                        : !c->pe                     ? "--no-pe"
                        : !c->scale                  ? "--no-scale"
                        : c->temperature != 1.0f     ? "--temperature"
                                                     : NULL;
    if (!o->attention)
        return cli_fail(o, "%s goes with --attention FILE.npy",
                        o->tokens_file ? "--tokens" : "--key-tokens");
    if (clash)
        return cli_fail(o, "--attention opens attention computed elsewhere: leave out %s", clash);
    if (o->export_heads)
        return cli_fail(o, "--export heads runs token sequences through a model: imported "
                           "attention has only its own text");
    if (o->export_lens)
        return cli_fail(o,
                        "--export %s needs a model that predicts tokens (--model DIR): "
                        "imported attention has only weights",
                        lens_name(o));
    if (o->export_set && (o->export.format == EXPORT_TRACE || o->export.format == EXPORT_PIPELINE))
        return cli_fail(o,
                        "--export %s needs a model's vectors (Q, K, V): imported attention has "
                        "only weights",
                        o->export.format == EXPORT_TRACE ? "trace" : "pipeline");
    if (o->output && !o->export_set)
        return cli_fail(o, "--output goes with --export");
    return export_targets(o, 0); /* the layers: known once the file is read */
}

/* --lesson NAME --model DIR: the lesson's pages run on DIR, so the model
 * brings the sizes and the lesson the sentences. */
static int check_lesson_model(CliOptions *o)
{
    if (!o->lesson)
        return cli_fail(o, "--model goes with --lesson NAME (every page then runs on it)");
    if (o->weights_dir || o->cfg.preset != PRESET_RANDOM || o->dims_given || o->cfg.layers != 1)
        return cli_fail(o, "--model fixes the heads, d_model, layers and weights: leave out "
                           "--heads, --d-model, --layers, --weights and --preset");
    if (o->text || o->file || o->dump_dir || o->cross || o->generate || o->top_k)
        return cli_fail(o, "--lesson sets its own sentences: leave out TEXT, --file, --cross, "
                           "--dump and --generate");
    if (o->page_opt)
        return cli_fail(o, "--lesson sets every page's settings: leave out %s", o->page_opt);
    if (o->export_set && o->export.format != EXPORT_MD)
        return cli_fail(o, "--lesson goes with --export md and a lesson name (the handout)");
    if (o->output && !o->export_set)
        return cli_fail(o, "--output goes with --export");
    return AV_OK;
}

/* Checks that need every option: the head count divides d_model, ... */
static int check_combination(CliOptions *o)
{
    ModelConfig *c = &o->cfg;
    if ((o->check || o->n_sizes) && !o->lesson_set)
        return cli_fail(o, "%s goes with --lesson [NAME|FILE] (the lesson checker)",
                        o->check ? "--check" : "--size");
    if (o->n_sizes && !o->check)
        return cli_fail(o, "--size goes with --lesson NAME --check");
    if (o->check && o->export_set)
        return cli_fail(o, "--check writes findings, not an export: leave out --export");
    if (o->check && (o->attention || o->weights_dir))
        return cli_fail(o, "--check runs the lesson's own models (or --model's): leave out "
                           "--attention and --weights");
    if (o->lesson_set && o->model_dir)
        return check_lesson_model(o);
    if (o->attention || o->tokens_file || o->key_tokens_file)
        return check_import(o);
    /* the pages set them, in the interface, the checker and the handout alike */
    if (o->lesson_set && o->page_opt)
        return cli_fail(o, "--lesson sets every page's settings: leave out %s", o->page_opt);
    if (o->model_dir || o->generate || o->top_k)
        return check_model(o);
    if (o->export_lens)
        return cli_fail(o,
                        "--export %s needs a model that predicts tokens (--model DIR): "
                        "the toy pipeline has no vocabulary to predict",
                        lens_name(o));
    if (c->preset == PRESET_DESIGNED && o->weights_dir)
        return cli_fail(o, "--preset designed and --weights exclude each other");
    if (o->weights_dir)
        c->preset = PRESET_LOADED;
    if (c->preset == PRESET_DESIGNED) {
        if (o->dims_given && (c->d_model != DESIGNED_D_MODEL || c->H != DESIGNED_HEADS))
            return cli_fail(o,
                            "--preset designed has d_model %d and %d heads: leave out "
                            "--d-model and --heads",
                            DESIGNED_D_MODEL, DESIGNED_HEADS);
        model_config_designed(c);
    }
    if (c->d_model % c->H != 0)
        return cli_fail(o, "--d-model %d is not divisible by --heads %d", c->d_model, c->H);
    if (o->head_1 > c->H)
        return cli_fail(o, "--head %d is out of range: there %s %d head%s", o->head_1,
                        c->H == 1 ? "is" : "are", c->H, c->H == 1 ? "" : "s");
    if (o->layer_1 > c->layers)
        return cli_fail(o, "--layer %d is out of range: there %s %d layer%s", o->layer_1,
                        c->layers == 1 ? "is" : "are", c->layers, c->layers == 1 ? "" : "s");
    int err = check_text_and_output(o);
    if (err)
        return err;
    if (o->lesson_set && (o->text || o->file || o->dump_dir))
        return cli_fail(o, "--lesson sets its own sentences: leave out TEXT, --file and --dump");
    if (o->lesson_set && o->export_set && (o->export.format != EXPORT_MD || !o->lesson))
        return cli_fail(o, "--lesson goes with --export md and a lesson name (the handout)");
    return export_targets(o, c->layers);
}

int cli_check(CliOptions *o)
{
    int err = check_paths(o);
    return err ? err : check_combination(o);
}
