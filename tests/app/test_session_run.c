/* test_session_run.c - what runs when, what is refused and why, without a
 * terminal (app/session.h's session_update, session_resume, session_input):
 * which inputs run the model and which leave the result standing, what a
 * failed run leaves, the compare view's second run, a kind that computes on
 * a thread, the keys a kind refuses with its reason, when the next-token
 * predictions are asked again, and the combining views' keys (A, O, V).
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/action.h"
#include "app/session.h"
#include "core/av.h"

#define TEXT "the cat sat on the mat"

typedef struct {
    AppState s;
    SentenceList list;
    LessonState ls;
    Session ss;
} Fix;

static void fix_init(Fix *f, Kind *cli)
{
    memset(f, 0, sizeof *f);
    ModelConfig c;
    model_config_default(&c);
    assert_int_equal(sentences_builtin(&f->list), AV_OK);
    assert_int_equal(app_init(&f->s, &c, TEXT, &f->list, false), AV_OK);
    lesson_state_init(&f->ls);
    session_init(&f->ss, NULL, cli, 0);
}

static void fix_free(Fix *f)
{
    session_free(&f->ss);
    lesson_state_free(&f->ls);
    app_free(&f->s);
    sentences_free(&f->list);
}

/* A kind of the test's own over toy weights: it runs model_run, is causal
 * only (the mask refused with its class's line), refuses the PE view,
 * generates " x" and predicts (fake_logits). While busy is set it computes
 * "on a thread": run, poll and logits say KIND_BUSY. */
typedef struct {
    ModelWeights w;
    bool busy;
    int runs;     /* runs that filled a result */
    int released; /* the last layer whose pages were dropped, or -1 */
} FakeModel;

static int fake_run(Kind *k, const ModelConfig *c, const char *text, size_t len, const char *cross,
                    size_t cross_len, ModelResult *r)
{
    FakeModel *m = k->self;
    if (m->busy)
        return KIND_BUSY;
    m->runs++;
    return model_run(c, &m->w, text, len, cross, cross_len, r);
}

static int fake_generate(Kind *k, const char *text, size_t len, int count, float temperature,
                         int top_k, uint64_t seed, char **out, size_t *cont)
{
    (void)k, (void)count, (void)temperature, (void)top_k, (void)seed;
    *out = malloc(len + 3);
    assert_non_null(*out);
    memcpy(*out, text, len);
    strcpy(*out + len, " x");
    *cont = len;
    return AV_OK;
}

static const char *fake_refuses(const Kind *k, KindAsk ask)
{
    (void)k;
    return ask == KIND_ASK_PE_VIEW ? "the fake model has no PE view" : NULL;
}

static int fake_poll(Kind *k, bool *changed, char *msg, size_t len)
{
    FakeModel *m = k->self;
    (void)msg, (void)len;
    *changed = false;
    return m->busy ? KIND_BUSY : AV_OK;
}

/* Five tokens; after position pos the most probable is pos % 5 (logit 3
 * against 0). */
static int fake_logits(Kind *k, const char *text, size_t len, int pos, float *out, int cap, int *V)
{
    FakeModel *m = k->self;
    (void)text, (void)len, (void)cap;
    if (m->busy)
        return KIND_BUSY;
    *V = 5;
    for (int j = 0; j < 5; j++)
        out[j] = j == pos % 5 ? 3.0f : 0.0f;
    return AV_OK;
}

static void fake_release(const Kind *k, int l)
{
    ((FakeModel *)k->self)->released = l;
}

static const KindClass fake_class = {.name = "fake",
                                     .run = fake_run,
                                     .logits = fake_logits,
                                     .generate = fake_generate,
                                     .refuses = fake_refuses,
                                     .poll = fake_poll,
                                     .release = fake_release,
                                     .causal_only = true};

static void fake_open(Kind *k, FakeModel *m)
{
    memset(m, 0, sizeof *m);
    ModelConfig c;
    model_config_default(&c);
    assert_int_equal(model_weights_toy(&c, &m->w), AV_OK);
    m->released = -1;
    *k = (Kind){.cls = &fake_class, .self = m, .temperature = 1.0f};
}

