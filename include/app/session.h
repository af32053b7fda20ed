/* session.h - what runs, when, and with which weights: the decision the
 * interface made itself before (ui_rerun, run_one, lesson_weights,
 * examples_weights), now in app and unit-tested without a terminal. A
 * session owns the weights (toy, an example's, --weights, a lesson page's),
 * the model kind that runs (app/kind.h: the pipeline on those weights,
 * --model's or --attention's, a lesson page's trained model), the results
 * the views read with their run errors and generations, the next-token
 * predictions, and g's counters; it decides what an input runs
 * (session_update), what a kind refuses (session_input). The interface
 * reads the results and keeps what it draws: layout, paint, caches of
 * pixels.
 */
#ifndef ATTNVIZ_SESSION_H
#define ATTNVIZ_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "app/combsrc.h"
#include "app/combview.h"
#include "app/kind.h"
#include "app/lesson.h"
#include "app/state.h"
#include "core/model.h"
#include "io/sentences.h"

#define SESSION_PREDICT_MAX 10 /* next tokens a prediction lists */
#define SESSION_TOKEN_TEXT 48  /* bytes of a predicted token's display text */

/* The most probable next tokens at one position, as the model predicts them. */
typedef struct {
    int n;   /* tokens listed (0: the kind predicts nothing) */
    int pos; /* the position they follow (0-based) */
    int V;   /* the vocabulary's size */
    int id[SESSION_PREDICT_MAX];
    float prob[SESSION_PREDICT_MAX]; /* softmax of the logits (temperature 1), decreasing */
    char text[SESSION_PREDICT_MAX][SESSION_TOKEN_TEXT]; /* kind_token_text's */
} SessionPredict;

typedef struct {
    const ModelWeights *fixed; /* --weights, or NULL */
    ModelWeights toy;          /* rebuilt from the settings when nothing fixes the weights */
    ModelWeights example;      /* an example's own weights (assets/NAME), named: */
    char example_name[SENTENCES_NAME_MAX];
    const ModelWeights *w; /* the weights in use: toy, example, fixed or a page's */
    Kind pipe;             /* the pipeline on w */
    Kind *cli_kind;        /* --model's or --attention's kind (the caller's), or NULL */
    Kind *kind;            /* the kind that runs: pipe, cli_kind or a page's */
    double budget;         /* weights_budget of the runs (--budget), 0 = default */
    int generated;         /* tokens g has generated (each one's seed) */
    int cached_rows;       /* rows before g's last token (keys, values cached) */
    size_t cached_len;     /* the text's length then: the marks last while it is */
    bool gen_due;          /* g grew the text: its run is still to be reported */
    int gen_before;        /* the query rows before g */
    char gen_piece[100];   /* the text g added (up to 24 bytes) */
    float *logits;         /* session_predict's (logits_cap floats) */
    int logits_cap;
    /* The results the views read (read only outside app), and their runs. */
    ModelResult res;  /* the last run of s's sentence (no rows after an error) */
    int run_err;      /* AV_OK or the last run's error */
    ModelResult res2; /* side by side (CMP_MASK): the same with the mask flipped */
    int run_err2;
    unsigned gen, gen2;  /* bumped by every run of res / res2 (the views' cache keys) */
    unsigned gen_clock;  /* the last generation given */
    double run_ms;       /* time of the last run of res */
    bool computing;      /* the kind runs the newest text on a thread (res: the last) */
    bool cursor_due;     /* meanwhile the cursor moved in the editor (APP_CURSOR) */
    char err_text[128];  /* session_error_line's */
    SessionPredict pred; /* session_predict_update's: the selected row's next tokens */
    unsigned pred_gen;   /* the run they were asked for (0: none) */
    int pred_err;        /* session_predict's code */
    CombView comb;       /* the combining view shown (session_input's) */
    CombSrc src;         /* what it shows, made as res (combsrc_make) */
    int layer_seen;      /* the layer shown at the last input: its pages dropped when left */
} Session;

