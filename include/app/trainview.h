/* trainview.h - the state of the live training view (`attnviz --train TASK`):
 * a Trainer (train/trainer.h) driven a few steps at a time between frames,
 * the history of the loss and of every head's scores against the step, the
 * moments a head's score first passed 0.5, every head's weights on one fixed
 * probe sequence, and the pause, speed and seed the keys change.
 *
 * No curses: the front end (src/ui/views/view_train.c) calls trainview_run between
 * frames and draws the fields below; everything here is unit-tested
 * (tests/app/test_trainview.c). Deterministic: the same settings and seed
 * give the same history whatever the slices were.
 */
#ifndef ATTNVIZ_TRAINVIEW_H
#define ATTNVIZ_TRAINVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "io/modelfile.h"
#include "train/scores.h"
#include "train/task.h"
#include "train/trainer.h"

#define TV_THRESHOLD 0.5f /* a score above it names the head (scores_label) */
#define TV_HIST_CAP 2048  /* samples kept; past it every other one is dropped */
#define TV_PROBE_MAX 24   /* tokens of the probe sequence, at most */
#define TV_SPEEDS 9       /* steps-per-frame levels */

/* The model and training settings of a live run. */
typedef struct {
    char task[32]; /* a name task_init knows */
    int layers, heads, d_model, context, mlp;
    bool layernorm;
    TrainConfig cfg; /* batch, lr, decay, clip, seed */
    long steps;      /* training pauses once there (0: never) */
} TrainViewConfig;

/* A head's score of one kind passed TV_THRESHOLD for the first time. */
typedef struct {
    long step;       /* steps done when it was measured */
    int layer, head; /* 0-based */
    ScoreKind kind;
    float value;
} TrainEvent;

typedef struct {
    TrainViewConfig conf;
    Task task;
    ModelSpec spec;
    Trainer tr;
    int L, H; /* layers, heads */
    /* History: n samples; sample k was taken after hist_step[k] steps, its
     * loss the mean over the steps since the previous sample, its scores
     * (L*H heads, SCORE_KINDS each, row-major) measured then. A sample is
     * taken every `stride` steps; stride doubles when the history is full. */
    int n, cap;
    long stride;
    long *hist_step;
    float *hist_loss;
    float *hist_score; /* (cap, L*H, SCORE_KINDS) */
    double loss_sum;   /* of the steps since the last sample */
    long loss_count;
    float loss_max;             /* the largest sampled loss (the plot's range) */
    HeadScore *scores;          /* L*H, the last measurement */
    bool has_kind[SCORE_KINDS]; /* the task measures this kind */
    bool *passed;               /* L*H*SCORE_KINDS: already passed TV_THRESHOLD */
    TrainEvent *events;
    int n_events, cap_events;
    /* The probe: one fixed sequence of the task, and every head's weights on it. */
    int probe_n;
    int probe[TV_PROBE_MAX];
    char probe_label[TV_PROBE_MAX][8]; /* each token's first character, printable */
    int probe_ind[TV_PROBE_MAX];       /* the induction key of each query: the one after
                                          its token's previous occurrence (-1: none) */
    float *probe_P;                    /* (L, H, probe_n, probe_n) */
    uint64_t seed0; /* the seed it was set up with (r moves conf's on, not this) */
    bool paused;
    bool finished;      /* reached conf.steps once (it does not pause again) */
    int speed;          /* 0 .. TV_SPEEDS-1 */
    double step_ms;     /* a step's time with its sample: a moving average */
    double steps_per_s; /* measured over the last slices */
    char msg[160];      /* the last event or outcome, "" when none */
} TrainView;

/* Each task's settings: trainer_defaults's, the ones `attnviz train` uses
 * (induction 2 layers x 2 heads, d_model 32, context 32, 400 steps, the
 * issue's model; the others larger; two threads on a machine of two cores),
 * but for text a smaller model than the batch trainer's so that a step fits
 * a frame's slice (2 layers, context 32, MLP 128, batch 8; the 4-layer
 * one's step is several slices long). Unknown names get induction's
 * sizes. */
void trainview_config(const char *task, TrainViewConfig *c);

/* Set up tv for c. data[0..len) is the text of "text" or the rules of
 * "grammar" (NULL otherwise). Measures the scores at step 0 and fills the
 * probe. Returns AV_OK, AV_ERR_NOMEM, or what task_init / trainer_init
 * return with one line in why. On error tv is freed. */
int trainview_init(TrainView *tv, const TrainViewConfig *c, const char *data, size_t len, char *why,
                   size_t whylen);

/* Free everything; accepts a zeroed or freed TrainView. */
void trainview_free(TrainView *tv);

/* One training step, its sample when one is due (scores, events) and the
 * probe's weights. Returns AV_OK or an AV_ERR_* (nothing is changed then). */
int trainview_step(TrainView *tv);

/* Train while not paused: at most max_steps steps, not starting one that
 * would end (by step_ms) more than budget_ms milliseconds after the call
 * (<= 0: no limit; the first step always runs), and stopping at conf.steps
 * (then paused, finished, and msg says so). Returns the steps done, or a
 * negative AV_ERR_*. */
int trainview_run(TrainView *tv, int max_steps, double budget_ms);

/* Start again from step 0 with seed (weights, batches, probes): history and
 * events cleared, speed and pause kept. Returns what trainview_init returns. */
int trainview_reset(TrainView *tv, uint64_t seed);

/* Steps a frame at the current speed level. */
int trainview_steps_per_frame(const TrainView *tv);

/* One level faster (dir > 0) or slower; clamped. */
void trainview_speed(TrainView *tv, int dir);

/* Pause or resume; resuming a finished run trains on past conf.steps. */
void trainview_toggle_pause(TrainView *tv);

/* "step 212: layer 2 head 1 became an induction head (0.53)" into buf. */
void trainview_event_text(const TrainEvent *e, char *buf, size_t cap);

/* Head (l, h)'s score of kind k at sample i. */
static inline float trainview_score(const TrainView *tv, int i, int l, int h, ScoreKind k)
{
    return tv->hist_score[((long)i * tv->L * tv->H + l * tv->H + h) * SCORE_KINDS + k];
}

/* Head (l, h)'s weights on the probe, (probe_n, probe_n). */
static inline const float *trainview_probe_P(const TrainView *tv, int l, int h)
{
    return tv->probe_P + (long)(l * tv->H + h) * tv->probe_n * tv->probe_n;
}

/* Save the model to a new folder in parent: attnviz-model-YYYYMMDD-HHMMSS
 * (local time of when), or with -2, -3 ... appended when that exists; an
 * existing folder is never written into. The folder's name (parent
 * included) goes to path. Returns AV_OK, or AV_ERR_IO / AV_ERR_NOMEM /
 * AV_ERR_MODEL with msg saying what failed. */
int trainview_save(TrainView *tv, const char *parent, time_t when, char *path, size_t size);

#endif