/* The offset of the first byte of word in the text. */
static size_t offset_of(const AppState *s, const char *word)
{
    const char *p = strstr(s->text.s, word);
    assert_non_null(p);
    return (size_t)(p - s->text.s);
}

static void test_session_update_runs_on_edits_only(void **state)
{
    /* expect: the first update runs (generation 1, six tokens, weights
     * only on the heatmaps); a cursor move alone runs nothing (generation
     * and rows stand) and in edit mode selects the token at the cursor;
     * typing runs again (generation 2, seven tokens); the seed rebuilds the
     * weights and runs (other weights); the pipeline view wants the outputs
     * the last run left out, and the next run computes them */
    (void)state;
    Fix f;
    fix_init(&f, NULL);
    f.s.cfg.causal = true;
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_int_equal(f.ss.run_err, AV_OK);
    assert_int_equal(f.ss.gen, 1);
    assert_int_equal(f.s.n_q, 6);
    assert_int_equal(f.ss.res.shape.n_q, 6);
    assert_null(f.ss.res.out);
    assert_false(f.ss.computing);
    float p10 = f.ss.res.layer[0].ab.P[6]; /* query 2 on key 1 (of "the cat" alone) */

    f.s.mode = MODE_EDIT;
    f.s.text.cur = offset_of(&f.s, "sat");
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_CURSOR), AV_OK);
    assert_int_equal(f.ss.gen, 1);
    assert_int_equal(f.s.sel_row, 2);
    f.s.text.cur = f.s.text.len;
    unsigned flags = app_type(&f.s, " now", 4);
    assert_true(flags & APP_RUN);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, flags), AV_OK);
    assert_int_equal(f.ss.gen, 2);
    assert_int_equal(f.s.n_q, 7);
    assert_int_equal(f.s.sel_row, 6); /* the cursor at the end: "now" */

    f.s.mode = MODE_BROWSE;
    flags = action_apply(&f.s, ACT_SEED_INC, 0);
    assert_int_equal(flags & (APP_RUN | APP_WEIGHTS), APP_RUN | APP_WEIGHTS);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, flags), AV_OK);
    assert_int_equal(f.ss.gen, 3);
    assert_true(f.ss.res.layer[0].ab.P[7] != p10); /* the same pair, other weights */

    assert_false(session_outputs_missing(&f.ss, &f.s, &f.ls));
    f.s.view = VIEW_ID_PIPELINE;
    assert_true(session_wants_outputs(&f.s, &f.ls));
    assert_true(session_outputs_missing(&f.ss, &f.s, &f.ls));
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN), AV_OK);
    assert_non_null(f.ss.res.out);
    assert_false(session_outputs_missing(&f.ss, &f.s, &f.ls));
    fix_free(&f);
}

static void test_session_failed_run_keeps_the_error(void **state)
{
    /* expect: a run that fails (no text) stores its error with a new
     * generation, leaves no rows (n_q 0, no row selected) and keeps the
     * layer and head within the settings; its one line is av_strerror's;
     * the next good run clears the error */
    (void)state;
    Fix f;
    fix_init(&f, NULL);
    f.s.cfg.layers = 2;
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    f.s.layer = 1, f.s.head = f.s.cfg.H - 1, f.s.sel_row = 3;
    edit_set(&f.s.text, "");
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN), AV_OK);
    assert_int_equal(f.ss.run_err, AV_ERR_EMPTY);
    assert_int_equal(f.ss.gen, 2);
    assert_int_equal(f.s.n_q, 0);
    assert_int_equal(f.s.sel_row, -1);
    assert_int_equal(f.s.layer, 1);
    assert_int_equal(f.s.head, f.s.cfg.H - 1);
    assert_string_equal(session_error_line(&f.ss, &f.s.cfg, f.ss.run_err),
                        av_strerror(AV_ERR_EMPTY));
    f.s.cfg.max_tokens = 9; /* too many tokens: the limit said, --max-tokens' */
    assert_string_equal(session_error_line(&f.ss, &f.s.cfg, AV_ERR_TOO_MANY),
                        "the text has more than 9 tokens (--max-tokens): shorten it (e edits)");
    ModelConfig trained = f.s.cfg; /* a model's own context is its limit */
    trained.preset = PRESET_TRAINED;
    assert_string_equal(session_error_line(&f.ss, &trained, AV_ERR_TOO_MANY),
                        "the text has more tokens than this model's limit of 9: shorten it "
                        "(e edits)");
    edit_set(&f.s.text, TEXT);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN), AV_OK);
    assert_int_equal(f.ss.run_err, AV_OK);
    assert_int_equal(f.ss.gen, 3);
    assert_int_equal(f.s.n_q, 6);
    fix_free(&f);
}

