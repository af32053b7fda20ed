/* lesson.h - a lesson running in the interface: the current page, its
 * settings applied to the AppState, the question asked, the student's
 * prediction and the answer revealed beside it, computed from the result on
 * screen (io/lesson.h's lesson_answer), never read from the lesson; and the
 * list of built-in lessons to open one from. No curses: src/ui/ turns keys
 * into LessonInput and draws (view_lesson.c).
 */
#ifndef ATTNVIZ_APP_LESSON_H
#define ATTNVIZ_APP_LESSON_H

#include <stdbool.h>

#include "app/kind.h"
#include "io/lessonnote.h"
#include "app/state.h"
#include "core/model.h"
#include "io/lesson.h"
#include "train/netresult.h"
#include "io/lesson_answer.h"
#include "io/lesson_builtin.h"

typedef enum {
    LESSON_IN_NEXT,  /* the next page (PgDn, n) */
    LESSON_IN_PREV,  /* the previous page (PgUp, p) */
    LESSON_IN_LEAVE, /* Esc: one level out: what was opened over the page, the
                        prediction being made, then the lesson (or the list),
                        keeping the screen */
    LESSON_IN_ENTER, /* commit the prediction; once revealed, the next page */
    LESSON_IN_LEFT,  /* move the picked token or choice */
    LESSON_IN_RIGHT,
    LESSON_IN_UP, /* the list: move; a choice question: move */
    LESSON_IN_DOWN,
    LESSON_IN_BACKSPACE, /* a number question: delete the last character */
    LESSON_IN_CHAR,      /* arg: a printable ASCII character typed */
    LESSON_IN_FIRST,     /* the list: its first lesson (Home) */
    LESSON_IN_LAST,      /* the list: its last lesson (End) */
} LessonInput;

#define LESSON_TYPED_MAX 16

typedef struct {
    bool active; /* a lesson is open (its page shown over the view) */
    Lesson lesson;
    int page;
    bool resolve; /* the page's token and key wait for the next run's tokens */
    /* the question of the page */
    bool revealed;
    bool predicted;                   /* the student committed a prediction before the reveal */
    int pick;                         /* token question: key token; choice: choice index; -1 none */
    char typed[LESSON_TYPED_MAX + 1]; /* number question */
    bool have_answer;                 /* the answer could be computed on this result */
    LessonAnswer answer;
    char answer_text[96];
    bool correct;
    char problem[LESSON_PROBLEM_MAX]; /* why the page cannot show what it should, or "" */
    char stand_in[320]; /* "the page's model X was not found" while toy weights stand in, or "" */
    /* weights the page loaded from a folder */
    ModelWeights weights;
    bool have_weights;
    char weights_dir[4096];
    /* the model the page opened (model: DIR or a hub id), of any folder kind */
    Kind kind; /* when have_model and not borrowed */
    bool have_model;
    bool borrowed;        /* the page runs on host rather than on kind */
    char model_dir[4096]; /* the folder it was opened from */
    /* --model's folder (absolute), on which a lesson opened from the list
     * runs every page, as --lesson NAME --model DIR does; "" none */
    char use_model[4096];
    Kind *host;     /* the session's kind opened from use_model (the caller's:
                       a page of that folder runs on it), or NULL */
    int want_stage; /* the pipeline stage (1-8) whose page to open, 0 when done */
    /* the page's claims that are false on the result shown, when the page
     * runs on another model than its own (lesson_state_notes_update) */
    LessonNotes notes;
    int page_layer, page_head, page_row; /* where the page's text looks (its first run's) */
    /* the list of built-in lessons */
    bool list;
    int list_sel, list_n;
    char list_name[LESSON_MAX_BUILTIN][48];
    char list_title[LESSON_MAX_BUILTIN][96];
} LessonState;

/* Zero *ls; lesson_state_free releases what it holds (either way). */
void lesson_state_init(LessonState *ls);
void lesson_state_free(LessonState *ls);

/* Start lesson *l (taken over: *l is zeroed) at its first page: its
 * settings go into s. Returns action_apply's flags (APP_RUN | APP_WEIGHTS). */
unsigned lesson_state_start(LessonState *ls, Lesson *l, AppState *s);

/* Show page k (clamped): apply its settings to s, load its weights or
 * trained model folder (a missing one is a problem said on the page, toy
 * weights run instead), forget the prediction. Returns APP_RUN | APP_WEIGHTS. */
unsigned lesson_state_goto(LessonState *ls, AppState *s, int k);

/* The weights the page runs with, or NULL for the toy ones. */
const ModelWeights *lesson_state_weights(const LessonState *ls);

