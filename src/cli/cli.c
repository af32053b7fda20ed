/* cli.c - the command line parsed into a CliOptions, with getopt_long.
 *
 * Every number is checked in full (no trailing junk, no overflow, within the
 * limits of av.h) and every problem becomes one line in o->err. Nothing here
 * prints or exits. What the options may not be together: clicheck.c.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"

enum {
    OPT_SEED = 256,
    OPT_NO_PE,
    OPT_NO_SCALE,
    OPT_WEIGHTS,
    OPT_DUMP,
    OPT_HEAD,
    OPT_COLOR,
    OPT_SENTENCES,
    OPT_MAX_TOKENS,
    OPT_LAYERS,
    OPT_LAYER,
    OPT_TOKEN,
    OPT_CROSS,
    OPT_TEMPERATURE,
    OPT_WIDTH,
    OPT_PRESET,
    OPT_BUDGET,
    OPT_NUMBERS,
    OPT_LESSON,
    OPT_MODEL,
    OPT_GENERATE,
    OPT_TOP_K,
    OPT_ATTENTION,
    OPT_TOKENS,
    OPT_KEY_TOKENS,
    OPT_TRAIN,
    OPT_CHECK,
    OPT_SIZE,
};

static const struct option long_opts[] = {
    {"heads", required_argument, NULL, 'H'},
    {"d-model", required_argument, NULL, 'd'},
    {"seed", required_argument, NULL, OPT_SEED},
    {"causal", no_argument, NULL, 'c'},
    {"no-pe", no_argument, NULL, OPT_NO_PE},
    {"no-scale", no_argument, NULL, OPT_NO_SCALE},
    {"file", required_argument, NULL, 'f'},
    {"weights", required_argument, NULL, OPT_WEIGHTS},
    {"dump", required_argument, NULL, OPT_DUMP},
    {"export", required_argument, NULL, 'e'},
    {"head", required_argument, NULL, OPT_HEAD},
    {"output", required_argument, NULL, 'o'},
    {"color", required_argument, NULL, OPT_COLOR},
    {"colour", required_argument, NULL, OPT_COLOR},
    {"sentences", required_argument, NULL, OPT_SENTENCES},
    {"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
    {"layers", required_argument, NULL, OPT_LAYERS},
    {"layer", required_argument, NULL, OPT_LAYER},
    {"token", required_argument, NULL, OPT_TOKEN},
    {"cross", required_argument, NULL, OPT_CROSS},
    {"temperature", required_argument, NULL, OPT_TEMPERATURE},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"numbers", no_argument, NULL, OPT_NUMBERS},
    {"preset", required_argument, NULL, OPT_PRESET},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"model", required_argument, NULL, OPT_MODEL},
    {"generate", required_argument, NULL, OPT_GENERATE},
    {"top-k", required_argument, NULL, OPT_TOP_K},
    {"lesson", optional_argument, NULL, OPT_LESSON},
    {"check", no_argument, NULL, OPT_CHECK},
    {"size", required_argument, NULL, OPT_SIZE},
    {"attention", required_argument, NULL, OPT_ATTENTION},
    {"tokens", required_argument, NULL, OPT_TOKENS},
    {"key-tokens", required_argument, NULL, OPT_KEY_TOKENS},
    {"train", required_argument, NULL, OPT_TRAIN},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static const char usage[] =
    "usage: attnviz [OPTIONS] [TEXT]\n"
    "Transformer attention, visible in the terminal: interactive when standard\n"
    "output is a terminal, batch with --export or --dump.\n"
    "\n"
    "  -H, --heads N        number of heads, dividing d_model (default 4)\n"
    "  -d, --d-model N      model width (default 32)\n"
    "      --seed N         seed of the toy embeddings and weights (default 42)\n"
    "  -c, --causal         causal mask on\n"
    "      --no-pe          no positional encoding\n"
    "      --no-scale       no 1/sqrt(d_k) scaling\n"
    "      --temperature T  divide the scores by T as well (default 1)\n"
    "  -f, --file PATH      read the text from PATH (\"-\" is standard input)\n"
    "      --weights DIR    Wq.npy Wk.npy Wv.npy Wo.npy (d_model x d_model), X.npy\n"
    "      --dump DIR       write tokens.txt, X Q K V scores weights output .npy\n"
    "                       (a GPT-2 also attention rollout norms ids logits .npy;\n"
    "                       a model that predicts tokens lens_ids and lens_probs .npy)\n"
    "  -e, --export FMT     text | csv | json | md | trace | pipeline | svg | html | heads\n"
    "                       | lens | lens-json: write and exit (svg: a picture for\n"
    "                       slides; html: one self-contained page of every layer and\n"
    "                       head; heads: every head's previous-token, induction,\n"
    "                       duplicate and first-token scores as CSV; lens: the logit\n"
    "                       lens, each layer's likeliest next token at each position,\n"
    "                       with --model; lens-json: its top 10 of every cell)\n"
    "      --head N|all     only head N (1-based) in exports (default all)\n"
    "  -o, --output PATH    write the export to PATH instead of standard output\n"
    "                       (\"-\" is standard output)\n"
    "      --width N        columns of the text export (default 100)\n"
    "      --numbers        write each cell's percentage in the text export\n"
    "      --color WHEN     auto | always | never | mono (NO_COLOR is honoured;\n"
    "                       never or mono: grey SVG and HTML exports)\n"
    "      --sentences FILE example sentences for the interface, one a line\n"
    "      --max-tokens N   token limit (default 4096, at most 16384)\n"
    "      --budget MIB     memory for the attention weights before they are computed\n"
    "                       on demand instead of kept (default 1024)\n"
    "      --preset NAME    random (toy weights from the seed) | designed (hand-built\n"
    "                       heads: previous token, self, first, same word, ...)\n"
    "      --token N        the query token (1-based) of --export trace and pipeline\n"
    "      --layers N       encoder layers (default 1), --layer N shows layer N\n"
    "      --cross TEXT     cross-attention: keys and values from TEXT\n"
    "      --model DIR      a trained model (attnviz train ... --save DIR) on TEXT of\n"
    "                       its vocabulary, or a Hugging Face GPT-2 folder\n"
    "                       (config.json, model.safetensors, vocab.json and\n"
    "                       merges.txt: gpt2 to gpt2-xl in float32, float16 or\n"
    "                       bfloat16) or BERT-family one (bert, distilbert,\n"
    "                       MiniLM: config.json, model.safetensors, vocab.txt),\n"
    "                       instead of the toy pipeline; or a hub id\n"
    "                       (gpt2, ORG/NAME[@REV]) found in the Hugging Face cache\n"
    "      --generate N     with --model: continue TEXT by N tokens and print them\n"
    "                       (sampled with --temperature and --seed; so is g's token\n"
    "                       in the interface)\n"
    "      --top-k K        with --generate (or g in the interface): sample among the\n"
    "                       K likeliest tokens only\n"
    "      --lesson [NAME|FILE]  list the built-in lessons, or open one (with\n"
    "                       --export md: write it as a Markdown handout); with\n"
    "                       --model DIR every page runs on that model instead of\n"
    "                       its own (the interface, --check and the handout)\n"
    "      --check          with --lesson [NAME|FILE]: draw every page off-screen at\n"
    "                       80x24, 100x30 and 120x40 (or --size WxH) before and after\n"
    "                       its reveal, print what is wrong, one line each; exit 1 on\n"
    "                       any finding (no NAME: every built-in lesson)\n"
    "      --attention FILE.npy  open attention computed elsewhere: (L, H, n, n) or\n"
    "                       (H, n, n), float32 or float64 (with --tokens FILE)\n"
    "      --tokens FILE    the n tokens of --attention: one a line, or a JSON list\n"
    "      --key-tokens FILE  the key tokens of a cross-attention --attention array\n"
    "      --train TASK     watch a small transformer train live (induction, copy,\n"
    "                       reverse, sort, grammar; text with -f FILE)\n"
    "  -h, --help / -V, --version\n"
    "\n"
    "attnviz train TASK [FILE] [OPTIONS] --save DIR   train a small transformer\n"
    "                       (induction copy reverse sort text grammar: attnviz train --help)\n"
    "attnviz get NAME[@REV]   download a Hugging Face model (gpt2, ORG/NAME) into its\n"
    "                       cache, where --model NAME finds it (HF_ENDPOINT, HF_TOKEN,\n"
    "                       HF_HUB_CACHE, HF_HOME, HF_HUB_OFFLINE are honoured)\n";

const char *cli_usage(void)
{
    return usage;
}

int cli_fail(CliOptions *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->err, sizeof o->err, fmt, ap);
    va_end(ap);
    for (char *p = o->err; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    return AV_ERR_CONFIG;
}

/* getopt_long's '?': an unknown option, or a long one given "=value" that
 * takes none (getopt then sets optopt to the option's code, not a letter). */
