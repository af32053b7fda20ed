/* trainer.h - the training loop, one step at a time, so that a batch
 * command and a live view can both drive it (the view calls trainer_step
 * between frames, or from a thread of its own; the Trainer is not shared).
 *
 * A step: the task's batch for (seed, step), forward, cross-entropy,
 * backward, gradient clipping by global norm, one AdamW update. The same
 * settings and seed give the same weights after the same steps.
 */
#ifndef ATTNVIZ_TRAINER_H
#define ATTNVIZ_TRAINER_H

#include <stdint.h>

#include "train/net.h"
#include "train/scores.h"
#include "train/task.h"

typedef struct {
    int batch;          /* sequences a step (default 16) */
    float lr;           /* AdamW learning rate (default 1e-2) */
    float weight_decay; /* AdamW decay of matrices (default 0) */
    float clip;         /* gradient norm limit, 0 = none (default 1) */
    uint64_t seed;      /* weights, batches and probes */
    int threads;        /* 1 or 2 (net_set_threads; the same bits either way);
                         * default trainer_threads_default() */
} TrainConfig;

typedef struct {
    Net net;
    const Task *task; /* borrowed: outlives the trainer */
    TrainConfig cfg;
    Batch batch;
    long step;        /* steps done */
    double loss;      /* of the last step */
    double accuracy;  /* the task's metric on the last step's batch, before the update */
    double grad_norm; /* before clipping */
} Trainer;

/* 2 when the machine has two processors or more online, else 1. */
int trainer_threads_default(void);

/* The defaults above into *c. */
void trainer_config_default(TrainConfig *c);

/* A task's default model and training: what `attnviz train TASK` and the
 * live view (`--train TASK`) start from before their options. */
typedef struct {
    int layers, heads, d_model, context, mlp;
    bool layernorm;
    ModelPe pe;
    ModelAct activation;
    long steps;      /* steps of a run */
    int report;      /* steps between the batch trainer's progress lines */
    TrainConfig cfg; /* trainer_config_default's, with the task's lr */
} TrainDefaults;

/* The defaults of task (a name task_init knows; NULL or an unknown name gets
 * induction's) into *d: induction the model, 2 layers x 2 heads,
 * d_model 32, context 32, lr 1e-2, 400 steps; text 4 layers x 4 heads,
 * d_model 64, context 64, MLP 256, LayerNorm, lr 3e-3, 3000 steps; grammar
 * induction's with context 36, 600 steps; copy, reverse, sort (and -digits)
 * 4 heads, d_model 64, MLP 128, LayerNorm, lr 3e-3, 1500 steps. Sinusoidal
 * PE, GELU, batch 16 throughout. */
void trainer_defaults(const char *task, TrainDefaults *d);

/* The architecture of a model for task with the given sizes, into *spec
 * (vocab copied from task; free with modelfile_spec_free). AV_OK or
 * AV_ERR_NOMEM. */
int trainer_spec(const Task *task, int layers, int heads, int d_model, int context, int mlp,
                 bool layernorm, ModelPe pe, ModelAct act, ModelSpec *spec);

/* Set up tr: a Net for spec (whose vocabulary must be task's) with random
 * weights from c->seed. Returns AV_OK, AV_ERR_MODEL (bad spec, or a
 * vocabulary not the task's), AV_ERR_CONFIG (bad lr, batch, context < 2) or
 * AV_ERR_NOMEM. */
int trainer_init(Trainer *tr, const Task *task, const ModelSpec *spec, const TrainConfig *c);

void trainer_free(Trainer *tr);

/* One training step; tr->loss, accuracy, grad_norm and step are updated.
 * Returns AV_OK (or what net_forward returns, never expected). */
int trainer_step(Trainer *tr);

/* Scores of every head (layers * heads, row-major) on the probes of the
 * trainer's seed. AV_OK or AV_ERR_NOMEM. */
int trainer_scores(Trainer *tr, HeadScore *out);

/* Save the model to dir (modelfile_save), with heads.txt from scores (may be
 * NULL: no heads.txt) and "steps" = tr->step. Returns what modelfile_save
 * returns; which names the file on error. */
int trainer_save(Trainer *tr, const char *dir, const HeadScore *scores, char *which,
                 size_t whichlen);

#endif
