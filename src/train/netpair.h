/* netpair.h - net.c's second thread (private to src/train): the batch's
 * second part, and the second half of the optimiser's loops, run beside the
 * calling thread.
 */
#ifndef ATTNVIZ_NETPAIR_H
#define ATTNVIZ_NETPAIR_H

#include <stdbool.h>
#include <stddef.h>

typedef struct NetWorker NetWorker; /* as in train/net.h */

/* fn(a0) on the calling thread and fn(a1) (a1 not NULL) beside it on the
 * second thread *w when two, threads > 1 and the thread can be started
 * (once, then kept in *w), else after fn(a0) on the calling thread.
 * Returns when both are done. */
void net_pair_run(NetWorker **w, int threads, void (*fn)(void *), void *a0, void *a1, bool two);

/* Stop and free the second thread (NULL: nothing). */
void net_pair_stop(NetWorker *w);

/* A loop over the floats [i0, i1) of ctx's arrays. */
typedef void (*NetRange)(void *ctx, size_t i0, size_t i1, void *arg);

/* fn(ctx, ..) over [0, h) with arg0 and [h, total) with arg1, h = total / 2,
 * beside each other through net_pair_run when total is large enough to pay
 * for it. The halves are the same whatever the threads. */
void net_pair_halves(NetWorker **w, int threads, size_t total, NetRange fn, void *ctx, void *arg0,
                     void *arg1);

#endif
