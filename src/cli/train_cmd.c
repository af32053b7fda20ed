/* train_cmd.c - `attnviz train`: the batch trainer's command line.
 *
 * Parsing is a function of argv alone (train_cmd_parse, testable); running
 * reads the task's file, trains with a progress line every --report steps
 * and saves the model folder. SIGINT, SIGTERM and SIGHUP (a closed terminal
 * or SSH connection) only set a flag: the loop stops at the end of the step,
 * saves, and says so. SIGPIPE is ignored meanwhile, so that a line to a
 * terminal or pipe that is gone fails instead of ending the run unsaved.
 */
#include "cli/train_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/av.h"
#include "core/mat.h"
#include "io/fileio.h"
#include "io/hfwrite.h"
#include "io/modelfile.h"
#include "io/npy.h"
#include "train/scores.h"
#include "cli/say.h"

#define BAR_WIDTH 30

static volatile sig_atomic_t interrupted; /* the signal that stops the run, or 0 */

static void on_signal(int sig)
{
    interrupted = sig;
}

/* The signals that stop a run and save it, and SIGPIPE, ignored. */
enum { STOP_SIGNALS = 4 };
static const int stop_signals[STOP_SIGNALS] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

/* Install on_signal (SIG_IGN for SIGPIPE), keeping the old dispositions in
 * old. SIGHUP ignored when attnviz started stays ignored: under nohup, a
 * hangup does not stop the run. (SIGINT is caught even when ignored, as a
 * shell script's background job has it: `kill -INT` still saves.) */
static void catch_stop_signals(struct sigaction old[STOP_SIGNALS])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    for (int k = 0; k < STOP_SIGNALS; k++) {
        sigaction(stop_signals[k], NULL, &old[k]);
        if (stop_signals[k] == SIGHUP && old[k].sa_handler == SIG_IGN)
            continue;
        sa.sa_handler = stop_signals[k] == SIGPIPE ? SIG_IGN : on_signal;
        sigaction(stop_signals[k], &sa, NULL);
    }
}

static void restore_stop_signals(const struct sigaction old[STOP_SIGNALS])
{
    for (int k = 0; k < STOP_SIGNALS; k++)
        sigaction(stop_signals[k], &old[k], NULL);
}

/* How the run was stopped, for its last line. */
static const char *stop_cause(int sig)
{
    return sig == SIGHUP ? " (hangup)" : sig == SIGTERM ? " (SIGTERM)" : "";
}

const char *train_cmd_usage(void)
{
    return "usage: attnviz train TASK [FILE] [OPTIONS] --save DIR\n"
           "  TASK: induction, copy, reverse, sort (or copy-digits, reverse-digits,\n"
           "        sort-digits), text FILE, grammar [FILE]\n"
           "      --steps N          training steps\n"
           "      --layers L         layers; --heads H; --d-model D; --context T\n"
           "      --batch B          sequences a step (default 16)\n"
           "      --lr R             AdamW learning rate; --weight-decay W; --clip C\n"
           "      --seed S           weights, batches and probes (default 1)\n"
           "      --mlp W            an MLP of width W in each layer (0: none)\n"
           "      --activation A     gelu | relu (with --mlp)\n"
           "      --layernorm        pre-LayerNorm; --no-layernorm\n"
           "      --pe KIND          sinusoidal | learned | none\n"
           "      --report N         a progress line every N steps (0: at the end)\n"
           "      --threads N        1 or 2 (default: 2 on a machine of 2 cores or more):\n"
           "                         the batch's halves on two cores, the same bits\n"
           "      --save DIR         the model folder to write\n"
           "      --format F         attnviz (default) | hf: a Hugging Face GPT-2 folder\n"
           "                         (character models with --layernorm, GELU or no MLP)\n";
}

