/* trainer.c - the training loop of net.h on the batches of task.h, one
 * step a call.
 */
#include "train/trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "core/rng.h"

int trainer_threads_default(void)
{
    return sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
}

void trainer_config_default(TrainConfig *c)
{
    *c = (TrainConfig){.batch = 16,
                       .lr = 1e-2f,
                       .weight_decay = 0.0f,
                       .clip = 1.0f,
                       .seed = 1,
                       .threads = trainer_threads_default()};
}

void trainer_defaults(const char *task, TrainDefaults *d)
{
    const char *t = task ? task : "induction";
    *d = (TrainDefaults){.layers = 2,
                         .heads = 2,
                         .d_model = 32,
                         .context = 32,
                         .mlp = 0,
                         .layernorm = false,
                         .pe = MODEL_PE_SINUSOIDAL,
                         .activation = MODEL_ACT_GELU,
                         .steps = 400,
                         .report = 50};
    trainer_config_default(&d->cfg);
    if (strcmp(t, "text") == 0) {
        d->layers = 4, d->heads = 4, d->d_model = 64, d->context = 64, d->mlp = 256;
        d->layernorm = true, d->steps = 3000, d->report = 250, d->cfg.lr = 3e-3f;
    } else if (strcmp(t, "grammar") == 0) {
        d->context = 36, d->steps = 600;
    } else if (strcmp(t, "induction") != 0) {
        d->heads = 4, d->d_model = 64, d->mlp = 128, d->layernorm = true;
        d->steps = 1500, d->report = 100, d->cfg.lr = 3e-3f;
    }
}

int trainer_spec(const Task *task, int layers, int heads, int d_model, int context, int mlp,
                 bool layernorm, ModelPe pe, ModelAct act, ModelSpec *spec)
{
    ModelSpec s = {.tokenizer = task->tokenizer,
                   .V = task->V,
                   .vocab = task->vocab,
                   .d_model = d_model,
                   .heads = heads,
                   .layers = layers,
                   .context = context,
                   .pe = pe,
                   .layernorm = layernorm,
                   .mlp = mlp,
                   .activation = act};
    snprintf(s.task, sizeof s.task, "%s", task->name);
    return modelfile_spec_copy(spec, &s);
}

int trainer_init(Trainer *tr, const Task *task, const ModelSpec *spec, const TrainConfig *c)
{
    memset(tr, 0, sizeof *tr);
    if (!(c->lr > 0.0f) || !isfinite(c->lr) || c->batch < 1 || spec->context < 2 ||
        !(c->weight_decay >= 0.0f) || !(c->clip >= 0.0f))
        return AV_ERR_CONFIG;
    if (spec->V != task->V)
        return AV_ERR_MODEL;
    for (int i = 0; i < task->V; i++)
        if (strcmp(spec->vocab[i], task->vocab[i]) != 0)
            return AV_ERR_MODEL;
    tr->task = task;
    tr->cfg = *c;
    int err = net_init(&tr->net, spec, c->batch, true);
    if (!err)
        err = task_batch_init(&tr->batch, task, c->batch, spec->context);
    if (err) {
        trainer_free(tr);
        return err;
    }
    tr->net.spec.seed = c->seed;
    net_set_threads(&tr->net, c->threads);
    net_init_weights(&tr->net, rng_mix(c->seed ^ 0x5eedull));
    return AV_OK;
}

void trainer_free(Trainer *tr)
{
    net_free(&tr->net);
    task_batch_free(&tr->batch);
    memset(tr, 0, sizeof *tr);
}

int trainer_step(Trainer *tr)
{
    Batch *b = &tr->batch;
    const NetAdam opt = {.lr = tr->cfg.lr,
                         .beta1 = 0.9f,
                         .beta2 = 0.999f,
                         .eps = 1e-8f,
                         .weight_decay = tr->cfg.weight_decay};
    task_batch(tr->task, tr->cfg.seed, tr->step, b);
    int err = net_forward(&tr->net, b->tok, b->tgt, b->mask, b->B, b->n, &tr->loss);
    if (err)
        return err;
    tr->accuracy = task_accuracy_best(b, tr->net.best); /* found by the forward's threads */
    /* net_zero_grad, net_backward, net_clip_grad and net_adamw in one */
    tr->grad_norm = net_update(&tr->net, tr->cfg.clip, &opt, tr->step + 1);
    tr->step++;
    tr->net.spec.steps = tr->step;
    return AV_OK;
}

int trainer_scores(Trainer *tr, HeadScore *out)
{
    return scores_measure(&tr->net, tr->task, tr->cfg.seed, out);
}

int trainer_save(Trainer *tr, const char *dir, const HeadScore *scores, char *which,
                 size_t whichlen)
{
    char *txt = NULL;
    const ModelSpec *s = &tr->net.spec;
    if (scores && !(txt = scores_heads_txt(scores, s->layers, s->heads)))
        return AV_ERR_NOMEM;
    int err = modelfile_save(dir, s, tr->net.params, txt, which, whichlen);
    free(txt);
    return err;
}