static void test_session_compare_runs_both_masks(void **state)
{
    /* expect: with the mask compared, one update runs res with the mask on
     * (query 1 sees no later key: exactly 0) and res2 with it off (> 0),
     * each a generation of its own; with a combining view on, it makes res
     * only (res2 is the kind's plain run) */
    (void)state;
    Fix f;
    fix_init(&f, NULL);
    f.s.cfg.causal = true;
    f.s.compare = CMP_MASK;
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_null(f.ss.res.src); /* the weights: the kind's own runs */
    assert_null(f.ss.res2.src);
    assert_int_equal(f.ss.run_err, AV_OK);
    assert_int_equal(f.ss.run_err2, AV_OK);
    assert_int_equal(f.ss.gen, 1);
    assert_int_equal(f.ss.gen2, 2);
    assert_true(f.ss.res.shape.causal);
    assert_false(f.ss.res2.shape.causal);
    assert_true(f.ss.res.layer[0].ab.P[1] == 0.0f);
    assert_true(f.ss.res2.layer[0].ab.P[1] > 0.0f);
    fix_free(&f);
}

static void test_session_background_run_keeps_the_last_result(void **state)
{
    /* expect: while the kind computes on a thread the last result, its
     * error and generation stand (computing set), and resuming before the
     * thread ends does nothing; once it ends, resume runs the newest text
     * (a new generation, seven rows) and, as the cursor moved meanwhile,
     * selects the token at the cursor */
    (void)state;
    FakeModel m;
    Kind k;
    fake_open(&k, &m);
    Fix f;
    fix_init(&f, &k);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_int_equal(f.ss.gen, 1);
    assert_int_equal(m.runs, 1);
    m.busy = true;
    f.s.mode = MODE_EDIT;
    f.s.text.cur = f.s.text.len;
    unsigned flags = app_type(&f.s, " now", 4);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, flags), AV_OK);
    assert_true(f.ss.computing);
    assert_true(f.ss.cursor_due);
    assert_int_equal(f.ss.gen, 1);
    assert_int_equal(f.ss.res.shape.n_q, 6);
    assert_int_equal(f.s.n_q, 6);
    assert_int_equal(f.s.sel_row, 5); /* "now" is not in the last result yet */
    assert_int_equal(session_resume(&f.ss, &f.s, &f.ls), 0);
    f.s.mode = MODE_BROWSE; /* the selection follows even after leaving the editor */
    m.busy = false;
    assert_int_equal(session_resume(&f.ss, &f.s, &f.ls), 1);
    assert_false(f.ss.computing);
    assert_int_equal(f.ss.gen, 2);
    assert_int_equal(f.s.n_q, 7);
    assert_int_equal(f.s.sel_row, 6); /* "now", the cursor's token */
    assert_int_equal(session_resume(&f.ss, &f.s, &f.ls), 0);
    fix_free(&f);
    kind_close(&k);
    model_weights_free(&m.w);
}