/* The task's defaults (trainer_defaults), before the options. */
static void task_defaults(TrainOptions *o)
{
    TrainDefaults d;
    trainer_defaults(o->task, &d);
    o->layers = d.layers, o->heads = d.heads, o->d_model = d.d_model, o->context = d.context;
    o->mlp = d.mlp, o->layernorm = d.layernorm, o->pe = d.pe, o->activation = d.activation;
    o->steps = d.steps, o->report = d.report, o->cfg = d.cfg;
}

static int bad(TrainOptions *o, const char *fmt, const char *arg)
{
    snprintf(o->err, sizeof o->err, fmt, arg);
    return 2;
}

/* A whole number in [lo, hi] from s. */
static bool get_long(const char *s, long lo, long hi, long *v)
{
    char *e;
    errno = 0;
    long x = strtol(s, &e, 10);
    if (errno || e == s || *e || x < lo || x > hi)
        return false;
    return *v = x, true;
}

static bool get_float(const char *s, double lo, double hi, float *v)
{
    char *e;
    double x = strtod(s, &e);
    if (e == s || *e || !isfinite(x) || x < lo || x > hi)
        return false;
    return *v = (float)x, true;
}

enum {
    O_STEPS = 256,
    O_LAYERS,
    O_HEADS,
    O_DMODEL,
    O_CONTEXT,
    O_BATCH,
    O_LR,
    O_SEED,
    O_MLP,
    O_ACT,
    O_LN,
    O_NOLN,
    O_PE,
    O_REPORT,
    O_SAVE,
    O_WD,
    O_CLIP,
    O_DUMP,
    O_THREADS,
    O_FORMAT
};

static const struct option LONG[] = {
    {"steps", 1, 0, O_STEPS},     {"layers", 1, 0, O_LAYERS},
    {"heads", 1, 0, O_HEADS},     {"d-model", 1, 0, O_DMODEL},
    {"context", 1, 0, O_CONTEXT}, {"batch", 1, 0, O_BATCH},
    {"lr", 1, 0, O_LR},           {"seed", 1, 0, O_SEED},
    {"mlp", 1, 0, O_MLP},         {"activation", 1, 0, O_ACT},
    {"layernorm", 0, 0, O_LN},    {"no-layernorm", 0, 0, O_NOLN},
    {"pe", 1, 0, O_PE},           {"report", 1, 0, O_REPORT},
    {"save", 1, 0, O_SAVE},       {"weight-decay", 1, 0, O_WD},
    {"clip", 1, 0, O_CLIP},       {"dump-grads", 1, 0, O_DUMP},
    {"threads", 1, 0, O_THREADS}, {"format", 1, 0, O_FORMAT},
    {"help", 0, 0, 'h'},          {0, 0, 0, 0},
};

/* The options that take a number, and the range each takes. */
static const struct Range {
    int c;
    bool real; /* a number, not a whole one */
    double lo, hi;
} RANGES[] = {
    {O_STEPS, false, 0, 100000000},
    {O_LAYERS, false, 1, AV_MAX_LAYERS},
    {O_HEADS, false, 1, AV_MAX_HEADS},
    {O_DMODEL, false, 1, AV_MAX_D_MODEL_OWN},
    {O_CONTEXT, false, 2, MODEL_MAX_CONTEXT},
    {O_BATCH, false, 1, 4096},
    {O_SEED, false, 0, 0x7fffffffL},
    {O_MLP, false, 0, MODEL_MAX_MLP},
    {O_REPORT, false, 0, 100000000},
    {O_THREADS, false, 1, 2},
    {O_LR, true, 1e-9, 10.0},
    {O_WD, true, 0.0, 10.0},
    {O_CLIP, true, 0.0, 1e9},
};

static const struct Range *range_of(int c)
{
    for (size_t k = 0; k < sizeof RANGES / sizeof RANGES[0]; k++)
        if (RANGES[k].c == c)
            return &RANGES[k];
    return NULL;
}

