/* train_cmd.h - `attnviz train TASK [FILE] [OPTIONS] --save DIR`, the batch
 * trainer: progress lines on standard output (a bar on standard error when it
 * is a terminal), the model folder at the end, or at Ctrl-C with what it has.
 */
#ifndef ATTNVIZ_TRAIN_CMD_H
#define ATTNVIZ_TRAIN_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "io/modelfile.h"
#include "train/trainer.h"

typedef struct {
    const char *task;       /* TASK */
    const char *file;       /* FILE: the text, or the grammar's rules */
    const char *save;       /* --save DIR */
    const char *dump_grads; /* --dump-grads DIR (for tests): model, batch, gradients */
    long steps;
    int report; /* progress line every N steps, 0 = only the last */
    int layers, heads, d_model, context, mlp;
    bool layernorm;
    ModelPe pe;
    ModelAct activation;
    TrainConfig cfg;
    bool hf; /* --format hf: save a Hugging Face GPT-2 folder */
    bool help;
    char err[256]; /* the one-line message when parsing fails */
} TrainOptions;

/* Parse argv (argv[0] is "train") into *o, with the task's defaults for what
 * is not given. Returns 0, or 2 with o->err set. Never prints or exits. */
int train_cmd_parse(int argc, char **argv, TrainOptions *o);

/* The usage text of `attnviz train`. */
const char *train_cmd_usage(void);

/* The whole subcommand; returns the exit status (0, 1 I/O, 2 usage or input,
 * 130 after Ctrl-C once the model is saved). */
int train_cmd_main(int argc, char **argv);

#endif