static void test_session_refused_input_leaves_the_result(void **state)
{
    /* expect: a key the kind refuses (the mask of a causal-only model, the
     * PE view) is taken with the kind's reason on the status line, nothing
     * changed and nothing run; a key it allows goes on to action_apply;
     * while editing nothing is refused; g on a kind that generates grows
     * the sentence and asks for a run that shows the new row */
    (void)state;
    FakeModel m;
    Kind k;
    fake_open(&k, &m);
    Fix f;
    fix_init(&f, &k);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    bool causal = f.s.cfg.causal;
    unsigned flags = 0;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_MASK, false, &flags), 1);
    assert_int_equal(flags, 0);
    assert_string_equal(f.s.msg, kind_refuses(&k, KIND_ASK_MASK));
    assert_true(f.s.cfg.causal == causal);
    assert_int_equal(session_input(&f.ss, &f.s, ACT_CMP_MASK, false, &flags), 1);
    assert_int_equal(f.s.compare, CMP_NONE);
    f.s.view = VIEW_ID_ATTN;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_VIEW, false, &flags), 1);
    assert_string_equal(f.s.msg, "the fake model has no PE view");
    assert_int_equal(f.s.view, VIEW_ID_ATTN);
    assert_int_equal(m.runs, 1);
    assert_int_equal(f.ss.gen, 1);
    f.s.view = VIEW_ID_PE; /* from the PE view the next is the pipeline: allowed */
    assert_int_equal(session_input(&f.ss, &f.s, ACT_VIEW, false, &flags), 0);
    assert_int_equal(session_input(&f.ss, &f.s, ACT_SEED_INC, false, &flags), 0);
    assert_int_equal(session_input(&f.ss, &f.s, ACT_HEAD_NEXT, false, &flags), 0);
    f.s.mode = MODE_EDIT;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_MASK, false, &flags), 0);
    f.s.mode = MODE_BROWSE;
    assert_int_equal(flags, 0);

    assert_int_equal(session_input(&f.ss, &f.s, ACT_GENERATE, false, &flags), 1);
    assert_int_equal(flags, APP_RUN);
    assert_string_equal(f.s.text.s, TEXT " x");
    assert_int_equal(f.ss.cached_rows, 6);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, flags), AV_OK);
    assert_int_equal(f.ss.gen, 2);
    assert_int_equal(f.s.n_q, 7);
    assert_int_equal(f.s.sel_row, 6); /* the new row */
    fix_free(&f);

    /* the pipeline does not generate: g is refused with its reason */
    fix_init(&f, NULL);
    flags = 0;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_GENERATE, false, &flags), 1);
    assert_int_equal(flags, 0);
    assert_non_null(strstr(f.s.msg, "g needs a model that predicts tokens"));
    fix_free(&f);
    kind_close(&k);
    model_weights_free(&m.w);
}

static void test_session_predictions_follow_run_and_selection(void **state)
{
    /* expect: the predictions are asked once per run and selected row:
     * asked after a run (the row's most probable token first, e^3 against
     * 1, the five summing to 1), kept while fresh, asked again when the
     * selection or the run changes; a kind busy on a thread leaves none,
     * with KIND_BUSY for the line */
    (void)state;
    FakeModel m;
    Kind k;
    fake_open(&k, &m);
    Fix f;
    fix_init(&f, &k);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    f.s.sel_row = 2;
    assert_false(session_predict_fresh(&f.ss, &f.s));
    assert_int_equal(session_predict_update(&f.ss, &f.s), 1);
    assert_true(session_predict_fresh(&f.ss, &f.s));
    const SessionPredict *p = &f.ss.pred;
    assert_int_equal(f.ss.pred_err, AV_OK);
    assert_int_equal(p->n, 5);
    assert_int_equal(p->V, 5);
    assert_int_equal(p->pos, 2);
    assert_int_equal(p->id[0], 2);
    assert_string_equal(p->text[0], "#2");
    double e3 = 20.085536923187668, sum = 0;
    assert_float_equal(p->prob[0], e3 / (e3 + 4), 1e-6);
    for (int t = 0; t < p->n; t++)
        sum += p->prob[t];
    assert_float_equal(sum, 1.0, 1e-6);
    assert_int_equal(session_predict_update(&f.ss, &f.s), 0);
    f.s.sel_row = 3;
    assert_false(session_predict_fresh(&f.ss, &f.s));
    assert_int_equal(session_predict_update(&f.ss, &f.s), 1);
    assert_int_equal(p->id[0], 3);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN), AV_OK);
    assert_false(session_predict_fresh(&f.ss, &f.s));
    m.busy = true;
    assert_int_equal(session_predict_update(&f.ss, &f.s), 1);
    assert_int_equal(f.ss.pred_err, KIND_BUSY);
    assert_int_equal(p->n, 0);
    fix_free(&f);
    kind_close(&k);
    model_weights_free(&m.w);
}

