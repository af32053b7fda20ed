/* attn_proj.c - the forward's projections as items of rows for two threads.
 *
 * C_p (n_p, d) = X_p (n_p, d) W_p (d, d), cut into items of rows that the
 * forward's threads take in turn, each a single-thread cblas_sgemm call
 * through mat_sgemm (OpenBLAS runs such calls in parallel; its own threads
 * would wait for each other and then spin on the cores the heads need).
 * The item that makes rows of K or V also packs them into every head's
 * K_h^T and V_h (mat_pack_part) while they are still in cache, so the heads'
 * packed kernel never packs. Like attn_short.c it sits below attention.c:
 * it is handed plain numbers and asks attention.c nothing.
 */
#include <stdatomic.h>

#include "attn_kernels.h"
#include "core/mat.h"

/* Rows of one item on two threads: a quarter of the rows, a multiple of 16
 * (where a panel of K_h^T starts), from 128 to 256 (single-thread
 * cblas_sgemm keeps its speed down to 128 rows of d_model 512; it packs W
 * again for every item). */
enum { PROJ_ROWS_MIN = 128, PROJ_ROWS_MAX = 256 };

/* Rows [i0, i0 + m) of K (p 1) or V (p 2) into every head's pack. */
static void proj_pack(const AttnProjJob *pj, int p, int i0, int m)
{
    float *pack = p == 1 ? pj->Kall : p == 2 ? pj->Vall : NULL;
    if (!pack)
        return;
    const int d = pj->d, d_k = d / pj->H;
    const float *rows = pj->C[p] + (long)i0 * d;
    for (int h = 0; h < pj->H; h++) {
        if (p == 1) /* columns [i0, i0 + m) of K_h^T (d_k, n_k) */
            mat_pack_part(true, d_k, m, rows + h * d_k, d, pack + h * pj->k_head, d_k, 0, i0);
        else /* rows [i0, i0 + m) of V_h (n_k, d_k) */
            mat_pack_part(false, m, d_k, rows + h * d_k, d, pack + h * pj->v_head, pj->n[2], i0, 0);
    }
}

static int proj_items(const AttnProjJob *pj, int p)
{
    return (pj->n[p] + pj->rows - 1) / pj->rows;
}

void attn_proj_work(AttnProjJob *pj)
{
    const int d = pj->d;
    int items = 0;
    for (int p = 0; p < pj->count; p++)
        items += proj_items(pj, p);
    for (int k; (k = atomic_fetch_add(&pj->next, 1)) < items;) {
        int p = 0;
        while (k >= proj_items(pj, p))
            k -= proj_items(pj, p++);
        const int i0 = k * pj->rows, m = pj->n[p] - i0 < pj->rows ? pj->n[p] - i0 : pj->rows;
        /* C_p[i0..i0+m) (m, d) = X_p[i0..i0+m) (m, d) W_p (d, d) */
        mat_sgemm(false, false, m, d, d, 1.0f, pj->X[p] + (long)i0 * d, d, pj->W[p], d, 0.0f,
                  pj->C[p] + (long)i0 * d, d);
        proj_pack(pj, p, i0, m);
    }
}

void attn_proj_setup(AttnProjJob *pj, int threads)
{
    int n = pj->n[0], rows = (n / 4 + 15) / 16 * 16, most = n;
    for (int p = 1; p < pj->count; p++)
        most = pj->n[p] > most ? pj->n[p] : most;
    pj->rows = threads < 2            ? (most + 15) / 16 * 16
               : rows < PROJ_ROWS_MIN ? PROJ_ROWS_MIN
               : rows > PROJ_ROWS_MAX ? PROJ_ROWS_MAX
                                      : rows;
    atomic_init(&pj->next, 0);
}
