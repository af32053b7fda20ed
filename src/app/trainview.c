/* trainview.c - the live training view's state: a Trainer stepped a slice at
 * a time, the loss and head-score histories, the 0.5 crossings, the probe.
 *
 * A sample is taken every `stride` steps (the first at step 0, before any
 * update): the mean loss since the previous one and every head's scores
 * (scores_measure, on the trainer's seeded probes). When TV_HIST_CAP samples
 * are held every other one is dropped and the stride doubles, so a run of any
 * length costs bounded memory and the scores are measured ever more rarely.
 */
#include "app/trainview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/av.h"
#include "core/rng.h"
#include "core/utf8.h"

#define PROBE_PERIOD 5 /* the induction probe: 5 letters, repeated */

/* Steps a frame at each speed level. */
static const int SPEEDS[TV_SPEEDS] = {1, 2, 3, 5, 8, 12, 20, 40, 80};
#define SPEED_DEFAULT 1

void trainview_config(const char *task, TrainViewConfig *c)
{
    TrainDefaults d;
    memset(c, 0, sizeof *c);
    snprintf(c->task, sizeof c->task, "%s", task ? task : "induction");
    trainer_defaults(c->task, &d);
    c->layers = d.layers, c->heads = d.heads, c->d_model = d.d_model, c->context = d.context;
    c->mlp = d.mlp, c->layernorm = d.layernorm, c->steps = d.steps, c->cfg = d.cfg;
    if (strcmp(c->task, "text") == 0) {
        /* Smaller than `attnviz train text` (4 layers, d_model 64, context
         * 64, MLP 256), whose step does not fit a frame's 15 ms slice:
         * README "Performance" has the figures. */
        c->layers = 2, c->heads = 4, c->d_model = 64, c->context = 32, c->mlp = 128;
        c->cfg.batch = 8;
    }
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The first code point of s as a printable label: controls become their
 * Control Pictures (U+2400 + c), a space the open box. */
static void label_of(const char *s, char out[8])
{
    unsigned cp;
    int len = utf8_decode(s, strlen(s), &cp);
    if (len <= 0)
        cp = 0xFFFD;
    if (cp < 0x20)
        cp += 0x2400;
    else if (cp == ' ')
        cp = 0x2423;
    else if (cp == 0x7f)
        cp = 0x2421;
    out[utf8_encode(cp, out)] = '\0';
}

/* The probe: for induction PROBE_PERIOD distinct letters from the seed
 * repeated, so the induction stripe shows; for the other tasks their own
 * sequence at step -2 (neither trained on nor scored). */
static int probe_make(TrainView *tv)
{
    int n = tv->conf.context < TV_PROBE_MAX ? tv->conf.context : TV_PROBE_MAX;
    tv->probe_n = n;
    if (tv->task.kind == TASK_INDUCTION) {
        Rng r;
        int pool[26], V = tv->task.V < 26 ? tv->task.V : 26;
        rng_seed(&r, rng_mix(tv->conf.cfg.seed ^ 0x9b0beull));
        for (int k = 0; k < V; k++)
            pool[k] = k;
        for (int k = 0; k < PROBE_PERIOD && k < V; k++) {
            int j = k + (int)(rng_next(&r) % (uint64_t)(V - k)), t = pool[k];
            pool[k] = pool[j], pool[j] = t;
        }
        for (int i = 0; i < n; i++)
            tv->probe[i] = pool[i % (PROBE_PERIOD < V ? PROBE_PERIOD : V)];
    } else {
        Batch b;
        int err = task_batch_init(&b, &tv->task, 1, n);
        if (err)
            return err;
        task_batch(&tv->task, tv->conf.cfg.seed, -2, &b);
        memcpy(tv->probe, b.tok, (size_t)n * sizeof *tv->probe);
        task_batch_free(&b);
    }
    for (int i = 0; i < n; i++) {
        label_of(tv->task.vocab[tv->probe[i]], tv->probe_label[i]);
        int k = i - 1;
        while (k >= 0 && tv->probe[k] != tv->probe[i])
            k--;
        tv->probe_ind[i] = k >= 0 ? k + 1 : -1; /* DESIGN.md's induction key */
    }
    return AV_OK;
}

/* Every head's weights on the probe, from one forward pass. */
static int probe_refresh(TrainView *tv)
{
    const int n = tv->probe_n;
    int err = net_forward(&tv->tr.net, tv->probe, NULL, NULL, 1, n, NULL);
    if (err)
        return err;
    for (int l = 0; l < tv->L; l++)
        for (int h = 0; h < tv->H; h++)
            memcpy(tv->probe_P + (long)(l * tv->H + h) * n * n, net_weights(&tv->tr.net, l, 0, h),
                   (size_t)n * n * sizeof(float));
    return AV_OK;
}

static void event_add(TrainView *tv, const TrainEvent *ev)
{
    if (tv->n_events == tv->cap_events) {
        int cap = tv->cap_events ? 2 * tv->cap_events : 16;
        TrainEvent *e = realloc(tv->events, (size_t)cap * sizeof *e);
        if (!e)
            return; /* the mark is lost, the message still says it */
        tv->events = e, tv->cap_events = cap;
    }
    tv->events[tv->n_events++] = *ev;
}

/* Heads whose scores passed TV_THRESHOLD for the first time: events. */
static void crossings(TrainView *tv)
{
    for (int i = 0; i < tv->L * tv->H; i++)
        for (int k = 0; k < SCORE_KINDS; k++) {
            const HeadScore *hs = &tv->scores[i];
            bool *p = &tv->passed[i * SCORE_KINDS + k];
            if (!hs->has[k] || *p || !(hs->s[k] > TV_THRESHOLD))
                continue;
            *p = true;
            TrainEvent e = {tv->tr.step, i / tv->H, i % tv->H, (ScoreKind)k, hs->s[k]};
            event_add(tv, &e);
            trainview_event_text(&e, tv->msg, sizeof tv->msg);
        }
}

/* Drop the samples of odd index (step 0 stays), each kept sample's loss the
 * mean of its pair: the stride doubles. n is even (TV_HIST_CAP), so the last
 * sample is dropped; the caller merges its loss into the next one. */
static void decimate(TrainView *tv)
{
    const int per = tv->L * tv->H * SCORE_KINDS;
    int m = 1;
    for (int k = 2; k < tv->n; k += 2, m++) {
        tv->hist_step[m] = tv->hist_step[k];
        tv->hist_loss[m] = 0.5f * (tv->hist_loss[k - 1] + tv->hist_loss[k]);
        memcpy(tv->hist_score + (long)m * per, tv->hist_score + (long)k * per,
               (size_t)per * sizeof(float));
    }
    tv->n = m;
    tv->stride *= 2;
}

/* Measure and record a sample with the given loss. */
static int sample(TrainView *tv, float loss)
{
    int err = trainer_scores(&tv->tr, tv->scores);
    if (err)
        return err;
    if (tv->n == tv->cap) {
        float dropped = tv->hist_loss[tv->n - 1];
        decimate(tv);
        loss = 0.5f * (dropped + loss);
    }
    const int per = tv->L * tv->H * SCORE_KINDS;
    float *row = tv->hist_score + (long)tv->n * per;
    for (int i = 0; i < tv->L * tv->H; i++)
        for (int k = 0; k < SCORE_KINDS; k++)
            row[i * SCORE_KINDS + k] = tv->scores[i].has[k] ? tv->scores[i].s[k] : 0.0f;
    tv->hist_step[tv->n] = tv->tr.step;
    tv->hist_loss[tv->n] = loss;
    tv->n++;
    tv->loss_max = loss > tv->loss_max ? loss : tv->loss_max;
    crossings(tv);
    return AV_OK;
}

/* The loss before any update: the first batch through the fresh model. */
static int initial_loss(TrainView *tv, float *loss)
{
    Batch *b = &tv->tr.batch;
    double l = 0;
    task_batch(&tv->task, tv->conf.cfg.seed, 0, b);
    int err = net_forward(&tv->tr.net, b->tok, b->tgt, b->mask, b->B, b->n, &l);
    *loss = (float)l;
    return err;
}

static int alloc_state(TrainView *tv)
{
    const size_t heads = (size_t)tv->L * tv->H, n = (size_t)tv->probe_n;
    tv->cap = TV_HIST_CAP;
    tv->hist_step = calloc((size_t)tv->cap, sizeof *tv->hist_step);
    tv->hist_loss = calloc((size_t)tv->cap, sizeof *tv->hist_loss);
    tv->hist_score = calloc((size_t)tv->cap * heads * SCORE_KINDS, sizeof(float));
    tv->scores = calloc(heads, sizeof *tv->scores);
    tv->passed = calloc(heads * SCORE_KINDS, sizeof *tv->passed);
    tv->probe_P = calloc(heads * n * n, sizeof(float));
    if (!tv->hist_step || !tv->hist_loss || !tv->hist_score || !tv->scores || !tv->passed ||
        !tv->probe_P)
        return AV_ERR_NOMEM;
    return AV_OK;
}

/* The trainer, the first sample and the probe, for tv->conf (task set up). */
static int start(TrainView *tv, char *why, size_t whylen)
{
    const TrainViewConfig *c = &tv->conf;
    int err = trainer_spec(&tv->task, c->layers, c->heads, c->d_model, c->context, c->mlp,
                           c->layernorm, MODEL_PE_SINUSOIDAL, MODEL_ACT_GELU, &tv->spec);
    if (!err && (err = trainer_init(&tv->tr, &tv->task, &tv->spec, &c->cfg)) != AV_OK)
        snprintf(why, whylen, "cannot train %s: %s", c->task, av_strerror(err));
    if (err)
        return err;
    tv->L = c->layers, tv->H = c->heads, tv->stride = 1;
    float loss = 0;
    if ((err = probe_make(tv)) || (err = alloc_state(tv)) || (err = initial_loss(tv, &loss)) ||
        (err = sample(tv, loss)) || (err = probe_refresh(tv)))
        snprintf(why, whylen, "cannot train %s: %s", c->task, av_strerror(err));
    for (int k = 0; !err && k < SCORE_KINDS; k++)
        tv->has_kind[k] = tv->scores[0].has[k];
    tv->msg[0] = '\0'; /* no event at step 0 is news */
    return err;
}

int trainview_init(TrainView *tv, const TrainViewConfig *c, const char *data, size_t len, char *why,
                   size_t whylen)
{
    memset(tv, 0, sizeof *tv);
    tv->conf = *c;
    tv->seed0 = c->cfg.seed;
    tv->speed = SPEED_DEFAULT;
    int err = task_init(&tv->task, c->task, data, len, why, whylen);
    if (err) {
        memset(tv, 0, sizeof *tv);
        return err;
    }
    if ((err = start(tv, why, whylen)) != AV_OK)
        trainview_free(tv);
    return err;
}

/* Everything but the task, the configuration and the keys' settings. */
static void stop(TrainView *tv)
{
    trainer_free(&tv->tr);
    modelfile_spec_free(&tv->spec);
    free(tv->hist_step), free(tv->hist_loss), free(tv->hist_score);
    free(tv->scores), free(tv->passed), free(tv->probe_P), free(tv->events);
    tv->hist_step = NULL, tv->hist_loss = NULL, tv->hist_score = NULL;
    tv->scores = NULL, tv->passed = NULL, tv->probe_P = NULL, tv->events = NULL;
    tv->n = tv->cap = tv->n_events = tv->cap_events = 0;
    tv->loss_sum = 0, tv->loss_count = 0, tv->loss_max = 0;
    tv->finished = false;
    memset(tv->has_kind, 0, sizeof tv->has_kind);
}

void trainview_free(TrainView *tv)
{
    stop(tv);
    task_free(&tv->task);
    memset(tv, 0, sizeof *tv);
}

/* A step and, when due, its sample; the probe is left for the caller. */
static int step_only(TrainView *tv)
{
    int err = trainer_step(&tv->tr);
    if (err)
        return err;
    tv->loss_sum += tv->tr.loss;
    tv->loss_count++;
    if (tv->tr.step % tv->stride != 0)
        return AV_OK;
    float loss = (float)(tv->loss_sum / (double)tv->loss_count);
    tv->loss_sum = 0, tv->loss_count = 0;
    return sample(tv, loss);
}

int trainview_step(TrainView *tv)
{
    int err = step_only(tv);
    return err ? err : probe_refresh(tv);
}

int trainview_run(TrainView *tv, int max_steps, double budget_ms)
{
    double t0 = now_ms(), t = t0;
    int done = 0;
    while (!tv->paused && done < max_steps) {
        int err = step_only(tv);
        if (err)
            return err;
        done++;
        double t1 = now_ms();
        tv->step_ms = tv->step_ms > 0 ? 0.8 * tv->step_ms + 0.2 * (t1 - t) : t1 - t;
        t = t1;
        if (!tv->finished && tv->conf.steps > 0 && tv->tr.step >= tv->conf.steps) {
            tv->finished = tv->paused = true;
            snprintf(tv->msg, sizeof tv->msg, "%ld steps done: space trains on, s saves",
                     tv->tr.step);
        }
        /* Not a step that would end past the budget (the first always runs). */
        if (budget_ms > 0 && t - t0 + tv->step_ms > budget_ms)
            break;
    }
    if (done > 0) {
        int err = probe_refresh(tv);
        if (err)
            return err;
    }
    return done;
}

int trainview_reset(TrainView *tv, uint64_t seed)
{
    char why[160];
    bool was_finished = tv->finished;
    stop(tv);
    tv->conf.cfg.seed = seed;
    int err = start(tv, why, sizeof why);
    if (err) {
        trainview_free(tv);
        return err;
    }
    if (was_finished)
        tv->paused = false; /* the pause was the end's: watch again */
    snprintf(tv->msg, sizeof tv->msg, "new start with seed %llu", (unsigned long long)seed);
    return AV_OK;
}

int trainview_steps_per_frame(const TrainView *tv)
{
    return SPEEDS[tv->speed];
}

void trainview_speed(TrainView *tv, int dir)
{
    int s = tv->speed + (dir > 0 ? 1 : dir < 0 ? -1 : 0);
    tv->speed = s < 0 ? 0 : s >= TV_SPEEDS ? TV_SPEEDS - 1 : s;
}

void trainview_toggle_pause(TrainView *tv)
{
    tv->paused = !tv->paused;
}

void trainview_event_text(const TrainEvent *e, char *buf, size_t cap)
{
    static const char *const what[SCORE_KINDS] = {"a previous-token head", "an induction head",
                                                  "a self head", "a first-token head",
                                                  "an antecedent head"};
    snprintf(buf, cap, "step %ld: layer %d head %d became %s (%.2f)", e->step, e->layer + 1,
             e->head + 1, e->kind < SCORE_KINDS ? what[e->kind] : "?", (double)e->value);
}

/* A new folder for the model: the name tried first, then -2, -3 ... */
static int new_folder(const char *parent, time_t when, char *path, size_t size)
{
    char stamp[32];
    struct tm tm;
    localtime_r(&when, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int k = 1; k < 100; k++) {
        int len = k == 1 ? snprintf(path, size, "%s/attnviz-model-%s", parent, stamp)
                         : snprintf(path, size, "%s/attnviz-model-%s-%d", parent, stamp, k);
        if (len < 0 || (size_t)len >= size)
            return errno = ENAMETOOLONG, AV_ERR_IO;
        if (mkdir(path, 0777) == 0)
            return AV_OK;
        if (errno != EEXIST)
            return AV_ERR_IO;
    }
    return errno = EEXIST, AV_ERR_IO;
}

int trainview_save(TrainView *tv, const char *parent, time_t when, char *path, size_t size)
{
    char which[64] = "";
    int err = new_folder(parent, when, path, size);
    if (!err)
        err = trainer_save(&tv->tr, path, tv->scores, which, sizeof which);
    if (!err) {
        snprintf(tv->msg, sizeof tv->msg, "saved %s (%ld steps)", path, tv->tr.step);
        return AV_OK;
    }
    int e = errno;
    snprintf(tv->msg, sizeof tv->msg, "save failed: %s%s%s%s%s", av_strerror(err),
             err == AV_ERR_IO ? ": " : "", which[0] ? which : "", which[0] ? ": " : "",
             err == AV_ERR_IO ? strerror(e) : "");
    return err;
}
