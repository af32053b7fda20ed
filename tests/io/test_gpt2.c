/* test_gpt2.c - core/gpt2.h's forward against a float64 NumPy reference
 * (tests/data/gpt2/make_ref.py), its KV cache against whole runs, the
 * ModelResult it fills, and a generation step (the sampler is
 * tests/core/test_sample.c's).
 *
 * The small GPT-2-shaped model's weights are drawn here from core/rng.h's
 * stream in the order of make_ref.py's TENSORS, so the committed files hold
 * only the expected numbers. An io test: it reads them with io/npy.h.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/attention.h"
#include "core/av.h"
#include "core/attention_ref.h"
#include "core/gpt2.h"
#include "core/gpt2_ref.h"
#include "core/rng.h"
#include "io/npy.h"

enum { L = 3, D = 48, H = 4, F = 192, V = 300, T = 64, N = 20, SEED = 2024 };

typedef struct {
    Gpt2Weights w;
    float *arena;
    int ids[N];
} Model;

/* count floats offset + rng_symmetric(std), as make_ref.py's symmetric(). */
static const float *draw(Rng *r, float **at, size_t count, float offset, float std)
{
    float *p = *at;
    for (size_t k = 0; k < count; k++)
        p[k] = offset + rng_symmetric(r, std);
    *at += count;
    return p;
}

static void model_make(Model *m)
{
    size_t per_layer = 4 * D + D * 3 * D + 3 * D + D * D + D + D * F + F + F * D + D;
    m->arena = malloc(((size_t)V * D + (size_t)T * D + L * per_layer + 2 * D) * sizeof(float));
    assert_non_null(m->arena);
    float *at = m->arena;
    Rng r;
    rng_seed(&r, SEED);
    Gpt2Weights *w = &m->w;
    memset(w, 0, sizeof *w);
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
}

static int setup(void **state)
{
    Model *m = calloc(1, sizeof *m);
    model_make(m);
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

static void load(const char *name, NpyArray *a)
{
    char path[256];
    snprintf(path, sizeof path, "%s/gpt2/%s", TEST_DATA_DIR, name);
    assert_int_equal(npy_read(path, a), AV_OK);
}

/* Row i of head h of layer l from the state's kept weights, as a dense n row. */
static void state_row(const Gpt2State *st, int l, int h, int i, float *row)
{
    const float *src = st->P + gpt2_P_offset(L, H, i) + ((size_t)l * H + h) * (i + 1);
    memset(row, 0, (size_t)st->n * sizeof *row);
    memcpy(row, src, (size_t)(i + 1) * sizeof *row);
}

static void test_gpt2_reference_ids(void **state)
{
    /* expect: the ids drawn here are the ones make_ref.py drew (the same stream) */
    Model *m = *state;
    NpyArray ids = {0};
    load("ids.npy", &ids);
    assert_int_equal(ids.count, N);
    for (int i = 0; i < N; i++)
        assert_int_equal((int)ids.data[i], m->ids[i]);
    npy_free(&ids);
}

static void test_gpt2_weights_match_reference(void **state)
{
    /* expect: every layer's every head's weights within 1e-5 of float64 NumPy */
    Model *m = *state;
    NpyArray ref = {0};
    Gpt2State st;
    gpt2_state_init(&st);
    load("attention.npy", &ref);
    assert_int_equal(ref.count, (size_t)L * H * N * N);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(st.from, 0);
    float row[N];
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < N; i++) {
                state_row(&st, l, h, i, row);
                assert_floats_near(row, ref.data + (((size_t)l * H + h) * N + i) * N, N, 1e-5);
            }
    npy_free(&ref);
    gpt2_state_free(&st);
}

static void test_gpt2_logits_match_reference(void **state)
{
    /* expect: every position's logits within 1e-4 of float64 NumPy */
    Model *m = *state;
    NpyArray ref = {0};
    Gpt2State st = {0};
    float logits[V];
    load("logits.npy", &ref);
    assert_int_equal(ref.count, (size_t)N * V);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    for (int i = 0; i < N; i++) {
        assert_int_equal(gpt2_logits(&m->w, &st, i, logits), AV_OK);
        assert_floats_near(logits, ref.data + (size_t)i * V, V, 1e-4);
    }
    assert_int_equal(gpt2_logits(&m->w, &st, N, logits), AV_ERR_CONFIG);
    npy_free(&ref);
    gpt2_state_free(&st);
}