/* A number option's value into o; false when it is not one or out of range. */
static bool set_number(TrainOptions *o, const struct Range *r, const char *a)
{
    float f;
    long v;
    if (r->real) {
        if (!get_float(a, r->lo, r->hi, &f))
            return false;
        *(r->c == O_LR ? &o->cfg.lr : r->c == O_WD ? &o->cfg.weight_decay : &o->cfg.clip) = f;
        return true;
    }
    if (!get_long(a, (long)r->lo, (long)r->hi, &v))
        return false;
    switch (r->c) {
    case O_STEPS: o->steps = v; break;
    case O_LAYERS: o->layers = (int)v; break;
    case O_HEADS: o->heads = (int)v; break;
    case O_DMODEL: o->d_model = (int)v; break;
    case O_CONTEXT: o->context = (int)v; break;
    case O_BATCH: o->cfg.batch = (int)v; break;
    case O_SEED: o->cfg.seed = (uint64_t)v; break;
    case O_MLP: o->mlp = (int)v; break;
    case O_REPORT: o->report = (int)v; break;
    default: o->cfg.threads = (int)v; break;
    }
    return true;
}

/* One option's value into o; false when it is out of range. */
static bool set_option(TrainOptions *o, int c, const char *a)
{
    const struct Range *r = range_of(c);
    if (r)
        return set_number(o, r, a);
    switch (c) {
    case O_ACT:
        if (strcmp(a, "gelu") && strcmp(a, "relu"))
            return false;
        return o->activation = a[0] == 'r' ? MODEL_ACT_RELU : MODEL_ACT_GELU, true;
    case O_PE:
        if (!strcmp(a, "sinusoidal"))
            return o->pe = MODEL_PE_SINUSOIDAL, true;
        if (!strcmp(a, "learned"))
            return o->pe = MODEL_PE_LEARNED, true;
        return !strcmp(a, "none") && (o->pe = MODEL_PE_NONE, true);
    case O_LN: return o->layernorm = true;
    case O_NOLN: return o->layernorm = false, true;
    case O_SAVE: return o->save = a, true;
    case O_DUMP: return o->dump_grads = a, true;
    case O_FORMAT:
        if (strcmp(a, "attnviz") && strcmp(a, "hf"))
            return false;
        return o->hf = a[0] == 'h', true;
    default: return false;
    }
}

/* What option c takes, for the line that refuses a value: "a whole number
 * from 1 to 48", "gelu or relu". */
static void option_takes(int c, char *buf, size_t size)
{
    const struct Range *r = range_of(c);
    if (r && r->real)
        snprintf(buf, size, "a number from %g to %g", r->lo, r->hi);
    else if (r)
        snprintf(buf, size, "a whole number from %.0f to %.0f", r->lo, r->hi);
    else
        snprintf(buf, size, "%s",
                 c == O_ACT  ? "gelu or relu"
                 : c == O_PE ? "sinusoidal, learned or none"
                             : "attnviz or hf");
}

/* The task name is the first operand: find it before the options so that
 * its defaults come first and the options override them. */
static const char *first_operand(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return i + 1 < argc ? argv[i + 1] : NULL;
        if (argv[i][0] != '-')
            return argv[i];
        const struct option *lo = LONG;
        while (lo->name && !(argv[i][1] == '-' && strcmp(argv[i] + 2, lo->name) == 0))
            lo++;
        if (lo->name && lo->has_arg && !strchr(argv[i], '='))
            i++;
    }
    return NULL;
}