static void test_session_multi_rows_summed(void **state)
{
    /* expect: M adds the selected query row to the rows summed and names on
     * the status line their largest key with its summed weight (from res:
     * the sum of the rows' weights at that key, two decimals); M on a row
     * already in takes it out; none left says how to add one; nothing runs */
    (void)state;
    Fix f;
    fix_init(&f, NULL);
    f.s.cfg.causal = false;
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    const float *P = model_head_P(&f.ss.res, f.s.layer, f.s.head);
    int n = f.ss.res.shape.n_k, best = 0;
    for (int j = 1; j < n; j++)
        if (P[2 * n + j] + P[4 * n + j] > P[2 * n + best] + P[4 * n + best])
            best = j;
    char want[128];
    snprintf(want, sizeof want, "2 queries summed: %s %.2f", f.ss.res.tokens.tok[best].str,
             (double)(P[2 * n + best] + P[4 * n + best]));
    unsigned flags = 0;
    f.s.sel_row = 2;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_MULTI_ROW, false, &flags), 1);
    assert_non_null(strstr(f.s.msg, "1 query summed: "));
    f.s.sel_row = 4;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_MULTI_ROW, false, &flags), 1);
    assert_int_equal(f.s.n_multi, 2);
    assert_memory_equal(f.s.msg, want, strlen(want));
    assert_int_equal(session_input(&f.ss, &f.s, ACT_MULTI_ROW, false, &flags), 1);
    f.s.sel_row = 2;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_MULTI_ROW, false, &flags), 1);
    assert_int_equal(f.s.n_multi, 0);
    assert_string_equal(f.s.msg, "no query token selected together (M adds one)");
    assert_int_equal(flags, 0);
    assert_int_equal(f.ss.gen, 1);
    fix_free(&f);
}

/* One key through session_input as the interface offers it; the flags it
 * added, which never quit. */
static unsigned comb_key(Fix *f, Action a, int want_taken)
{
    unsigned flags = 0;
    assert_int_equal(session_input(&f->ss, &f->s, a, false, &flags), want_taken);
    assert_false(flags & APP_QUIT);
    return flags;
}

static void test_session_combining_keys(void **state)
{
    /* expect: A A A O V Esc on the pipeline (2 layers, 4 heads, head 2
     * focused) goes mean, max, sum, rollout, norms, and Esc leaves the
     * norms on; each switch is taken with its status line and asks for a
     * run that makes res of the new mode (combsrc_make: an imported
     * result of the view's heads); the one-head views show H 1 and
     * head 0 with their labels, the norms the model's 4 heads and head 2
     * again; Esc is not taken and action_apply's Esc quits nothing; the mask
     * (a key that needs the plain weights) puts the weights back, the
     * model's labels too, asks for a run and is not taken */
    (void)state;
    Fix f;
    fix_init(&f, NULL);
    f.s.cfg.layers = 2;
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_null(f.ss.res.src); /* the weights: the kind's plain run */
    const char *const *labels = f.s.cfg.head_labels;
    f.s.head = 2;
    struct {
        Action a;
        CombMode mode;
        int H;
        const char *msg;
    } steps[] = {
        {ACT_COMBINE_HEADS, COMB_MEAN, 1, "showing heads combined: mean over heads (A: next)"},
        {ACT_COMBINE_HEADS, COMB_MAX, 1, "showing heads combined: max over heads (A: next)"},
        {ACT_COMBINE_HEADS, COMB_SUM, 1, "showing heads combined: sum over heads (A: next)"},
        {ACT_ROLLOUT, COMB_ROLLOUT, 1, "showing attention rollout (O: back to the weights)"},
        {ACT_NORMS, COMB_NORMS, 4,
         "showing value-weighted norms (row shares) (V: back to the weights)"},
    };
    for (int k = 0; k < 5; k++) {
        unsigned flags = comb_key(&f, steps[k].a, 1);
        assert_int_equal(flags, APP_RUN);
        assert_int_equal(f.ss.comb.mode, steps[k].mode);
        assert_string_equal(f.s.msg, steps[k].msg);
        assert_int_equal(f.s.cfg.H, steps[k].H);
        assert_int_equal(f.s.head, steps[k].H == 1 ? 0 : 2);
        assert_int_equal(session_update(&f.ss, &f.s, &f.ls, flags), AV_OK);
        assert_int_equal(f.ss.run_err, AV_OK);
        assert_non_null(f.ss.res.src); /* made of the view's source */
        assert_int_equal(f.ss.res.shape.H, steps[k].H);
        assert_int_equal(f.ss.res.L, 2);
    }
    assert_string_equal(f.s.cfg.head_labels[0], "value-weighted norms (row shares)");
    assert_string_equal(f.s.cfg.head_labels[4 + 3], "value-weighted norms (row shares)");
    assert_int_equal(comb_key(&f, ACT_ESCAPE, 0), 0);
    assert_false(action_apply(&f.s, ACT_ESCAPE, 0) & APP_QUIT);
    assert_int_equal(f.ss.comb.mode, COMB_NORMS);
    assert_int_equal(comb_key(&f, ACT_ROLLOUT, 1), APP_RUN); /* layer 2's label */
    assert_string_equal(f.s.cfg.head_labels[1], "rollout of layers 1-2 (4 heads averaged)");
    assert_int_equal(comb_key(&f, ACT_HEAD_NEXT, 0), 0); /* moving stays in the view */
    assert_int_equal(f.ss.comb.mode, COMB_ROLLOUT);
    assert_int_equal(comb_key(&f, ACT_MASK, 0), APP_RUN);
    assert_int_equal(f.ss.comb.mode, COMB_WEIGHTS);
    assert_true(f.s.cfg.head_labels == labels);
    assert_int_equal(f.s.cfg.H, 4);
    assert_int_equal(f.s.head, 2);
    assert_int_equal(comb_key(&f, ACT_MASK, 0), 0); /* the weights: nothing to leave */
    fix_free(&f);
}

