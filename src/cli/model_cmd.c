/* model_cmd.c - --model DIR and --generate N: the model folder opened (its
 * errors one line naming the file), the options checked against its sizes,
 * and the text continued by sampling, before the batch or interface runs.
 */
#include "cli/model_cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/kind.h"
#include "core/av.h"
#include "train/infer.h"
#include "train/task.h"
#include "cli/say.h"

int model_cmd_error(const CliOptions *o, int err, const char *bad)
{
    switch (err) {
    case AV_ERR_VOCAB:
        return say(2, "'%s' is not in the model's vocabulary (%s)", bad, o->model_dir);
    case AV_ERR_UTF8: return say(2, "the text is not valid UTF-8");
    case AV_ERR_EMPTY: return say(2, "the text holds no token");
    case AV_ERR_TOO_LARGE: return say(2, "the text is too long to dump every weight");
    default: return say(av_exit_status(err), "%s: %s", o->model_dir, av_strerror(err));
    }
}

/* --head and --layer within the model's sizes. */
static int check_sizes(const CliOptions *o, const ModelConfig *c)
{
    if (o->head_1 > c->H)
        return say(2, "--head %d is out of range: %s has %d head%s a layer", o->head_1,
                   o->model_dir, c->H, c->H == 1 ? "" : "s");
    if (o->layer_1 > c->layers)
        return say(2, "--layer %d is out of range: %s has %d layer%s", o->layer_1,
                   o->model_dir, c->layers, c->layers == 1 ? "" : "s");
    return 0;
}

/* --generate: continue text, print the continuation, keep the whole sequence. */
static int generate(const CliOptions *o, Kind *k, const char *text, bool batch, char **whole)
{
    size_t cont = 0;
    int err = kind_generate(k, text, strlen(text), o->generate, o->cfg.temperature, o->top_k,
                            o->cfg.seed, whole, &cont);
    if (err)
        return model_cmd_error(o, err, k->bad);
    if (batch && !(o->export_set && !o->output)) {
        printf("%s\n", *whole + cont);
        if (fflush(stdout) != 0)
            return say(1, "cannot write to standard output");
    }
    return 0;
}

/* ids[0..n) cut to whole sentences: from after the first "." to the last
 * (a grammar batch is a window that starts and ends mid-sentence). */
static int whole_sentences(const ModelSpec *s, int *ids, int n)
{
    int first = -1, last = -1;
    for (int k = 0; k < n; k++)
        if (strcmp(s->vocab[ids[k]], ".") == 0)
            first = first < 0 ? k : first, last = k;
    if (first < 0 || last - first < 4)
        return n;
    memmove(ids, ids + first + 1, sizeof *ids * (size_t)(last - first));
    return last - first;
}

/* A sequence of the model's own task (task.h): a segment repeated for an
 * induction model, sentences of the toy language for a grammar model, a
 * string and its copy for copy, reverse and sort. 0 when the task needs a
 * file (text) or one of its pieces is outside the model's vocabulary (a
 * grammar of the user's own). */
static int task_ids(const ModelSpec *s, int *ids, int max)
{
    Task t;
    Batch b;
    char why[256];
    int n = 0;
    if (task_init(&t, s->task, NULL, 0, why, sizeof why) != AV_OK)
        return 0;
    int len = s->context < max ? s->context : max;
    if (task_batch_init(&b, &t, 1, len) == AV_OK) {
        task_batch(&t, s->seed, 0, &b);
        for (n = 0; n < len; n++) {
            const char *piece = t.vocab[b.tok[n]];
            int v = 0;
            while (v < s->V && strcmp(s->vocab[v], piece) != 0)
                v++;
            if (v == s->V)
                break;
            ids[n] = v;
        }
        n = n == len ? n : 0;
        if (n && t.kind == TASK_GRAMMAR)
            n = whole_sentences(s, ids, n);
        task_batch_free(&b);
    }
    task_free(&t);
    return n;
}

/* The interface without TEXT: text the model can read and was made for
 * (task_ids), else the articles' sentence when its vocabulary has it (a
 * character model of English), else its first few printable pieces. */
static int default_text(const NetModel *nm, char **whole)
{
    static const char sentence[] = "the cat sat on the mat";
    const ModelSpec *s = &nm->net.spec;
    int ids[64], n = task_ids(s, ids, 64);
    char bad[8];
    if (n == 0 && infer_encode(s, sentence, sizeof sentence - 1, ids, 64, &n, bad,
                               sizeof bad) != AV_OK)
        n = 0;
    if (n == 0)
        for (int v = 0; v < s->V && n < 8; v++)
            if ((unsigned char)s->vocab[v][0] > ' ' && s->vocab[v][0] != 0x7f)
                ids[n++] = v;
    char one[1];
    size_t need = infer_decode(s, ids, n, one, sizeof one);
    *whole = malloc(need + 1);
    if (!*whole)
        return say(1, "out of memory");
    infer_decode(s, ids, n, *whole, need + 1);
    return 0;
}

int model_cmd_prepare(CliOptions *o, const char *text, bool batch, Kind *k, char **whole)
{
    char why[512] = "";
    *whole = NULL;
    int err = kind_trained_load(k, o->model_dir, why, sizeof why);
    if (err)
        return err == AV_ERR_MODEL ? say(2, "%s", why) : say(1, "%s: %s", o->model_dir,
                                                            av_strerror(err));
    const NetModel *nm = kind_trained_model(k);
    int status = check_sizes(o, &nm->cfg);
    if (!status && !text && (batch || o->generate) && !o->export_heads)
        status = say(2, "--model needs a TEXT in the model's vocabulary (%s)", o->model_dir);
    if (!status && o->generate && !kind_generates(k))
        status = say(2, "%s is a '%s' model: --generate continues text and grammar models",
                     o->model_dir, nm->net.spec.task);
    if (!status && o->generate)
        status = generate(o, k, text, batch, whole);
    if (!status && !text)
        status = default_text(nm, whole);
    if (status) {
        kind_close(k);
        return status;
    }
    k->temperature = o->cfg.temperature, k->top_k = o->top_k; /* what g samples with */
    ModelConfig c = o->cfg;
    kind_config(k, &c);
    o->cfg = c;
    o->export.layer = cli_export_layer(o, c.layers);
    return 0;
}