static void test_gpt2_weights_invariants(void **state)
{
    /* expect: keys after the query exactly 0, every row summing to 1 */
    Model *m = *state;
    Gpt2State st = {0};
    float row[N];
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < N; i++) {
                state_row(&st, l, h, i, row);
                double sum = 0;
                for (int j = 0; j < N; j++) {
                    if (j > i)
                        assert_true(row[j] == 0.0f);
                    assert_true(row[j] >= 0.0f);
                    sum += row[j];
                }
                assert_float_equal(sum, 1.0, 1e-5);
            }
    gpt2_state_free(&st);
}

/* Whether two states hold the same bits for their first n positions. */
/* a and b hold the same bits for ids[0..n) of a model with `heads` heads. */
static void assert_states_equal_h(const Gpt2State *a, const Gpt2State *b, int n, int heads)
{
    assert_int_equal(a->n, n);
    assert_int_equal(b->n, n);
    assert_memory_equal(a->ids, b->ids, (size_t)n * sizeof(int));
    assert_memory_equal(a->x, b->x, (size_t)n * (L + 1) * D * sizeof(float));
    assert_memory_equal(a->qkv, b->qkv, (size_t)n * L * 3 * D * sizeof(float));
    assert_memory_equal(a->concat, b->concat, (size_t)n * L * D * sizeof(float));
    assert_memory_equal(a->attn, b->attn, (size_t)n * L * D * sizeof(float));
    assert_true(a->p_rows >= n && b->p_rows >= n);
    assert_memory_equal(a->P, b->P, gpt2_P_offset(L, heads, n) * sizeof(float));
}

static void assert_states_equal(const Gpt2State *a, const Gpt2State *b, int n)
{
    assert_states_equal_h(a, b, n, H);
}

static void random_ids(uint64_t seed, int n, int *ids)
{
    Rng r;
    rng_seed(&r, seed);
    for (int i = 0; i < n; i++)
        ids[i] = (int)(rng_next(&r) % V);
}

static void test_gpt2_ref_matches_numpy(void **state)
{
    /* expect: the plain C oracle (core/gpt2_ref.c) is make_ref.py's float64
     * forward: every weight within 1e-5, every logit within 1e-4 */
    Model *m = *state;
    NpyArray att = {0}, lg = {0};
    load("attention.npy", &att);
    load("logits.npy", &lg);
    Gpt2Ref r;
    assert_int_equal(gpt2_ref(&m->w, m->ids, N, &r), AV_OK);
    assert_floats_near(r.P, att.data, (size_t)L * H * N * N, 1e-5);
    assert_floats_near(r.logits, lg.data, (size_t)N * V, 1e-4);
    gpt2_ref_free(&r);
    int bad = V;
    assert_int_equal(gpt2_ref(&m->w, &bad, 1, &r), AV_ERR_CONFIG);
    assert_null(r.P);
    npy_free(&att), npy_free(&lg);
}

/* Every number of st's first n positions against the oracle's run of the
 * same ids: the residual stream, Q K V, the weights, the heads' outputs and
 * the logits. */
static void assert_matches_ref(const Model *m, const Gpt2State *st, const Gpt2Ref *r, int n)
{
    float row[T], logits[V];
    for (int i = 0; i < n; i++) {
        for (int l = 0; l <= L; l++)
            assert_floats_near(st->x + ((size_t)i * (L + 1) + l) * D,
                               r->x + ((size_t)l * n + i) * D, D, 1e-4);
        for (int l = 0; l < L; l++) {
            assert_floats_near(st->qkv + ((size_t)i * L + l) * 3 * D,
                               r->qkv + ((size_t)l * n + i) * 3 * D, 3 * D, 1e-4);
            assert_floats_near(st->concat + ((size_t)i * L + l) * D,
                               r->concat + ((size_t)l * n + i) * D, D, 1e-4);
            for (int h = 0; h < H; h++) {
                const float *src = st->P + gpt2_P_offset(L, H, i) + ((size_t)l * H + h) * (i + 1);
                memset(row, 0, sizeof row);
                memcpy(row, src, (size_t)(i + 1) * sizeof *row);
                assert_floats_near(row, r->P + (((size_t)l * H + h) * n + i) * n, n, 1e-5);
            }
        }
        assert_int_equal(gpt2_logits(&m->w, st, i, logits), AV_OK);
        assert_floats_near(logits, r->logits + (size_t)i * V, V, 1e-4);
    }
}