int train_cmd_parse(int argc, char **argv, TrainOptions *o)
{
    memset(o, 0, sizeof *o);
    o->task = first_operand(argc, argv);
    task_defaults(o);
    opterr = 0;
    optind = 0;
    int c, at = 0;
    while ((c = getopt_long(argc, argv, "h", LONG, &at)) != -1) {
        if (c == 'h')
            return o->help = true, 0;
        if (c == '?' || c == ':')
            return bad(o, "train: unknown option or missing value: %s", argv[optind - 1]);
        if (!set_option(o, c, optarg)) {
            char takes[64], why[160];
            option_takes(c, takes, sizeof takes);
            snprintf(why, sizeof why, "train: --%s takes %s, not '%s'", LONG[at].name, takes,
                     optarg);
            return bad(o, "%s", why);
        }
    }
    int nops = argc - optind;
    if (nops < 1)
        return bad(o, "%s",
                   "train: no TASK (induction, copy, reverse, sort, text FILE, "
                   "grammar [FILE])");
    o->task = argv[optind];
    o->file = nops >= 2 ? argv[optind + 1] : NULL;
    if (nops > 2)
        return bad(o, "train: too many operands ('%s')", argv[optind + 2]);
    if (o->d_model % o->heads)
        return bad(o, "%s", "train: --heads must divide --d-model");
    if (!o->save && !o->dump_grads)
        return bad(o, "%s", "train: --save DIR is required");
    return 0;
}

/* The task with its file, or an exit status. */
static int load_task(const TrainOptions *o, Task *t)
{
    char *data = NULL, why[256] = "";
    size_t len = 0;
    bool is_text = strcmp(o->task, "text") == 0, is_grammar = strcmp(o->task, "grammar") == 0;
    const char *path = o->file; /* grammar without FILE: its built-in rules */
    if (is_text && !o->file)
        return say(2, "train text: a FILE to learn is required");
    if (o->file && !is_text && !is_grammar)
        return say(2, "train %s: takes no FILE ('%s')", o->task, o->file);
    if (path) {
        int err = file_read_all(path, AV_MAX_TEXT_BYTES, &data, &len);
        if (err == AV_ERR_TOO_LARGE)
            return say(2, "%s: larger than the %d MiB a text may have", path,
                       AV_MAX_TEXT_BYTES >> 20);
        if (err)
            return say(av_exit_status(err), "cannot read %s: %s", path,
                       err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
        if (memchr(data, '\0', len)) { /* as the main command says it */
            free(data);
            return say(2, "%s: the text holds a NUL byte", path);
        }
    }
    int err = task_init(t, o->task, data, len, why, sizeof why);
    free(data);
    if (err == AV_ERR_NOMEM)
        return say(1, "out of memory");
    if (err)
        return path ? say(2, "%s: %s", path, why) : say(2, "train: %s", why);
    return 0;
}

/* "L2H1 induction 0.83" or "L1H2 mixed (prev 0.31)" for every head. */
static void print_heads(const HeadScore *hs, int L, int H)
{
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            float v;
            ScoreKind k = scores_best(&hs[l * H + h], &v);
            if (v > 0.5f)
                printf("  L%dH%d %s %.2f", l + 1, h + 1, scores_name(k), (double)v);
            else
                printf("  L%dH%d mixed (%s %.2f)", l + 1, h + 1, scores_short_name(k), (double)v);
        }
}

static void progress(Trainer *tr, HeadScore *hs, bool tty)
{
    const ModelSpec *s = &tr->net.spec;
    if (tty)
        fputs("\r\033[K", stderr);
    if (tr->step == 0) /* no batch seen yet: no loss to show, not a loss of 0 */
        printf("step 0 (untrained: no loss yet)");
    else
        printf("step %ld loss %.4f acc %.3f", tr->step, tr->loss, tr->accuracy);
    if (trainer_scores(tr, hs) == AV_OK)
        print_heads(hs, s->layers, s->heads);
    putchar('\n');
    fflush(stdout);
}

static void bar(long step, long steps, double secs)
{
    int fill = steps ? (int)(BAR_WIDTH * step / steps) : BAR_WIDTH;
    char b[BAR_WIDTH + 1];
    for (int k = 0; k < BAR_WIDTH; k++)
        b[k] = k < fill ? '#' : '.';
    b[BAR_WIDTH] = 0;
    fprintf(stderr, "\r[%s] %ld/%ld  %.1f s", b, step, steps, secs);
    fflush(stderr);
}

/* The one line for a folder a save may not replace (modelfile_save_check). */
static int say_not_replaceable(const char *dir, const char *which)
{
    if (errno == ENOTDIR)
        return say(1, "cannot save in %s: not a folder", dir);
    return say(1,
               "cannot save in %s: it holds %s, which is not a model's file (save in a "
               "new folder, or one that holds a model)",
               dir, which);
}