/* The page's model when it is attnviz's own trained kind (its cfg is the
 * AppState's), or NULL. */
NetModel *lesson_state_net(LessonState *ls);

/* The page's model as the kind that runs (app/kind.h: attnviz's own, a
 * GPT-2 or a BERT folder), or NULL. */
Kind *lesson_state_kind(LessonState *ls);

/* After each model run: the page's token and key by name become the
 * selection (once per page), and a revealed answer is computed again from
 * r, so it is always the screen's. r may hold no tokens (an error). */
void lesson_state_after_run(LessonState *ls, AppState *s, const ModelResult *r);

/* Apply an input; true when the lesson (or its list) took it, with the
 * flags for the caller in *flags. r is the result on screen (the reveal
 * computes from it). Inputs the lesson does not take go to action_apply. */
bool lesson_state_input(LessonState *ls, AppState *s, const ModelResult *r, LessonInput in, int arg,
                        unsigned *flags);

/* Every lesson opened from the list then runs on the model folder dir
 * (absolute; --model's), whose kind the caller has open as host (or NULL:
 * the pages open it). */
void lesson_state_use_model(LessonState *ls, const char *dir, Kind *host);

/* Open the list of built-in lessons (names and titles). Returns AV_OK or
 * AV_ERR_NOMEM; with no lesson found the list is empty and s->msg says so. */
int lesson_state_list_open(LessonState *ls, AppState *s);

/* The page shown, or NULL when no lesson is active. */
const LessonPage *lesson_state_page(const LessonState *ls);

/* Why the page's model is not the one running, when its model folder was
 * not found or could not be opened and toy weights stand in ("the page's
 * model DIR was not found"); NULL otherwise (no lesson, no such page). */
const char *lesson_state_stand_in(const LessonState *ls);

/* Predict, then see: while the page's question waits for its reveal, the
 * numbers that answer it are hidden. Whether the screen must hide them now
 * (a lesson active, its page asking, not yet revealed, and an answer that the
 * screen would show: a weight, score, dot product, output or PE value; not a
 * count such as visible keys or d_k). */
bool lesson_state_veiled(const LessonState *ls);

/* Whether the page shown asks for a count of kind k (d_k, cells, tokens)
 * and has not revealed it: the status and cost lines then write '?' for
 * that figure (and for the bytes the cells take), so the question is
 * worked out, not read off. */
bool lesson_state_hides(const LessonState *ls, LessonAnswerKind k);

/* With lesson_state_veiled: 1 + the first pipeline stage (PipelineStage)
 * that holds the answer (the raw scores for a dot product, the scaled ones
 * for a score, the weights, the output), for the pipeline view's veil; 0
 * when nothing is to be hidden. */
int lesson_state_veil_stage(const LessonState *ls);

/* Claim k (0-based) of the page shown, checked on r as the page shows it:
 * its selected token's row, its focused head and shown layer, the numbers
 * its question's answer is read from (io/lesson_claim.h). Returns
 * lesson_answer_claim's code; AV_ERR_CONFIG when there is no such claim or
 * r holds no tokens. lens is the logit lens of r's text the page shows, or
 * NULL (a claim that reads it then cannot be checked). */
int lesson_state_claim(const LessonState *ls, const AppState *s, const ModelResult *r,
                       const Lens *lens, int k, LessonClaimVerdict *v);

/* The page's claims checked again on r (lens: the logit lens of r the
 * page shows, or NULL), at the page's own layer, head and selected token
 * (those its first run had, whatever the student focuses since), when the
 * page runs on a model other than the one it was written for: --model's
 * (use_model), or toy weights standing in for its missing model or weights
 * folder. Under the page's own model the notes stay empty: its claims hold
 * there (attnviz --lesson --check). lesson_state_after_run calls it with no
 * lens; the caller again when the lens of r comes. */
void lesson_state_notes_update(LessonState *ls, const AppState *s, const ModelResult *r,
                               const Lens *lens);

/* The lines the page adds after its narration for its false claims, one
 * a claim, the first after a header ("On this model the text's numbers
 * differ: d_k is 12 (the text: 256)", then "dot(it, mat) is 2.202 (the
 * text: more than 100)"; a quantity the page's question asks for is named
 * without its value until the reveal), then "and N more of its claims"
 * past LESSON_NOTES_MAX; pointers into ls, at most max of them. Returns
 * how many (0: nothing to say). */
int lesson_state_notes(const LessonState *ls, const char **line, int max);

/* The question's prompt line for the student: "Pick a token with Left/Right,
 * then Enter", "Type a number, then Enter", ... */
const char *lesson_state_hint(const LessonState *ls);

#endif