static void test_gpt2_forward_matches_ref(void **state)
{
    /* expect: the fast forward (packed kernels, 1 and 2 threads, the KV
     * cache extended a token at a time and after an edit) holds to the oracle
     * on every number it keeps */
    Model *m = *state;
    int ids[T];
    random_ids(77, T, ids);
    for (int threads = 1; threads <= 2; threads++) {
        Gpt2State st = {0};
        st.threads = threads;
        Gpt2Ref r;
        for (int n = 1; n <= 12; n++) { /* typed a token at a time: the cache */
            assert_int_equal(gpt2_forward(&m->w, ids, n, &st), AV_OK);
            assert_int_equal(st.from, n - 1);
            assert_int_equal(gpt2_ref(&m->w, ids, n, &r), AV_OK);
            assert_matches_ref(m, &st, &r, n);
            gpt2_ref_free(&r);
        }
        ids[5] = (ids[5] + 1) % V; /* an edit in the middle, then the whole context */
        assert_int_equal(gpt2_forward(&m->w, ids, T, &st), AV_OK);
        assert_int_equal(st.from, 5);
        assert_int_equal(gpt2_ref(&m->w, ids, T, &r), AV_OK);
        assert_matches_ref(m, &st, &r, T);
        gpt2_ref_free(&r);
        gpt2_state_free(&st);
    }
}

static void test_gpt2_attention_is_the_reference(void **state)
{
    /* expect: GPT-2's attention, given its own Q, K and V (c_attn's bias
     * included), is attention_ref_heads' formula: the same weights and
     * heads' outputs within float rounding */
    Model *m = *state;
    Gpt2State st = {0};
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    float *q = malloc(sizeof *q * 3 * N * D), *k = q + N * D, *v = k + N * D;
    float *P = malloc(sizeof *P * H * N * N), *concat = malloc(sizeof *concat * N * D);
    float row[N];
    assert_non_null(q), assert_non_null(P), assert_non_null(concat);
    AttnShape s = {N, N, D, H, true, true, 1.0f};
    for (int l = 0; l < L; l++) {
        for (int i = 0; i < N; i++) {
            const float *qkv = st.qkv + ((size_t)i * L + l) * 3 * D;
            memcpy(q + i * D, qkv, sizeof *q * D);
            memcpy(k + i * D, qkv + D, sizeof *k * D);
            memcpy(v + i * D, qkv + 2 * D, sizeof *v * D);
        }
        assert_int_equal(attention_ref_heads(&s, q, k, v, NULL, P, concat), AV_OK);
        for (int i = 0; i < N; i++) {
            for (int h = 0; h < H; h++) {
                state_row(&st, l, h, i, row);
                assert_floats_near(row, P + ((size_t)h * N + i) * N, N, 1e-6);
            }
            assert_floats_near(st.concat + ((size_t)i * L + l) * D, concat + i * D, D, 1e-5);
        }
    }
    free(q), free(P), free(concat);
    gpt2_state_free(&st);
}

/* A whole run of ids[0..n) in a fresh state, compared with st. */
static void assert_equals_whole(const Model *m, const int *ids, int n, const Gpt2State *st)
{
    Gpt2State whole = {0};
    assert_int_equal(gpt2_forward(&m->w, ids, n, &whole), AV_OK);
    assert_states_equal(st, &whole, n);
    gpt2_state_free(&whole);
}

static void test_gpt2_cache_append(void **state)
{
    /* expect: tokens appended one at a time, each call computing only the new
     * position, end with the bits of one whole run over the full context */
    Model *m = *state;
    int ids[T];
    Gpt2State st = {0};
    random_ids(7, T, ids);
    for (int n = 1; n <= T; n++) {
        assert_int_equal(gpt2_forward(&m->w, ids, n, &st), AV_OK);
        assert_int_equal(st.from, n - 1);
    }
    assert_equals_whole(m, ids, T, &st);
    gpt2_state_free(&st);
}