static void test_session_combining_keys_refused(void **state)
{
    /* expect: on a kind that refuses what the mask asks, the mask in a
     * combining view is refused with the kind's reason and the view stays;
     * the rollout without self-attention (7 queries, 8 keys) is refused with
     * its line and nothing runs; typed text leaves a combining view; the
     * layer left has its pages dropped at the next input (kind_release) */
    (void)state;
    FakeModel m;
    Kind k;
    fake_open(&k, &m);
    Fix f;
    fix_init(&f, &k);
    assert_int_equal(session_update(&f.ss, &f.s, &f.ls, APP_RUN | APP_WEIGHTS), AV_OK);
    assert_int_equal(comb_key(&f, ACT_COMBINE_HEADS, 1), APP_RUN);
    assert_int_equal(comb_key(&f, ACT_MASK, 1), 0);
    assert_string_equal(f.s.msg, kind_refuses(&k, KIND_ASK_MASK));
    assert_int_equal(f.ss.comb.mode, COMB_MEAN);
    f.s.n_k = f.s.n_q + 1;
    assert_int_equal(comb_key(&f, ACT_ROLLOUT, 1), 0);
    assert_string_equal(f.s.msg, "rollout needs self-attention (as many queries as keys)");
    assert_int_equal(f.ss.comb.mode, COMB_MEAN);
    unsigned flags = 0;
    assert_int_equal(session_input(&f.ss, &f.s, ACT_NONE, true, &flags), 0);
    assert_int_equal(flags, APP_RUN);
    assert_int_equal(f.ss.comb.mode, COMB_WEIGHTS);
    assert_int_equal(m.released, -1);
    f.s.layer = 1; /* as action_apply's next layer leaves it */
    assert_int_equal(comb_key(&f, ACT_HEAD_NEXT, 0), 0);
    assert_int_equal(m.released, 0);
    m.released = -1;
    assert_int_equal(comb_key(&f, ACT_HEAD_NEXT, 0), 0);
    assert_int_equal(m.released, -1); /* once */
    fix_free(&f);
    kind_close(&k);
    model_weights_free(&m.w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_session_update_runs_on_edits_only),
        cmocka_unit_test(test_session_failed_run_keeps_the_error),
        cmocka_unit_test(test_session_compare_runs_both_masks),
        cmocka_unit_test(test_session_background_run_keeps_the_last_result),
        cmocka_unit_test(test_session_refused_input_leaves_the_result),
        cmocka_unit_test(test_session_predictions_follow_run_and_selection),
        cmocka_unit_test(test_session_multi_rows_summed),
        cmocka_unit_test(test_session_combining_keys),
        cmocka_unit_test(test_session_combining_keys_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
