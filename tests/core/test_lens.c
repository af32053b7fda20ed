/* test_lens.c - core/lens.h's table and GPT-2's logit lens (gpt2_lens): its
 * last row is the model's own next-token distribution, bit for bit; the rows
 * the KV cache keeps are reused and equal a whole run's; and the KV cache's
 * size (model_kv_bytes); each cell holds the next token's rank and
 * probability, as counted here. The float64 reference of every cell is
 * tests/e2e/gpt2_model.sh's.
 */
#include "test_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/gpt2.h"
#include "core/sample.h"
#include "core/lens.h"
#include "core/model.h"
#include "core/rng.h"
#include "test_random.h"

enum { L = 3, D = 32, H = 4, F = 64, V = 97, T = 32, N = 12, SEED = 7 };

typedef struct {
    Gpt2Weights w;
    float *arena;
    int ids[N];
} Model;

/* count floats offset + rng_symmetric(std) from the arena. */
static const float *draw(Rng *r, float **at, size_t count, float offset, float std)
{
    float *p = *at;
    test_random_fill(r, p, count, std);
    for (size_t k = 0; k < count; k++)
        p[k] += offset;
    *at += count;
    return p;
}

static int setup(void **state)
{
    Model *m = calloc(1, sizeof *m);
    assert_non_null(m);
    size_t per_layer = 4 * D + D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D;
    m->arena = malloc(((size_t)V * D + (size_t)T * D + L * per_layer + 2 * D) * sizeof(float));
    assert_non_null(m->arena);
    float *at = m->arena;
    Rng r;
    rng_seed(&r, SEED);
    Gpt2Weights *w = &m->w;
    w->cfg = (Gpt2Config){V, T, D, H, L, F, 1e-5f};
    w->wte = draw(&r, &at, (size_t)V * D, 0, 0.5f);
    w->wpe = draw(&r, &at, (size_t)T * D, 0, 0.2f);
    for (int l = 0; l < L; l++) {
        Gpt2Layer *y = &w->layer[l];
        y->ln1_g = draw(&r, &at, D, 1, 0.2f), y->ln1_b = draw(&r, &at, D, 0, 0.1f);
        y->attn_w = draw(&r, &at, (size_t)D * 3 * D, 0, 0.35f);
        y->attn_b = draw(&r, &at, 3 * D, 0, 0.1f);
        y->proj_w = draw(&r, &at, (size_t)D * D, 0, 0.15f);
        y->proj_b = draw(&r, &at, D, 0, 0.05f);
        y->ln2_g = draw(&r, &at, D, 1, 0.2f), y->ln2_b = draw(&r, &at, D, 0, 0.1f);
        y->fc_w = draw(&r, &at, (size_t)D * F, 0, 0.15f);
        y->fc_b = draw(&r, &at, F, 0, 0.1f);
        y->fcproj_w = draw(&r, &at, (size_t)F * D, 0, 0.08f);
        y->fcproj_b = draw(&r, &at, D, 0, 0.05f);
    }
    w->lnf_g = draw(&r, &at, D, 1, 0.2f), w->lnf_b = draw(&r, &at, D, 0, 0.1f);
    w->lm_head = w->wte;
    for (int i = 0; i < N; i++)
        m->ids[i] = (int)((rng_next(&r) >> 33) % V);
    *state = m;
    return 0;
}

static int teardown(void **state)
{
    Model *m = *state;
    free(m->arena);
    free(m);
    return 0;
}

static void assert_lens_equal(const Lens *a, const Lens *b)
{
    assert_int_equal(a->rows, b->rows);
    assert_int_equal(a->n, b->n);
    size_t cells = (size_t)a->n * a->rows * LENS_K;
    assert_memory_equal(a->ids, b->ids, cells * sizeof *a->ids);
    assert_memory_equal(a->probs, b->probs, cells * sizeof *a->probs);
    assert_memory_equal(a->tok, b->tok, (size_t)a->n * sizeof *a->tok);
    assert_memory_equal(a->next, b->next, (size_t)a->n * sizeof *a->next);
    assert_memory_equal(a->rank, b->rank, (size_t)a->n * a->rows * sizeof *a->rank);
    assert_memory_equal(a->nprob, b->nprob, (size_t)a->n * a->rows * sizeof *a->nprob);
}