static void test_gpt2_cache_edit(void **state)
{
    /* expect: an edit in the middle recomputes from the first changed token
     * and equals a whole run; a shorter text computes nothing; 3 tokens at
     * once, 2 and an edit of the first token still equal */
    Model *m = *state;
    int ids[T];
    Gpt2State st = {0};
    random_ids(11, T, ids);
    assert_int_equal(gpt2_forward(&m->w, ids, 40, &st), AV_OK);
    ids[17] = (ids[17] + 1) % V;
    assert_int_equal(gpt2_forward(&m->w, ids, 40, &st), AV_OK);
    assert_int_equal(st.from, 17);
    assert_equals_whole(m, ids, 40, &st);
    assert_int_equal(gpt2_forward(&m->w, ids, 25, &st), AV_OK);
    assert_int_equal(st.from, 25);
    assert_equals_whole(m, ids, 25, &st);
    assert_int_equal(gpt2_forward(&m->w, ids, 28, &st), AV_OK);
    assert_int_equal(st.from, 25);
    assert_equals_whole(m, ids, 28, &st);
    assert_int_equal(gpt2_forward(&m->w, ids, 30, &st), AV_OK); /* two rows at once */
    assert_int_equal(st.from, 28);
    assert_equals_whole(m, ids, 30, &st);
    ids[0] = (ids[0] + 5) % V;
    assert_int_equal(gpt2_forward(&m->w, ids, T, &st), AV_OK);
    assert_int_equal(st.from, 0);
    assert_equals_whole(m, ids, T, &st);
    gpt2_state_free(&st);
}

/* w given a random wpe of `positions` (the caller frees it), for texts
 * past the model's T. */
static float *longer_wpe(Gpt2Weights *w, int positions, uint64_t seed)
{
    float *wpe = malloc(sizeof *wpe * (size_t)positions * D);
    assert_non_null(wpe);
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < positions * D; k++)
        wpe[k] = rng_symmetric(&r, 0.2f);
    w->wpe = wpe, w->cfg.n_ctx = positions;
    return wpe;
}

static void test_gpt2_threads_and_kernels(void **state)
{
    /* expect: the model with a longer wpe (T2 positions) gives the same bits
     * whether a run takes one thread or two, and whether its rows go through
     * the packed kernel (a whole run of many rows) or the direct one (a few
     * rows: appends and an edit); the logits too */
    enum { T2 = 200, N2 = 180 };
    const Model *m = *state;
    Gpt2Weights w = m->w;
    float *wpe = longer_wpe(&w, T2, 99);
    int ids[N2];
    random_ids(23, N2, ids);
    Gpt2State whole = {0}, st = {0};
    whole.threads = 2, st.threads = 1;
    assert_int_equal(gpt2_forward(&w, ids, N2, &whole), AV_OK);
    assert_int_equal(gpt2_forward(&w, ids, 150, &st), AV_OK);
    st.threads = 2;
    for (int n = 151; n <= N2; n++) {
        assert_int_equal(gpt2_forward(&w, ids, n, &st), AV_OK);
        assert_int_equal(st.from, n - 1);
    }
    assert_states_equal(&st, &whole, N2);
    ids[170] = (ids[170] + 1) % V;
    assert_int_equal(gpt2_forward(&w, ids, N2, &st), AV_OK); /* ten rows at once */
    assert_int_equal(st.from, 170);
    whole.threads = 1;
    assert_int_equal(gpt2_forward(&w, ids, N2, &whole), AV_OK);
    assert_int_equal(whole.from, 170);
    assert_states_equal(&st, &whole, N2);
    gpt2_state_free(&whole);
    whole.threads = 1;
    assert_int_equal(gpt2_forward(&w, ids, N2, &whole), AV_OK); /* all rows, one thread */
    assert_states_equal(&st, &whole, N2);
    float one[V], two[V];
    assert_int_equal(gpt2_logits(&w, &whole, N2 - 1, one), AV_OK);
    assert_int_equal(gpt2_logits(&w, &st, N2 - 1, two), AV_OK);
    assert_memory_equal(one, two, sizeof one);
    gpt2_state_free(&st);
    gpt2_state_free(&whole);
    free(wpe);
}

