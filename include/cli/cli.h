/* cli.h - the command line (DESIGN.md's contract), parsed into a struct.
 *
 * cli_parse is a function of argv alone: it never prints or exits, so main.c
 * decides what to say and the fuzzer can drive it.
 */
#ifndef ATTNVIZ_CLI_H
#define ATTNVIZ_CLI_H

#include <stdbool.h>

#include "render/export.h"
#include "core/model.h"
#include "ui/ui.h"

typedef struct {
    ModelConfig cfg;
    char *text;                  /* TEXT operands joined by spaces (owned), or NULL */
    const char *file;            /* -f PATH */
    const char *weights_dir;     /* --weights DIR */
    const char *dump_dir;        /* --dump DIR */
    const char *output;          /* -o PATH */
    const char *sentences;       /* --sentences FILE */
    const char *cross;           /* --cross TEXT */
    const char *attention;       /* --attention FILE.npy: imported attention, or NULL */
    const char *tokens_file;     /* --tokens FILE: its (query) tokens */
    const char *key_tokens_file; /* --key-tokens FILE: its key tokens (cross-attention) */
    const char *model_dir;       /* --model DIR: a saved trained model, or NULL */
    char *model_path;            /* --model NAME's snapshot in the hub cache (owned), or NULL */
    const char *train;           /* --train TASK: the live training view, or NULL */
    int generate;                /* --generate N: tokens to continue the text by (0: none) */
    int top_k;                   /* --top-k K: sample among the K likeliest (0: all) */
    bool export_set;
    bool export_heads;    /* --export heads: every head's scores (app/headscan.h) as CSV */
    int export_lens;      /* --export lens (1: text) or lens-json (2): render/lens.h */
    ExportOptions export; /* head/layer/token 0-based, -1 head = all */
    int head_1;           /* --head as given (1-based), 0 = all */
    int layer_1;          /* --layer as given, 0 = last */
    int token_1;          /* --token as given, 0 = unset */
    ColorMode color;
    bool help, version;
    bool dims_given;      /* --heads or --d-model was given */
    bool preset_given;    /* --preset was given */
    bool lesson_set;      /* --lesson was given */
    const char *page_opt; /* the first option given that a lesson page sets
                             (-c/--causal, --seed, --head, ...), or NULL */
    const char *lesson;   /* its NAME or FILE, or NULL: list the built-in lessons */
    bool check;           /* --check: check the lesson's pages off-screen (every
                             built-in lesson when no NAME is given) */
    int n_sizes;          /* --size WxH given (0: the checker's three sizes) */
    int size_w[8], size_h[8];
    char err[256]; /* the message when cli_parse fails */
} CliOptions;

/* Parse argv into *o. Returns AV_OK, or AV_ERR_CONFIG with o->err set to one
 * line (no "attnviz:" prefix, no newline). Free with cli_free either way. */
int cli_parse(int argc, char **argv, CliOptions *o);

void cli_free(CliOptions *o);

/* The usage text of --help (the man page's SYNOPSIS and options). */
const char *cli_usage(void);

/* The 0-based layer an export of a model of `layers` layers shows: --layer N,
 * else the HTML page opens on the first layer, as the interface does, and
 * the other exports show the last. */
int cli_export_layer(const CliOptions *o, int layers);

/* The two halves of cli_parse: cli.c reads the options, clicheck.c checks
 * what they may not be together (paths not empty, the exports' targets,
 * what --model, --attention and --lesson take), each refusal through
 * cli_fail: the message into o->err, kept to one line that cannot drive
 * the terminal (control bytes typed into a value show as '?'), and
 * AV_ERR_CONFIG returned. */
int cli_check(CliOptions *o);
int cli_fail(CliOptions *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