static void test_lens_last_row_is_the_models(void **state)
{
    /* expect: row L at every position is gpt2_logits + sample_top_k, the same
     * bits, and every cell's probabilities decrease and sum to at most 1 */
    Model *m = *state;
    Gpt2State st;
    Lens ls;
    gpt2_state_init(&st), lens_init(&ls);
    float logits[V];
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    assert_int_equal(ls.rows, L + 1);
    assert_int_equal(ls.n, N);
    for (int i = 0; i < N; i++) {
        int ids[LENS_K];
        float probs[LENS_K];
        assert_int_equal(gpt2_logits(&m->w, &st, i, logits), AV_OK);
        assert_int_equal(sample_top_k(logits, V, 1.0f, LENS_K, ids, probs), LENS_K);
        assert_memory_equal(ls.ids + lens_at(&ls, L, i), ids, sizeof ids);
        assert_memory_equal(ls.probs + lens_at(&ls, L, i), probs, sizeof probs);
        for (int l = 0; l <= L; l++) {
            const float *p = ls.probs + lens_at(&ls, l, i);
            double sum = 0;
            for (int q = 0; q < LENS_K; q++) {
                sum += p[q];
                assert_true(p[q] > 0.0f);
                assert_true(q == 0 || p[q] <= p[q - 1]);
            }
            assert_true(sum <= 1.0 + 1e-6);
        }
    }
    /* layer 0 is the embeddings' own: not the last layer's numbers */
    assert_true(memcmp(ls.probs + lens_at(&ls, 0, 0), ls.probs + lens_at(&ls, L, 0),
                       LENS_K * sizeof(float)) != 0);
    assert_int_equal(gpt2_lens_logits(&m->w, &st, L + 1, 0, logits), AV_ERR_CONFIG);
    assert_int_equal(gpt2_lens_logits(&m->w, &st, 0, N, logits), AV_ERR_CONFIG);
    lens_free(&ls), gpt2_state_free(&st);
}

/* The lens of ids[0..n) computed from nothing. */
static void whole_lens(const Model *m, const int *ids, int n, Lens *ls)
{
    Gpt2State st;
    float logits[V];
    gpt2_state_init(&st), lens_init(ls);
    assert_int_equal(gpt2_forward(&m->w, ids, n, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, ls, logits, NULL), AV_OK);
    gpt2_state_free(&st);
}

static void test_lens_cache_reused(void **state)
{
    /* expect: after a forward that appends or edits, the rows before
     * st->from are kept (a mark put in one survives) and the rest are
     * recomputed; the whole equals a lens computed from nothing */
    Model *m = *state;
    Gpt2State st;
    Lens ls, whole;
    float logits[V];
    gpt2_state_init(&st), lens_init(&ls);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N - 2, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    const int saved = ls.ids[lens_at(&ls, 1, 3)];
    ls.ids[lens_at(&ls, 1, 3)] = -7; /* position 3 is cached: not recomputed */
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(st.from, N - 2);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    assert_int_equal(ls.ids[lens_at(&ls, 1, 3)], -7);
    ls.ids[lens_at(&ls, 1, 3)] = saved;
    whole_lens(m, m->ids, N, &whole);
    assert_lens_equal(&ls, &whole);
    lens_free(&whole);

    /* an edit at position 5: from there on recomputed, even after a second
     * forward of the same ids (st->from then says nothing was computed) */
    int ids[N];
    memcpy(ids, m->ids, sizeof ids);
    ids[5] = (ids[5] + 1) % V;
    assert_int_equal(gpt2_forward(&m->w, ids, N, &st), AV_OK);
    assert_int_equal(gpt2_forward(&m->w, ids, N, &st), AV_OK);
    assert_int_equal(st.from, N);
    ls.ids[lens_at(&ls, 0, 3)] = -7; /* before the edit: kept */
    ls.ids[lens_at(&ls, 0, 4)] = -7; /* its next token changed: recomputed */
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    assert_int_equal(ls.ids[lens_at(&ls, 0, 3)], -7);
    whole_lens(m, ids, N, &whole);
    assert_int_equal(ls.ids[lens_at(&ls, 0, 4)], whole.ids[lens_at(&whole, 0, 4)]);
    ls.ids[lens_at(&ls, 0, 3)] = whole.ids[lens_at(&whole, 0, 3)];
    assert_lens_equal(&ls, &whole);

    /* a forward that recomputed everything (st->n set to 0, as after a change
     * of weights): every row recomputed, the mark gone */
    ls.ids[lens_at(&ls, 0, 4)] = -7;
    st.n = 0;
    assert_int_equal(gpt2_forward(&m->w, ids, N, &st), AV_OK);
    assert_int_equal(st.from, 0);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    assert_int_equal(ls.ids[lens_at(&ls, 0, 4)], whole.ids[lens_at(&whole, 0, 4)]);
    lens_free(&whole);

    /* a shorter text: the lens shrinks with it */
    assert_int_equal(gpt2_forward(&m->w, ids, 4, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    whole_lens(m, ids, 4, &whole);
    assert_lens_equal(&ls, &whole);

    /* asked to stop (a job being closed): ends with no rows, and the next
     * lens computes them all as from nothing */
    atomic_bool stop = true;
    st.n = 0;
    assert_int_equal(gpt2_forward(&m->w, ids, 4, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, &stop), AV_ERR_STOPPED);
    assert_int_equal(ls.n, 0);
    atomic_store(&stop, false);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, &stop), AV_OK);
    assert_lens_equal(&ls, &whole);
    lens_free(&whole), lens_free(&ls), gpt2_state_free(&st);
}