static void test_gpt2_cache_odd_heads(void **state)
{
    /* expect: with an odd number of heads (3 of 16 features: the two
     * threads take 1 and 2, as gpt2-xl's 25 are split 12 and 13), keys
     * typed one at a time on two threads, through the cached keys' growth
     * from 1 block to 4, end with the bits of a whole run on one thread */
    enum { T2 = 200, N2 = 150, H3 = 3 };
    const Model *m = *state;
    Gpt2Weights w = m->w;
    float *wpe = longer_wpe(&w, T2, 31);
    w.cfg.n_head = H3;
    int ids[N2];
    random_ids(41, N2, ids);
    Gpt2State st = {0}, whole = {0};
    st.threads = 2, whole.threads = 1;
    for (int n = 1; n <= N2; n++) {
        assert_int_equal(gpt2_forward(&w, ids, n, &st), AV_OK);
        assert_int_equal(st.from, n - 1);
    }
    assert_true(st.cap > 2 * GPT2_KV_BLOCK);
    assert_int_equal(gpt2_forward(&w, ids, N2, &whole), AV_OK);
    assert_int_equal(whole.from, 0);
    assert_states_equal_h(&st, &whole, N2, H3);
    gpt2_state_free(&st);
    gpt2_state_free(&whole);
    free(wpe);
}

/* W (K, C) copied as two panels of columns split at s, by rows: what the
 * reader does (core/gpt2.h), written out here without gpt2_weight_index. */
static float *panels_of(const float *W, int K, int C, int s)
{
    float *p = malloc(sizeof *p * (size_t)K * C);
    assert_non_null(p);
    for (int k = 0; k < K; k++) {
        memcpy(p + (size_t)k * s, W + (size_t)k * C, sizeof *p * (size_t)s);
        memcpy(p + (size_t)K * s + (size_t)k * (C - s), W + (size_t)k * C + s,
               sizeof *p * (size_t)(C - s));
    }
    for (int k = 0; k < K; k++)
        for (int j = 0; j < C; j++)
            assert_true(p[gpt2_weight_index(true, K, C, k, j)] == W[(size_t)k * C + j]);
    return p;
}

static void test_gpt2_panels_same_bits(void **state)
{
    /* expect: c_attn, c_fc and mlp c_proj laid in panels (the reader's
     * layout; here split at 80 of 144, 96 of 192 and 32 of 48 columns) give
     * the bits of the file's layout: a whole run on one thread and two,
     * tokens typed one at a time, an edit, the logits and the reference */
    const Model *m = *state;
    assert_int_equal(gpt2_panel_split(3 * D), 80);
    assert_int_equal(gpt2_panel_split(F), 96);
    assert_int_equal(gpt2_panel_split(D), 32);
    assert_int_equal(gpt2_panel_split(15), 0);
    Gpt2Weights w = m->w;
    float *own[3 * L];
    for (int l = 0; l < L; l++) {
        Gpt2Layer *y = &w.layer[l];
        y->attn_w = own[3 * l] = panels_of(y->attn_w, D, 3 * D, 80);
        y->fc_w = own[3 * l + 1] = panels_of(y->fc_w, D, F, 96);
        y->fcproj_w = own[3 * l + 2] = panels_of(y->fcproj_w, F, D, 32);
    }
    w.panels = true;
    int ids[T];
    random_ids(31, T, ids);
    Gpt2State plain = {0};
    plain.threads = 1;
    assert_int_equal(gpt2_forward(&m->w, ids, T, &plain), AV_OK);
    for (int threads = 1; threads <= 2; threads++) {
        Gpt2State st = {0};
        st.threads = threads;
        assert_int_equal(gpt2_forward(&w, ids, T, &st), AV_OK);
        assert_states_equal(&st, &plain, T);
        st.n = 0;
        for (int n = 1; n <= T; n += n < 40 ? 13 : 1) /* 1, 14, 27, 40, then typed keys */
            assert_int_equal(gpt2_forward(&w, ids, n, &st), AV_OK);
        assert_int_equal(st.from, T - 1);
        assert_states_equal(&st, &plain, T);
        float a[V], b[V];
        assert_int_equal(gpt2_logits(&w, &st, T - 1, a), AV_OK);
        assert_int_equal(gpt2_logits(&m->w, &plain, T - 1, b), AV_OK);
        assert_memory_equal(a, b, sizeof a);
        gpt2_state_free(&st);
    }
    Gpt2Ref r1, r2;
    assert_int_equal(gpt2_ref(&w, ids, N, &r1), AV_OK);
    assert_int_equal(gpt2_ref(&m->w, ids, N, &r2), AV_OK);
    assert_memory_equal(r1.x, r2.x, sizeof *r1.x * (L + 1) * N * D);
    assert_memory_equal(r1.logits, r2.logits, sizeof *r1.logits * N * V);
    gpt2_ref_free(&r1), gpt2_ref_free(&r2);
    gpt2_state_free(&plain);
    for (int k = 0; k < 3 * L; k++)
        free(own[k]);
}