/* Start a session on fixed weights (or NULL: toy ones) and the command
 * line's kind (or NULL: the pipeline); budget as --budget gave it. A slow
 * kind computes off the key path (Kind.background set): session_run then
 * may return KIND_BUSY, and session_poll says when to run again. No
 * weights are made yet: session_weights does. */
void session_init(Session *ss, const ModelWeights *fixed, Kind *cli_kind, double budget);

/* Free what the session made (toy and example weights, its pipeline kind);
 * the fixed weights and the command line's kind stay the caller's. */
void session_free(Session *ss);

/* Point the session at the weights and the kind s asks for: the shown
 * example's weights (loaded once per name; ones that cannot be read leave
 * the example, s->cfg back to before it, with a message in s->msg), else
 * --weights, else toy weights rebuilt from s->cfg; then, while a lesson is
 * active, its page's weights or trained model (a kind that has no text to
 * change, imported attention, stays). Returns AV_OK or AV_ERR_NOMEM. */
int session_weights(Session *ss, AppState *s, LessonState *ls);

/* Run the kind on s's sentence (and its cross sentence when on) into r,
 * with the causal mask as causal says; outputs false stops at the weights
 * (a view of weights alone). Returns kind_run's code; after AV_ERR_VOCAB
 * s->msg names the piece outside the vocabulary. */
int session_run(Session *ss, AppState *s, ModelResult *r, bool causal, bool outputs);

/* Whether what s shows reads the heads' outputs (concat, out), which a run
 * then computes: the pipeline view, the calculation trace and a lesson's
 * questions do; the heatmaps, the compare views, the heads panel and the
 * plots read the weights alone. */
bool session_wants_outputs(const AppState *s, const LessonState *ls);

/* Whether s now shows outputs the last run of res left out (the view
 * changed without a run): a computed run's, not an import's (r->src) or a
 * trained model's. The caller then asks for APP_RUN. */
bool session_outputs_missing(const Session *ss, const AppState *s, const LessonState *ls);

/* Carry out flags (action_apply's, app_type's, a lesson's). APP_WEIGHTS
 * points the session at the weights s asks for (session_weights); APP_RUN
 * or APP_WEIGHTS runs res (the combining view's, combsrc_make, while one is
 * on, else the kind's,
 * with the outputs session_wants_outputs asks) and, while s->compare is
 * CMP_MASK, res2 with the mask flipped: each run stores its error and takes
 * a new generation. A run the kind took on a thread (KIND_BUSY) leaves res,
 * its error and generation as they were and sets computing. APP_CURSOR
 * alone runs nothing: the result stands, and in edit mode the selection
 * follows the editor's cursor. Every time, s's indices are brought within
 * res (app_fit_result), the lesson sees it and its tokens are taken.
 * Returns AV_OK or AV_ERR_NOMEM (weights or a run out of memory). */
int session_update(Session *ss, AppState *s, LessonState *ls, unsigned flags);

/* Point ss->kind at the kind that runs now (the command line's, a lesson
 * page's trained model, or the pipeline), making no weights: a lesson page
 * that closes its model must not leave ss->kind on the closed kind for the
 * rest of a burst of keys (the weights follow with the burst's
 * session_update). */
void session_pick_kind(Session *ss, const AppState *s, LessonState *ls);

/* While computing: when the kind's thread is done (session_poll), res is
 * run again (the newest text, now cached) and, when the cursor moved
 * meanwhile, the selection follows it. Returns 1 when res changed (draw
 * again), 0 when nothing did, AV_ERR_NOMEM. */
int session_resume(Session *ss, AppState *s, LessonState *ls);

/* session_resume when the caller polled the kind itself (kind_poll said it
 * is no longer busy): the run again, without a second poll. */
int session_resume_done(Session *ss, AppState *s, LessonState *ls);