static void test_lens_small_vocab_and_gather(void **state)
{
    /* expect: a vocabulary of 3 fills 3 places and leaves -1 and 0 after;
     * lens_gather writes (rows, n, K) */
    (void)state;
    Lens ls;
    lens_init(&ls);
    assert_int_equal(lens_reserve(&ls, 2, 2), AV_OK);
    ls.n = 2;
    const float a[3] = {0.0f, 1.0f, 0.0f}, b[3] = {2.0f, 0.0f, 1.0f};
    lens_set(&ls, 0, 0, a, 3), lens_set(&ls, 1, 0, b, 3);
    lens_set(&ls, 0, 1, b, 3), lens_set(&ls, 1, 1, a, 3);
    const int *c = ls.ids + lens_at(&ls, 0, 0);
    assert_int_equal(c[0], 1), assert_int_equal(c[1], 0), assert_int_equal(c[2], 2);
    assert_int_equal(c[3], -1), assert_int_equal(c[LENS_K - 1], -1);
    assert_float_equal(ls.probs[lens_at(&ls, 0, 0) + 3], 0.0f, 0);
    int32_t ids[2 * 2 * LENS_K];
    float probs[2 * 2 * LENS_K];
    lens_gather(&ls, ids, probs);
    assert_int_equal(ids[0 * LENS_K], 1);     /* layer 0, position 0: a's best */
    assert_int_equal(ids[1 * LENS_K], 0);     /* layer 0, position 1: b's best */
    assert_int_equal(ids[2 * LENS_K], 0);     /* layer 1, position 0: b's */
    assert_int_equal(ids[3 * LENS_K + 1], 0); /* layer 1, position 1: a's second */
    assert_float_equal(probs[2 * LENS_K], ls.probs[lens_at(&ls, 1, 0)], 0);
    assert_int_equal(lens_reserve(&ls, 0, 2), AV_ERR_CONFIG);
    lens_free(&ls);
}

/* The rank (1-based; ties: the smaller id first) and the probability
 * (softmax in double) of id among logits[0..n), counted here. */
static int rank_of(const float *logits, int n, int id, double *prob)
{
    int rank = 1;
    double max = logits[0], z = 0;
    for (int v = 0; v < n; v++)
        max = logits[v] > max ? logits[v] : max;
    for (int v = 0; v < n; v++) {
        z += exp((double)logits[v] - max);
        rank += logits[v] > logits[id] || (logits[v] == logits[id] && v < id);
    }
    *prob = exp((double)logits[id] - max) / z;
    return rank;
}

static void test_lens_next_token_rank(void **state)
{
    /* expect: every cell but the last position's holds the text's next token
     * with its rank and probability as counted here over the cell's logits;
     * within the top ten it stands at that place with the same probability,
     * bit for bit; the last position has none (-1, rank 0); after a token is
     * appended the old last position has its next token too */
    Model *m = *state;
    Gpt2State st;
    Lens ls;
    float logits[V];
    gpt2_state_init(&st), lens_init(&ls);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N - 1, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    assert_int_equal(ls.next[N - 2], -1);
    assert_int_equal(ls.rank[(size_t)(N - 2) * ls.rows], 0);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(gpt2_lens(&m->w, &st, &ls, logits, NULL), AV_OK);
    int in_top = 0;
    for (int i = 0; i < N; i++)
        for (int l = 0; l <= L; l++) {
            const size_t at = (size_t)i * ls.rows + l;
            if (i == N - 1) {
                assert_int_equal(ls.next[i], -1);
                assert_int_equal(ls.rank[at], 0);
                continue;
            }
            assert_int_equal(ls.next[i], m->ids[i + 1]);
            assert_int_equal(gpt2_lens_logits(&m->w, &st, l, i, logits), AV_OK);
            double want;
            assert_int_equal(ls.rank[at], rank_of(logits, V, m->ids[i + 1], &want));
            assert_float_equal(ls.nprob[at], want, 1e-6);
            if (ls.rank[at] <= LENS_K) {
                const size_t c = lens_at(&ls, l, i) + ls.rank[at] - 1;
                assert_int_equal(ls.ids[c], m->ids[i + 1]);
                assert_memory_equal(&ls.probs[c], &ls.nprob[at], sizeof(float));
                in_top++;
            }
        }
    assert_true(in_top > 0); /* the bit-for-bit check ran */
    lens_free(&ls), gpt2_state_free(&st);
}

static void test_lens_kv_bytes(void **state)
{
    /* expect: GPT-2 small (12 layers, d_model 768) keeps 72 KiB a token and
     * 72 MiB at its context of 1,024; the model's own layers and width */
    (void)state;
    assert_float_equal(model_kv_bytes(12, 768, 1), 72.0 * 1024, 0);
    assert_float_equal(model_kv_bytes(12, 768, 1024), 72.0 * 1024 * 1024, 0);
    assert_float_equal(model_kv_bytes(2, 64, 10), 2 * 2 * 64 * 4 * 10, 0);
    assert_float_equal(model_kv_bytes(2, 64, 0), 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lens_last_row_is_the_models, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lens_next_token_rank, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lens_cache_reused, setup, teardown),
        cmocka_unit_test(test_lens_small_vocab_and_gather),
        cmocka_unit_test(test_lens_kv_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