static void test_gpt2_errors(void **state)
{
    /* expect: no token, past n_ctx, an id outside the vocabulary or a broken
     * configuration are refused, and the state then recomputes everything */
    Model *m = *state;
    int ids[T + 1];
    Gpt2State st = {0};
    random_ids(3, T + 1, ids);
    assert_int_equal(gpt2_forward(&m->w, ids, 0, &st), AV_ERR_EMPTY);
    assert_int_equal(gpt2_forward(&m->w, ids, T + 1, &st), AV_ERR_TOO_MANY);
    assert_int_equal(gpt2_forward(&m->w, ids, 5, &st), AV_OK);
    ids[2] = V;
    assert_int_equal(gpt2_forward(&m->w, ids, 5, &st), AV_ERR_CONFIG);
    assert_int_equal(st.n, 0);
    ids[2] = -1;
    assert_int_equal(gpt2_forward(&m->w, ids, 5, &st), AV_ERR_CONFIG);
    Gpt2Weights bad = m->w;
    bad.cfg.n_head = 5; /* does not divide 48 */
    ids[2] = 1;
    assert_int_equal(gpt2_forward(&bad, ids, 5, &st), AV_ERR_CONFIG);
    bad = m->w;
    bad.layer[1].fc_b = NULL;
    assert_int_equal(gpt2_check(&bad), AV_ERR_CONFIG);
    bad = m->w;
    bad.cfg.d_model = AV_MAX_D_MODEL + H;
    assert_int_equal(gpt2_check(&bad), AV_ERR_CONFIG);
    gpt2_state_free(&st);
}

/* A token list of n tokens "t0", "t1", ... (by hand, as a tokenizer would). */
typedef struct {
    Token tok[T];
    char text[T][16];
    TokenList tl;
} Tokens;

static void tokens_make(Tokens *t, int n)
{
    for (int i = 0; i < n; i++) {
        snprintf(t->text[i], sizeof t->text[i], "t%d", i);
        t->tok[i] = (Token){.start = (size_t)i * 4, .len = strlen(t->text[i]), .str = t->text[i]};
    }
    t->tl = (TokenList){.tok = t->tok, .n = n};
}

static void test_gpt2_result_fill(void **state)
{
    /* expect: the views' accessors give the forward's own weights bit for bit,
     * and the result's vectors and residual stream are the state's */
    Model *m = *state;
    Gpt2State st = {0};
    ModelConfig c;
    ModelResult r = {0};
    Tokens t;
    float row[N], buf[N];
    tokens_make(&t, N);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    gpt2_model_config(&m->w.cfg, &c);
    assert_int_equal(model_config_check(&c), AV_OK);
    c.keep_scores = true;
    assert_int_equal(gpt2_result_fill(&m->w, &st, &c, &t.tl, &r), AV_OK);
    assert_int_equal(r.shape.n_q, N);
    assert_int_equal(r.L, L);
    assert_true(r.shape.causal && !r.lazy);
    assert_string_equal(r.tokens.tok[3].str, "t3");
    for (int l = 0; l < L; l++) {
        assert_true(model_has_vectors(&r, l));
        for (int h = 0; h < H; h++) {
            const float *P_h = model_head_P(&r, l, h);
            assert_non_null(P_h);
            for (int i = 0; i < N; i++) {
                state_row(&st, l, h, i, row);
                assert_memory_equal(P_h + (size_t)i * N, row, sizeof row);
                assert_memory_equal(model_head_row(&r, l, h, i, buf), row, sizeof row);
                const float *S_i = r.layer[l].ab.S + ((size_t)h * N + i) * N;
                for (int j = i + 1; j < N; j++)
                    assert_true(isinf(S_i[j]) && S_i[j] < 0);
            }
        }
        /* Q of position 5, K of position 7 and the residual stream after the layer */
        assert_memory_equal(r.layer[l].ab.Q + 5 * D, st.qkv + ((size_t)5 * L + l) * 3 * D,
                            D * sizeof(float));
        assert_memory_equal(r.layer[l].ab.K + 7 * D, st.qkv + ((size_t)7 * L + l) * 3 * D + D,
                            D * sizeof(float));
        assert_memory_equal(r.layer[l].x_out + 9 * D, st.x + ((size_t)9 * (L + 1) + l + 1) * D,
                            D * sizeof(float));
    }
    assert_ptr_equal(r.out, r.layer[L - 1].x_out);
    c.causal = false;
    assert_int_equal(gpt2_result_fill(&m->w, &st, &c, &t.tl, &r), AV_ERR_CONFIG);
    c.causal = true;
    tokens_make(&t, N - 1);
    assert_int_equal(gpt2_result_fill(&m->w, &st, &c, &t.tl, &r), AV_ERR_CONFIG);
    assert_int_equal(r.shape.n_q, 0);
    model_result_free(&r);
    gpt2_state_free(&st);
}