/* The model folder, in attnviz's format or (hf) as a GPT-2 folder. */
static int save(Trainer *tr, const char *dir, const HeadScore *hs, bool hf)
{
    char which[256];
    int err = hf ? hfwrite_save(dir, &tr->net.spec, tr->net.params, which, sizeof which)
                 : trainer_save(tr, dir, hs, which, sizeof which);
    if (err == AV_ERR_NOMEM)
        return say(1, "out of memory");
    if (err == AV_ERR_IO && (errno == ENOTEMPTY || errno == ENOTDIR))
        return say_not_replaceable(dir, which);
    if (err && !which[0])
        return say(1, "cannot save the folder %s: %s", dir, strerror(errno));
    if (err)
        return say(1, "cannot write %s/%s: %s", dir, which,
                   err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
    return 0;
}

/* Before training: the folder could be saved (its parent is a folder we may
 * write in, and it is new or holds only a model). Nothing is made: the folder
 * appears whole when the model is saved. */
static int make_save_dir(const char *dir, bool hf)
{
    char which[256], parent[4096];
    if (hf ? hfwrite_save_check(dir, which, sizeof which)
           : modelfile_save_check(dir, which, sizeof which))
        return errno == ENOTEMPTY || errno == ENOTDIR
                   ? say_not_replaceable(dir, which)
                   : say(1, "cannot save in %s: %s", dir, strerror(errno));
    snprintf(parent, sizeof parent, "%s", dir);
    size_t len = strlen(parent);
    while (len > 1 && parent[len - 1] == '/')
        parent[--len] = '\0';
    char *slash = strrchr(parent, '/');
    if (!slash)
        snprintf(parent, sizeof parent, ".");
    else
        slash[slash == parent] = '\0';
    if (access(parent, W_OK | X_OK) != 0)
        return say(1, "cannot make the folder %s: %s", dir, strerror(errno));
    return 0;
}

/* For tests: the model, one batch and its gradients (DIR/grads is a model
 * folder whose tensors are the gradients), and the loss. */
static int dump_grads(Trainer *tr, const char *dir)
{
    char path[4096], which[64], txt[64];
    Batch *b = &tr->batch;
    const size_t N = (size_t)b->B * b->n, shape[2] = {(size_t)b->B, (size_t)b->n};
    int status = save(tr, dir, NULL, false);
    if (status)
        return status;
    task_batch(tr->task, tr->cfg.seed, tr->step, b);
    double loss;
    net_forward(&tr->net, b->tok, b->tgt, b->mask, b->B, b->n, &loss);
    net_zero_grad(&tr->net);
    net_backward(&tr->net);
    float *f = malloc(3 * N * sizeof *f);
    if (!f)
        return say(1, "out of memory");
    for (size_t r = 0; r < N; r++)
        f[r] = (float)b->tok[r], f[N + r] = (float)b->tgt[r], f[2 * N + r] = b->mask[r];
    static const char *const names[3] = {"tokens", "targets", "mask"};
    int err = AV_OK;
    for (int k = 0; k < 3 && !err; k++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, names[k]);
        err = npy_write(path, 2, shape, f + k * N);
    }
    free(f);
    snprintf(path, sizeof path, "%s/grads", dir);
    if (!err)
        err = modelfile_save(path, &tr->net.spec, tr->net.grads, NULL, which, sizeof which);
    snprintf(path, sizeof path, "%s/loss.txt", dir);
    snprintf(txt, sizeof txt, "%.9g\n", loss);
    if (!err)
        err = file_write_atomic(path, txt, strlen(txt), false);
    return err ? say(1, "cannot write in %s: %s", dir, strerror(errno)) : 0;
}

/* A step that could not be taken (the training diverged): one line, and
 * nothing saved, since the weights are no longer a model. */
