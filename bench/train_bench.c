/* train_bench.c - the trainer's figures for `make bench` (issue 11):
 * training steps per second of the induction model and of the character
 * model, the wall time until an induction head passes 0.5, and the wall time
 * until the character model is below 1.5 nats per character on its text.
 * bench/train_reference.py times PyTorch on the same models and batches.
 *
 * usage: train_bench [--speed] [TEXT...]   (default: README.md attnviz.1)
 * --speed prints the steps per second only (bench/train_reference.py runs it
 * before and after PyTorch, for its table).
 * Steps per second are printed for one thread and for the default
 * (trainer_threads_default: two on a machine of two cores or more; the same
 * numbers either way), each as the best of WINDOWS windows (wall and cpu
 * time: the machine is shared, and the best window is the one least
 * disturbed) and the mean over all of them.
 *
 * Prints one line per figure; exit status 1 when a file cannot be read.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/av.h"
#include "core/mat.h"
#include "io/fileio.h"
#include "train/trainer.h"

#define CHAR_LOSS_GOAL 1.5
#define CHAR_TIME_LIMIT 120.0
#define WINDOWS 5

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    int layers, heads, d_model, context, mlp, batch;
    bool layernorm;
    float lr;
} Arch;

static const Arch INDUCTION = {2, 2, 32, 32, 0, 16, false, 1e-2f};
static const Arch CHARS = {4, 4, 64, 64, 256, 16, true, 3e-3f};

static int setup(Trainer *tr, ModelSpec *s, const Task *task, const Arch *a, uint64_t seed,
                 int threads)
{
    TrainConfig c;
    trainer_config_default(&c);
    c.batch = a->batch, c.lr = a->lr, c.seed = seed;
    if (threads)
        c.threads = threads;
    int err = trainer_spec(task, a->layers, a->heads, a->d_model, a->context, a->mlp, a->layernorm,
                           MODEL_PE_SINUSOIDAL, MODEL_ACT_GELU, s);
    return err ? err : trainer_init(tr, task, s, &c);
}

/* Steps per second on threads (0: the default) over WINDOWS windows of
 * steps steps each (after 5 of warm-up): the best window's wall and cpu
 * rates, and the mean wall rate. */
static void steps_per_second(const char *name, const Task *task, const Arch *a, int steps,
                             int threads)
{
    Trainer tr;
    ModelSpec s;
    if (setup(&tr, &s, task, a, 1, threads)) {
        printf("%s: cannot set up the model\n", name);
        return;
    }
    for (int k = 0; k < 5; k++)
        trainer_step(&tr);
    double best_w = 1e30, best_c = 1e30, all = 0;
    for (int win = 0; win < WINDOWS; win++) {
        double w0 = wall(), c0 = cpu();
        for (int k = 0; k < steps; k++)
            trainer_step(&tr);
        double w = wall() - w0, c = cpu() - c0;
        best_w = w < best_w ? w : best_w, best_c = c < best_c ? c : best_c, all += w;
    }
    printf("train %-10s %d thread%s: %7.1f steps/s wall  %7.1f steps/s cpu (best of %d "
           "windows of %d steps; mean %.1f wall)  %zu parameters, batch %d x %d\n",
           name, tr.cfg.threads, tr.cfg.threads > 1 ? "s" : " ", steps / best_w, steps / best_c,
           WINDOWS, steps, WINDOWS * steps / all, tr.net.layout.total, a->batch, a->context);
    trainer_free(&tr);
    modelfile_spec_free(&s);
}

/* Wall time until a layer-2 head's induction score passes 0.5 (checked every
 * 25 steps, the checks included), for seeds 1..5. */
static void induction_time(const Task *task)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        Trainer tr;
        ModelSpec s;
        HeadScore hs[4];
        double t0 = wall(), at = -1;
        if (setup(&tr, &s, task, &INDUCTION, seed, 0))
            return;
        while (at < 0 && tr.step < 1000) {
            trainer_step(&tr);
            if (tr.step % 25 == 0 && trainer_scores(&tr, hs) == AV_OK &&
                (hs[2].s[SCORE_INDUCTION] > 0.5f || hs[3].s[SCORE_INDUCTION] > 0.5f))
                at = wall() - t0;
        }
        printf("induction head, seed %d: score > 0.5 at step %ld, %.2f s wall\n", (int)seed,
               tr.step, at);
        trainer_free(&tr);
        modelfile_spec_free(&s);
    }
}

/* Wall time until the character model's loss, averaged over 50 steps, is
 * below CHAR_LOSS_GOAL nats per character. */
static void chars_time(const Task *task)
{
    Trainer tr;
    ModelSpec s;
    double t0 = wall(), sum = 0;
    if (setup(&tr, &s, task, &CHARS, 1, 0))
        return;
    while (wall() - t0 < CHAR_TIME_LIMIT) {
        trainer_step(&tr);
        sum += tr.loss;
        if (tr.step % 50 == 0) {
            if (sum / 50 < CHAR_LOSS_GOAL)
                break;
            sum = 0;
        }
    }
    printf("character model (vocabulary %d, %ld characters): mean loss %.3f nats/char at "
           "step %ld, %.1f s wall\n",
           task->V, task->text_len, tr.step % 50 ? tr.loss : sum / 50, tr.step, wall() - t0);
    trainer_free(&tr);
    modelfile_spec_free(&s);
}

/* The texts named (or README.md and attnviz.1) concatenated into a task. */
static int text_task(int argc, char **argv, Task *task)
{
    static const char *def[] = {"README.md", "attnviz.1"};
    const char **files = argc > 1 ? (const char **)argv + 1 : def;
    int n = argc > 1 ? argc - 1 : 2;
    char *all = NULL, why[256];
    size_t total = 0;
    for (int k = 0; k < n; k++) {
        char *d;
        size_t len;
        if (file_read_all(files[k], AV_MAX_TEXT_BYTES, &d, &len)) {
            fprintf(stderr, "train_bench: cannot read %s\n", files[k]);
            free(all);
            return 1;
        }
        char *grown = realloc(all, total + len + 1);
        if (!grown)
            return free(d), free(all), 1;
        all = grown;
        memcpy(all + total, d, len);
        total += len;
        free(d);
    }
    int err = task_init(task, "text", all, total, why, sizeof why);
    free(all);
    if (err)
        fprintf(stderr, "train_bench: %s\n", why);
    return err ? 1 : 0;
}

int main(int argc, char **argv)
{
    Task ind, text;
    char why[128];
    bool speed_only = argc > 1 && strcmp(argv[1], "--speed") == 0;
    if (speed_only)
        argc--, argv++;
    mat_set_threads(1);
    if (task_init(&ind, "induction", NULL, 0, why, sizeof why) || text_task(argc, argv, &text))
        return 1;
    for (int t = 1; t >= 0; t--) { /* one thread, then the default */
        steps_per_second("induction", &ind, &INDUCTION, 200, t);
        steps_per_second("chars", &text, &CHARS, 20, t);
    }
    if (!speed_only) {
        induction_time(&ind);
        chars_time(&text);
    }
    task_free(&ind);
    task_free(&text);
    return 0;
}