/* A failed run's one line for err (run_err or run_err2) under settings c:
 * the batch's words for X.npy's rows against res's tokens (--weights, an
 * example's weights), too many tokens with the kind's limit, else
 * av_strerror's. Valid until the next call. */
const char *session_error_line(Session *ss, const ModelConfig *c, int err);

/* Whether the last run found no tokens in cross-attention's keys/values
 * sentence (E edits it) while the query sentence has some. */
bool session_cross_empty(const Session *ss, const AppState *s);

/* What action a (typed: text typed while browsing, with a ACT_NONE) asks of
 * the kind, or KIND_ASK_COUNT when nothing a kind may refuse; *pe_view is
 * set when it opens the PE view (the next view from the heatmaps). */
KindAsk session_ask_of(const AppState *s, Action a, bool typed, bool *pe_view);

/* An input offered to the session before action_apply. First, when s
 * shows another layer than at the last input, the kind drops the pages of
 * the layer left (kind_release). M (ACT_MULTI_ROW) puts the selected query
 * row in or out of the rows summed together and says on the status line
 * their three largest keys in res. Otherwise (nothing while editing) what
 * the kind refuses is taken with its one-line reason in s->msg and nothing
 * run (the result stands); g on a kind that generates continues the
 * sentence (session_generate, with the query rows of the last good run),
 * APP_RUN added to *flags when it grew. Any other input goes to the
 * combining views (comb_input on ss->comb: A, O and V switch or are
 * refused; a key that needs the plain weights leaves a combining view
 * first, APP_RUN added, and is not taken). Returns 1 when taken, 0 when
 * action_apply should have it, AV_ERR_NOMEM; never quits. */
int session_input(Session *ss, AppState *s, Action a, bool typed, unsigned *flags);

/* g: the sentence continued by one token sampled with the kind's
 * temperature and top-k (the seed from s->cfg.seed and the count so far);
 * before is the number of query rows of the last good run. Sets s->text,
 * the selection and the status line ("+'piece'"); the session_update of
 * the run that follows (once it has run, on a thread too) says what the
 * run did: the tokens the text now reads as (the piece re-read with the
 * text may make other tokens than the one sampled), the rows taken from
 * the kind's cache and computed (kind_cost's, with its KV cache's rows and
 * bytes), and sets the cached rows for the marks. Returns APP_RUN when the
 * sentence grew, 0 when it did not (the reason in s->msg: the text fills
 * the model's context, nothing whole was sampled; out of memory sets
 * *nomem). */
unsigned session_generate(Session *ss, AppState *s, int before, bool *nomem);

/* After a run returned KIND_BUSY (the kind computes off the caller's
 * thread: Kind.background, set by session_init for a slow kind): whether
 * no forward runs any more. Then run again: the newest text's result is
 * filled from the cache. */
bool session_poll(Session *ss);

/* What the kind predicts after position pos (0-based) of s's sentence: its
 * k (at most SESSION_PREDICT_MAX) most probable next tokens under the
 * softmax of its logits at temperature 1 (the model's own distribution,
 * whatever what-if the attention shows), ties the smaller id first, each
 * with its display text. Returns AV_OK (p->n 0 when the kind has no
 * next-token distribution), AV_ERR_NOMEM or the kind's code (AV_ERR_CONFIG:
 * pos past the tokens); on error p->n is 0. */
int session_predict(Session *ss, const AppState *s, int pos, int k, SessionPredict *p);

/* Whether pred is the selected row's (s->sel_row) of the last run of res. */
bool session_predict_fresh(const Session *ss, const AppState *s);

/* pred asked again (session_predict, SESSION_PREDICT_MAX tokens, its code
 * in pred_err) unless fresh. Returns 1 when asked, 0 when fresh,
 * AV_ERR_NOMEM. */
int session_predict_update(Session *ss, const AppState *s);

#endif