static void test_gpt2_result_whatif(void **state)
{
    /* expect: at temperature 2 (a what-if) the weights are the softmax of the
     * model's own scores halved, recomputed in double within 1e-5 */
    Model *m = *state;
    Gpt2State st = {0};
    ModelConfig c;
    ModelResult r = {0};
    Tokens t;
    float buf[N];
    tokens_make(&t, N);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    gpt2_model_config(&m->w.cfg, &c);
    c.temperature = 2.0f;
    assert_int_equal(gpt2_result_fill(&m->w, &st, &c, &t.tl, &r), AV_OK);
    const float *Q = r.layer[1].ab.Q, *K = r.layer[1].ab.K;
    for (int i = 0; i < N; i++) {
        const float *P_i = model_head_row(&r, 1, 0, i, buf);
        double s[N], z = 0;
        for (int j = 0; j <= i; j++) {
            double dot = 0;
            for (int k = 0; k < D / H; k++)
                dot += (double)Q[i * D + k] * K[j * D + k];
            s[j] = dot / sqrt(D / H) / 2;
            assert_float_equal(attention_score(&r.shape, 0, Q, K, i, j), s[j], 1e-4);
            z += exp(s[j]);
        }
        for (int j = 0; j < N; j++)
            assert_float_equal(P_i[j], j <= i ? exp(s[j]) / z : 0.0, 1e-5);
    }
    model_result_free(&r);
    gpt2_state_free(&st);
}

static void test_gpt2_result_lazy(void **state)
{
    /* expect: past the weights budget the state keeps no weights and the
     * result computes its rows from Q and K, within 1e-6 of the forward's */
    Model *m = *state;
    Gpt2State st = {0}, whole = {0};
    ModelConfig c;
    ModelResult r = {0};
    Tokens t;
    float row[N], buf[N];
    tokens_make(&t, N);
    st.weights_budget = 1;
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &whole), AV_OK);
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(st.p_rows, 0);
    gpt2_model_config(&m->w.cfg, &c);
    c.weights_budget = 1;
    assert_int_equal(gpt2_result_fill(&m->w, &st, &c, &t.tl, &r), AV_OK);
    assert_true(r.lazy);
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++) {
            assert_null(model_head_P(&r, l, h));
            for (int i = 0; i < N; i++) {
                state_row(&whole, l, h, i, row);
                assert_floats_near(model_head_row(&r, l, h, i, buf), row, N, 1e-6);
            }
        }
    /* the budget raised: the weights are computed again, the cache then equal */
    st.weights_budget = 0;
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(st.from, 0);
    assert_states_equal(&st, &whole, N);
    model_result_free(&r);
    gpt2_state_free(&st);
    gpt2_state_free(&whole);
}

static void test_gpt2_value_norms(void **state)
{
    /* expect: ‖V_j,h W_O,h‖ as a float64 product of the state's V and proj_w */
    Model *m = *state;
    Gpt2State st = {0};
    float norms[H * N];
    const int l = 1, d_k = D / H;
    assert_int_equal(gpt2_forward(&m->w, m->ids, N, &st), AV_OK);
    assert_int_equal(gpt2_value_norms(&m->w, &st, l, norms), AV_OK);
    for (int h = 0; h < H; h++)
        for (int j = 0; j < N; j++) {
            const float *v = st.qkv + ((size_t)j * L + l) * 3 * D + 2 * D + h * d_k;
            double s = 0;
            for (int c = 0; c < D; c++) {
                double u = 0;
                for (int k = 0; k < d_k; k++)
                    u += (double)v[k] * m->w.layer[l].proj_w[(size_t)(h * d_k + k) * D + c];
                s += u * u;
            }
            assert_float_equal(norms[h * N + j], sqrt(s), 1e-5 * sqrt(s));
        }
    assert_int_equal(gpt2_value_norms(&m->w, &st, L, norms), AV_ERR_CONFIG);
    gpt2_state_free(&st);
}