static int fail_unknown(CliOptions *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (strncmp(arg, "--", 2) == 0 && eq) {
        for (const struct option *lo = long_opts; lo->name; lo++)
            if (lo->has_arg == no_argument && strlen(lo->name) == (size_t)(eq - arg - 2) &&
                strncmp(lo->name, arg + 2, (size_t)(eq - arg - 2)) == 0)
                return cli_fail(o, "option '--%s' takes no value", lo->name);
    }
    if (strncmp(arg, "--", 2) == 0 || !optopt)
        return cli_fail(o, "unknown option '%.60s'", arg);
    return cli_fail(o, "unknown option '-%c'", optopt);
}

/* A whole decimal number in [lo, hi], or an error naming the option. */
static int parse_int(CliOptions *o, const char *name, const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi)
        return cli_fail(o, "%s takes a whole number from %ld to %ld, not '%.40s'", name, lo, hi, s);
    *out = (int)v;
    return AV_OK;
}

static int parse_seed(CliOptions *o, const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno == ERANGE || strchr(s, '-'))
        return cli_fail(o, "--seed takes a whole number from 0 to %" PRIu64 ", not '%.40s'",
                        UINT64_MAX, s);
    o->cfg.seed = v;
    return AV_OK;
}

static int parse_temperature(CliOptions *o, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !(v >= 0.01 && v <= 100))
        return cli_fail(o, "--temperature takes a number from 0.01 to 100, not '%.40s'", s);
    o->cfg.temperature = (float)v;
    return AV_OK;
}