static int step_failed(const Trainer *tr, int err)
{
    return say(av_exit_status(err), "train: step %ld: %s%s; nothing was saved", tr->step + 1,
               av_strerror(err),
               err == AV_ERR_OVERFLOW ? " (the training diverged: try a lower --lr)" : "");
}

static int train_loop(Trainer *tr, const TrainOptions *o)
{
    const ModelSpec *s = &tr->net.spec;
    HeadScore *hs = calloc((size_t)s->layers * s->heads, sizeof *hs);
    if (!hs)
        return say(1, "out of memory");
    bool tty = isatty(STDERR_FILENO);
    double t0 = say_now(), last_bar = 0;
    struct sigaction old[STOP_SIGNALS];
    catch_stop_signals(old);
    int err = AV_OK;
    while (tr->step < o->steps && !interrupted) {
        if ((err = trainer_step(tr)))
            break;
        if ((o->report && tr->step % o->report == 0) || tr->step == o->steps)
            progress(tr, hs, tty);
        if (tty && say_now() - last_bar > 0.1) {
            bar(tr->step, o->steps, say_now() - t0);
            last_bar = say_now();
        }
    }
    if (tty)
        fputs("\r\033[K", stderr);
    if (err) {
        restore_stop_signals(old);
        free(hs);
        return step_failed(tr, err);
    }
    if (o->steps == 0 || interrupted)
        progress(tr, hs, false);
    int status = save(tr, o->save, hs, o->hf);
    if (!status && interrupted)
        fprintf(stderr,
                "attnviz: interrupted%s at step %ld of %ld: saved the model so far "
                "in %s\n",
                stop_cause(interrupted), tr->step, o->steps, o->save);
    else if (!status)
        printf("saved %s (%ld steps, %.1f s)\n", o->save, tr->step, say_now() - t0);
    fflush(stdout);
    restore_stop_signals(old);
    free(hs);
    return status;
}

int train_cmd_main(int argc, char **argv)
{
    TrainOptions o;
    if (train_cmd_parse(argc, argv, &o)) {
        fprintf(stderr, "attnviz: %s\n", o.err);
        return 2;
    }
    if (o.help) {
        fputs(train_cmd_usage(), stdout);
        return fflush(stdout) ? 1 : 0;
    }
    Task task;
    int status = o.save ? make_save_dir(o.save, o.hf) : 0;
    if (status)
        return status;
    status = load_task(&o, &task);
    if (status)
        return status;
    ModelSpec spec;
    Trainer tr = {0};
    mat_set_threads(1);
    int err = trainer_spec(&task, o.layers, o.heads, o.d_model, o.context, o.mlp, o.layernorm, o.pe,
                           o.activation, &spec);
    char why[256];
    if (!err && o.hf && hfwrite_check(&spec, why, sizeof why)) {
        status = say(2, "train: --format hf: GPT-2 cannot express this model: %s", why);
        modelfile_spec_free(&spec);
        task_free(&task);
        return status;
    }
    if (!err)
        err = trainer_init(&tr, &task, &spec, &o.cfg);
    if (err == AV_ERR_NOMEM)
        status =
            say(1,
                "out of memory for training %d sequences of %d tokens at d_model %d, "
                "%d layer%s (lower --batch or --context)",
                o.cfg.batch, spec.context, spec.d_model, spec.layers, spec.layers == 1 ? "" : "s");
    else if (err)
        status = say(2,
                     "train: these sizes are not a model attnviz can train "
                     "(d_model %d, heads %d, layers %d, context %d)",
                     o.d_model, o.heads, o.layers, o.context);
    else if (o.dump_grads) {
        for (err = AV_OK; !err && tr.step < o.steps;)
            err = trainer_step(&tr);
        status = err ? step_failed(&tr, err) : dump_grads(&tr, o.dump_grads);
    } else
        status = train_loop(&tr, &o);
    trainer_free(&tr);
    modelfile_spec_free(&spec);
    task_free(&task);
    return status;
}