static void test_gpt2_generate(void **state)
{
    /* expect: each step of generation computes one position, and its greedy
     * token is the largest of a whole run's last logits */
    Model *m = *state;
    int ids[T];
    float logits[V], whole_logits[V];
    Gpt2State st = {0};
    Rng r;
    rng_seed(&r, 1);
    random_ids(5, 6, ids);
    Sampling greedy = {0, 0};
    for (int n = 6; n < 16; n++) {
        int next;
        assert_int_equal(gpt2_next(&m->w, ids, n, &greedy, &r, &st, logits, &next), AV_OK);
        assert_int_equal(st.from, n == 6 ? 0 : n - 1);
        Gpt2State whole = {0};
        assert_int_equal(gpt2_forward(&m->w, ids, n, &whole), AV_OK);
        assert_int_equal(gpt2_logits(&m->w, &whole, n - 1, whole_logits), AV_OK);
        assert_memory_equal(logits, whole_logits, sizeof logits);
        int best = 0;
        for (int v = 1; v < V; v++)
            best = whole_logits[v] > whole_logits[best] ? v : best;
        assert_int_equal(next, best);
        ids[n] = next;
        gpt2_state_free(&whole);
    }
    gpt2_state_free(&st);
}

static void test_gpt2_xl_config(void **state)
{
    /* expect: the views take gpt2-xl's shape (1600 wide, 25 heads, 48 layers),
     * while attnviz's own models keep their 1024 limit */
    (void)state;
    Gpt2Config xl = {50257, 1024, 1600, 25, 48, 6400, 1e-5f};
    ModelConfig c;
    gpt2_model_config(&xl, &c);
    assert_int_equal(model_config_check(&c), AV_OK);
    assert_int_equal(c.preset, PRESET_TRAINED);
    assert_true(c.causal && c.scale && !c.pe);
    assert_int_equal(AV_MAX_D_MODEL_OWN, 1024);
    c.d_model = 1650, c.H = 25;
    assert_int_equal(model_config_check(&c), AV_ERR_CONFIG);
}

static void test_gpt2_flops(void **state)
{
    /* expect: a whole run's operations are the four products per position and
     * the causal triangle's scores and sums; a cached key only its row's */
    Model *m = *state;
    const double per_pos = 2.0 * (4.0 * D * D + 2.0 * D * F);
    assert_float_equal(gpt2_flops(&m->w.cfg, 0, 3), L * (3 * per_pos + 6 * 4.0 * D), 1e-3);
    assert_float_equal(gpt2_flops(&m->w.cfg, 2, 3), L * (per_pos + 3 * 4.0 * D), 1e-3);
    assert_float_equal(gpt2_param_count(&m->w),
                       (double)V * D + T * D + 2 * D +
                           L * (4.0 * D + 4.0 * D * D + 2.0 * D * F + 3 * D + D + F + D),
                       0.5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gpt2_reference_ids),
        cmocka_unit_test(test_gpt2_weights_match_reference),
        cmocka_unit_test(test_gpt2_logits_match_reference),
        cmocka_unit_test(test_gpt2_weights_invariants),
        cmocka_unit_test(test_gpt2_ref_matches_numpy),
        cmocka_unit_test(test_gpt2_forward_matches_ref),
        cmocka_unit_test(test_gpt2_attention_is_the_reference),
        cmocka_unit_test(test_gpt2_cache_append),
        cmocka_unit_test(test_gpt2_cache_edit),
        cmocka_unit_test(test_gpt2_threads_and_kernels),
        cmocka_unit_test(test_gpt2_cache_odd_heads),
        cmocka_unit_test(test_gpt2_panels_same_bits),
        cmocka_unit_test(test_gpt2_errors),
        cmocka_unit_test(test_gpt2_result_fill),
        cmocka_unit_test(test_gpt2_result_whatif),
        cmocka_unit_test(test_gpt2_result_lazy),
        cmocka_unit_test(test_gpt2_value_norms),
        cmocka_unit_test(test_gpt2_generate),
        cmocka_unit_test(test_gpt2_xl_config),
        cmocka_unit_test(test_gpt2_flops),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