static int parse_color(CliOptions *o, const char *s)
{
    if (strcmp(s, "auto") == 0)
        o->color = COLOR_AUTO;
    else if (strcmp(s, "always") == 0)
        o->color = COLOR_ALWAYS;
    else if (strcmp(s, "never") == 0 || strcmp(s, "mono") == 0)
        o->color = COLOR_NEVER;
    else
        return cli_fail(o, "--color takes auto, always, never or mono, not '%.40s'", s);
    return AV_OK;
}

/* Options that take a number. */
static int parse_numeric(CliOptions *o, int opt, const char *arg)
{
    ModelConfig *c = &o->cfg;
    switch (opt) {
    case 'H': o->dims_given = true; return parse_int(o, "--heads", arg, 1, AV_MAX_HEADS, &c->H);
    case 'd':
        o->dims_given = true;
        return parse_int(o, "--d-model", arg, 1, AV_MAX_D_MODEL_OWN, &c->d_model);
    case OPT_SEED: return parse_seed(o, arg);
    case OPT_HEAD:
        if (strcmp(arg, "all") == 0)
            return o->head_1 = 0, AV_OK; /* every head: the default */
        return parse_int(o, "--head", arg, 1, AV_MAX_HEADS, &o->head_1);
    case OPT_MAX_TOKENS: return parse_int(o, "--max-tokens", arg, 1, AV_MAX_TOKENS, &c->max_tokens);
    case OPT_LAYERS: return parse_int(o, "--layers", arg, 1, AV_MAX_LAYERS, &c->layers);
    case OPT_LAYER: return parse_int(o, "--layer", arg, 1, AV_MAX_LAYERS, &o->layer_1);
    case OPT_TOKEN: return parse_int(o, "--token", arg, 1, AV_MAX_TOKENS, &o->token_1);
    case OPT_WIDTH: return parse_int(o, "--width", arg, 20, 10000, &o->export.width);
    case OPT_NUMBERS: o->export.numbers = true; return 0;
    case OPT_TEMPERATURE: return parse_temperature(o, arg);
    case OPT_GENERATE: return parse_int(o, "--generate", arg, 1, AV_MAX_TOKENS, &o->generate);
    case OPT_TOP_K: return parse_int(o, "--top-k", arg, 1, 65536, &o->top_k);
    case OPT_BUDGET: {
        int mib;
        int err = parse_int(o, "--budget", arg, 1, 1 << 20, &mib);
        o->cfg.weights_budget = (double)mib * 1024 * 1024;
        return err;
    }
    }
    return cli_fail(o, "internal error: option %d", opt);
}

/* --size WxH: a size the lesson checker draws at (repeatable). */
static int parse_size(CliOptions *o, const char *arg)
{
    int w, h, end = 0;
    if (sscanf(arg, "%dx%d%n", &w, &h, &end) != 2 || arg[end] || w < 60 || h < 18 || w > 1000 ||
        h > 500)
        return cli_fail(o, "--size takes WxH, from 60x18 to 1000x500, not '%.40s'", arg);
    if (o->n_sizes == (int)(sizeof o->size_w / sizeof o->size_w[0]))
        return cli_fail(o, "--size is given more than %d times", o->n_sizes);
    o->size_w[o->n_sizes] = w, o->size_h[o->n_sizes++] = h;
    return AV_OK;
}

