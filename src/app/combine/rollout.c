/* rollout.c - attention rollout (Abnar and Zuidema 2020) as an AttnSource:
 * R_l = A_hat_l R_{l-1} by combine_rollout_step, every R_l kept up to
 * ROLLOUT_KEEP bytes (else only the last, computed again from layer 1 when
 * a lower one is asked for), on a large imported file built on a thread
 * while the interface draws, with one BLAS thread.
 */
#include "app/rollout.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/mat.h"

/* R_l from R_{l-1} (or A_hat_0) into a new matrix; AV_OK or AV_ERR_NOMEM. */
static int rollout_next(RolloutSource *ro, int l)
{
    size_t nn = (size_t)ro->src.n_q * ro->src.n_k;
    if (!ro->hat && l > 0 && !(ro->hat = malloc(sizeof *ro->hat * nn)))
        return AV_ERR_NOMEM;
    float *R = malloc(sizeof *R * nn);
    int err =
        R ? combine_rollout_step(ro->in, l, l ? ro->R[l - 1] : NULL, ro->hat, R) : AV_ERR_NOMEM;
    if (err != AV_OK) {
        free(R);
        return err;
    }
    ro->R[l] = R;
    if (!ro->keep_all && l > 0) /* never on the thread: async keeps them all */
        free(ro->R[l - 1]), ro->R[l - 1] = NULL;
    atomic_store(&ro->done, l + 1); /* R[l] complete before it is seen */
    return AV_OK;
}

/* The thread: steps up to `want`, one BLAS thread (the other core draws). */
static void *rollout_main(void *arg)
{
    RolloutSource *ro = arg;
    int l;
    while (!atomic_load(&ro->stop) && (l = atomic_load(&ro->done)) <= atomic_load(&ro->want))
        if (rollout_next(ro, l) != AV_OK) {
            atomic_store(&ro->failed, ROLLOUT_NOMEM);
            break;
        }
    atomic_store(&ro->running, 0);
    return NULL;
}

/* Make sure the thread is at work when a layer is wanted that is not done. */
void rollout_kick(RolloutSource *ro)
{
    if (atomic_load(&ro->running) || atomic_load(&ro->failed) ||
        atomic_load(&ro->done) > atomic_load(&ro->want))
        return;
    if (ro->thread_on)
        pthread_join(ro->thread, NULL);
    atomic_store(&ro->running, 1);
    ro->thread_on = pthread_create(&ro->thread, NULL, rollout_main, ro) == 0;
    if (!ro->thread_on) {
        atomic_store(&ro->running, 0);
        atomic_store(&ro->failed, ROLLOUT_NOTHREAD);
    }
}

void rollout_stop(RolloutSource *ro)
{
    if (!ro->thread_on)
        return;
    atomic_store(&ro->stop, 1);
    pthread_join(ro->thread, NULL);
    ro->thread_on = false;
    atomic_store(&ro->stop, 0);
}

void rollout_clear(RolloutSource *ro)
{
    rollout_stop(ro);
    for (int l = 0; l < AV_MAX_LAYERS; l++)
        free(ro->R[l]), ro->R[l] = NULL;
    free(ro->hat), ro->hat = NULL;
    atomic_store(&ro->done, 0);
    atomic_store(&ro->want, -1);
    atomic_store(&ro->failed, 0);
    ro->missing = -1;
    ro->seen = 0;
}

static const float *rollout_row(const void *ctx, int l, int h, int i, float *buf)
{
    RolloutSource *ro = (RolloutSource *)(uintptr_t)ctx; /* its own cache: not const */
    (void)h;
    if (ro->async && atomic_load(&ro->done) <= l) {
        if (atomic_load(&ro->want) < l)
            atomic_store(&ro->want, l);
        rollout_kick(ro);
        ro->missing = l;
        memset(buf, 0, sizeof *buf * (size_t)ro->src.n_k); /* drawn blank meanwhile */
        return buf;
    }
    if (!ro->R[l] && atomic_load(&ro->done) > l)
        rollout_clear(ro); /* a lower layer, dropped to save memory: again from layer 0 */
    while (atomic_load(&ro->done) <= l && !atomic_load(&ro->failed)) {
        /* a long text's products of (n, n) matrices on two BLAS threads, as
         * attention.c does for its large products; back to one after */
        bool big = ro->src.n_q >= 512 && sysconf(_SC_NPROCESSORS_ONLN) >= 2;
        if (big)
            mat_set_threads(2);
        int err = rollout_next(ro, atomic_load(&ro->done));
        if (big)
            mat_set_threads(1);
        if (err != AV_OK)
            atomic_store(&ro->failed, ROLLOUT_NOMEM);
    }
    if (atomic_load(&ro->failed)) { /* zeros until app_poll ends the program */
        memset(buf, 0, sizeof *buf * (size_t)ro->src.n_k);
        return buf;
    }
    return ro->R[l] + (size_t)i * ro->src.n_k;
}

void rollout_init(RolloutSource *ro, const AttnSource *in, bool keep, bool async)
{
    if (!keep || ro->src.n_q != in->n_q || ro->in != in || ro->async != async)
        rollout_clear(ro);
    ro->in = in;
    ro->async = async;
    ro->keep_all = (double)in->L * in->n_q * in->n_k * sizeof(float) <= ROLLOUT_KEEP;
    ro->src = (AttnSource){
        .L = in->L, .H = 1, .n_q = in->n_q, .n_k = in->n_k, .row = rollout_row, .ctx = ro};
}