static int parse_option(CliOptions *o, int opt, const char *arg)
{
    switch (opt) {
    case 'c': o->cfg.causal = true; return AV_OK;
    case OPT_NO_PE: o->cfg.pe = false; return AV_OK;
    case OPT_NO_SCALE: o->cfg.scale = false; return AV_OK;
    case 'f': o->file = arg; return AV_OK;
    case OPT_WEIGHTS: o->weights_dir = arg; return AV_OK;
    case OPT_DUMP: o->dump_dir = arg; return AV_OK;
    case 'o': o->output = arg; return AV_OK;
    case OPT_SENTENCES: o->sentences = arg; return AV_OK;
    case OPT_CROSS: o->cross = arg; return AV_OK;
    case OPT_MODEL: o->model_dir = arg; return AV_OK;
    case OPT_TRAIN: o->train = arg; return AV_OK;
    case OPT_ATTENTION: o->attention = arg; return AV_OK;
    case OPT_TOKENS: o->tokens_file = arg; return AV_OK;
    case OPT_KEY_TOKENS: o->key_tokens_file = arg; return AV_OK;
    case OPT_COLOR: return parse_color(o, arg);
    case OPT_PRESET:
        o->preset_given = true;
        if (strcmp(arg, "designed") == 0)
            o->cfg.preset = PRESET_DESIGNED;
        else if (strcmp(arg, "random") == 0)
            o->cfg.preset = PRESET_RANDOM;
        else
            return cli_fail(o, "--preset takes random or designed, not '%.40s'", arg);
        return AV_OK;
    case 'h': o->help = true; return AV_OK;
    case OPT_LESSON: o->lesson_set = true, o->lesson = arg; return AV_OK;
    case OPT_CHECK: o->check = true; return AV_OK;
    case OPT_SIZE: return parse_size(o, arg);
    case 'V': o->version = true; return AV_OK;
    case 'e':
        o->export_set = true;
        o->export_heads = strcmp(arg, "heads") == 0; /* app/headscan.h's table, as CSV */
        /* the logit lens (render/lens.h): a grid as text, or every cell as JSON */
        o->export_lens = strcmp(arg, "lens") == 0 ? 1 : strcmp(arg, "lens-json") == 0 ? 2 : 0;
        if (!o->export_heads && !o->export_lens && export_parse_format(arg, &o->export.format) != 0)
            return cli_fail(o,
                            "--export takes text, csv, json, md, trace, pipeline, svg, html, "
                            "heads, lens or lens-json, not '%.40s'",
                            arg);
        return AV_OK;
    }
    return parse_numeric(o, opt, arg);
}

/* The name of option opt when it is a setting a lesson page sets (its
 * model's sizes, seed, mask, weights; the head, layer and token it shows),
 * else NULL. */
static const char *page_option(int opt)
{
    switch (opt) {
    case 'H': return "-H/--heads";
    case 'd': return "-d/--d-model";
    case 'c': return "-c/--causal";
    case OPT_SEED: return "--seed";
    case OPT_NO_PE: return "--no-pe";
    case OPT_NO_SCALE: return "--no-scale";
    case OPT_TEMPERATURE: return "--temperature";
    case OPT_LAYERS: return "--layers";
    case OPT_LAYER: return "--layer";
    case OPT_HEAD: return "--head";
    case OPT_TOKEN: return "--token";
    case OPT_PRESET: return "--preset";
    case OPT_WEIGHTS: return "--weights";
    case OPT_CROSS: return "--cross";
    default: return NULL;
    }
}

/* The TEXT operands, joined by single spaces. */
static int join_operands(CliOptions *o, int argc, char **argv, int first)
{
    size_t len = 0;
    for (int k = first; k < argc; k++)
        len += strlen(argv[k]) + 1;
    if (first >= argc)
        return AV_OK;
    o->text = malloc(len);
    if (!o->text)
        return cli_fail(o, "out of memory");
    o->text[0] = '\0';
    for (int k = first; k < argc; k++) {
        if (k > first)
            strcat(o->text, " ");
        strcat(o->text, argv[k]);
    }
    return AV_OK;
}

int cli_parse(int argc, char **argv, CliOptions *o)
{
    memset(o, 0, sizeof *o);
    model_config_default(&o->cfg);
    o->export.head = -1;
    optind = 0; /* GNU getopt: start afresh, so cli_parse may be called again */
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, ":H:d:cf:e:o:hV", long_opts, NULL)) != -1) {
        if (opt == '?')
            return fail_unknown(o, argv[optind - 1]);
        if (opt == ':')
            return cli_fail(o, "option '%.60s' needs a value", argv[optind - 1]);
        /* --lesson NAME as well as --lesson=NAME: the next word, unless an option */
        if (opt == OPT_LESSON && !optarg && optind < argc && argv[optind][0] != '-')
            optarg = argv[optind++];
        int err = parse_option(o, opt, optarg);
        if (err)
            return err;
        if (!o->page_opt)
            o->page_opt = page_option(opt);
    }
    int err = join_operands(o, argc, argv, optind);
    if (!err)
        err = cli_check(o);
    if (!err && o->output && strcmp(o->output, "-") == 0)
        o->output = NULL; /* -o -: standard output, as -f - is standard input */
    return err;
}

void cli_free(CliOptions *o)
{
    free(o->text);
    o->text = NULL;
    free(o->model_path);
    o->model_path = NULL;
}
