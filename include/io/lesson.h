/* lesson.h - the plain-text lesson format: a lesson is a title and a list of
 * pages; each page sets what the screen shows, narrates, and may ask a
 * question whose answer is computed from the model on screen (never written
 * in the file). README "Teaching with attnviz" documents the format for
 * teachers; in short:
 *
 *   # a comment
 *   title: Cat eats fish, by hand           (required, before the first page)
 *   summary: seed 001's worked example       (optional)
 *
 *   == Step 1: a query meets the keys        (a page and its title)
 *   sentence: Cat eats fish                  (settings: "name: value")
 *   weights: assets/seed001
 *   d-model: 4
 *   view: pipeline                           (a name of io/views.h's table; stage:
 *                                             scores for its page,
 *                                             stage: scores-scaled for two together)
 *   ...
 *   Narration is every other line; a blank line ends a paragraph.
 *   ask: Which key will "Cat" attend to most? (the question)
 *   answer: top                              (what the answer is, computed live)
 *   choice: Cat                              (optional: 2 to 9 choices)
 *   explain: shown after the reveal
 *   claim: top(Cat) == fish                  (what the narration says of the
 *                                             numbers, checked: io/lesson_claim.h)
 *
 * A page starts from the settings of the page before it (the first from
 * lesson_settings_default), so a page names only what changes. A setting
 * name is lower case; a line "name: value" whose name is lower-case letters
 * and '-' but not a setting is an error (a typo must not become narration);
 * a narration line may start with '\' to be taken literally.
 *
 * Parsing checks every value (ranges, heads dividing d_model, on/off words,
 * the answer's form) and reports the first problem with its 1-based line.
 * Paths (weights, model) are checked when a page is shown, not here.
 */
#ifndef ATTNVIZ_LESSON_H
#define ATTNVIZ_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/model.h"
#include "io/lesson_claim.h"
#include "io/lesson_kind.h"
#include "io/views.h"

#define LESSON_MAX_BYTES (256 * 1024) /* a lesson file */
#define LESSON_MAX_PAGES 200
#define LESSON_MAX_CHOICES 9

/* The room for a page's problem, one or two sentences for the reader
 * (a model folder not there, where it was looked for). */
#define LESSON_PROBLEM_MAX 768

typedef enum { LESSON_ASK_NONE, LESSON_ASK_TOKEN, LESSON_ASK_CHOICE, LESSON_ASK_NUMBER } LessonAsk;

typedef struct {
    LessonAsk kind;   /* LESSON_ASK_NONE: the page asks nothing */
    const char *text; /* the question */
    LessonAnswerKind answer;
    LessonTokenRef key; /* for weight, score, dot */
    int arg1, arg2;     /* output: D; pe: pos, dim */
    double tolerance;   /* a typed number within it is right; < 0: the default */
    const char *choices[LESSON_MAX_CHOICES];
    int n_choices;
    int explain_first, n_explain; /* lines of Lesson.lines shown after the reveal */
} LessonQuestion;

/* What a page shows: every field resolved (a page inherits the one before). */
typedef struct {
    const char *sentence; /* NULL: the first example sentence */
    const char *cross;    /* second sentence (cross-attention), or NULL */
    const char *weights;  /* a --weights folder as written, or NULL: toy weights */
    const char *model;    /* a trained model folder as written, or NULL */
    ModelPreset preset;   /* PRESET_RANDOM or PRESET_DESIGNED (weights set: LOADED) */
    int d_model, H, layers;
    int layer;              /* 1-based; 0: the last */
    int head;               /* 1-based focused head */
    const char *head_label; /* or the head whose label holds this text ("induction",
                               "pronoun"), found when the page runs; else NULL */
    LessonTokenRef token;   /* the selected query token (index 0, text NULL: none) */
    LessonTokenRef key;     /* the inspected key (cell), or none */
    uint64_t seed;
    bool causal, pe, scale;
    float temperature;
    ViewId view; /* by its name in views.h's table */
    int stage;   /* the pipeline stage (1-8) whose page the view opens, 0: the first */
    /* the last stage its text speaks of (stage: 4-5), shown on that page */
    int stage_last;
    /* plot: similarity - the PE view's picture, where the screen is too short
     * for the line plots and the similarity both, is the similarity (plot:
     * lines, the default: the line plots) */
    bool pe_similarity;
} LessonSettings;

typedef struct {
    const char *title;
    int line; /* where its "==" is, for messages */
    LessonSettings set;
    int text_first, n_text; /* narration: lines of Lesson.lines; "" ends a paragraph */
    LessonQuestion q;
    int claim_first, n_claims; /* its claims: Lesson.claims[claim_first ..] */
} LessonPage;

typedef struct {
    const char *title;
    const char *summary; /* or "" */
    const char *name;    /* the lesson's name (given by the caller), owned */
    const char *dir;     /* folder relative paths are read from ("" = as written), owned */
    LessonPage *pages;
    int n_pages;
    const char **lines; /* narration and explanation lines, pointing into buf */
    int n_lines;
    LessonClaim *claims; /* every page's claims, in the file's order */
    int n_claims;
    char *buf;   /* a copy of the file: every string above points into it */
    char *model; /* the model every page runs instead of its own
                    (lesson_use_model: --lesson NAME --model DIR), owned, or NULL */
} Lesson;

typedef struct {
    int line;      /* 1-based line at fault (0: the file as a whole) */
    char msg[200]; /* what is wrong, one line, no file name */
} LessonError;

/* The settings of a lesson's first page before it changes any: DESIGN.md's
 * defaults (4 heads, d_model 32, seed 42, PE and scaling on, no mask). */
void lesson_settings_default(LessonSettings *s);

/* Parse data[0..len) (need not be NUL-terminated) into *out, zeroed first.
 * name (e.g. "softmax") and dir (the folder relative paths are taken from,
 * "" for as written) are copied. Returns AV_OK, AV_ERR_LESSON with *err
 * filled (the line and what is wrong), or AV_ERR_NOMEM. On error *out holds
 * nothing (lesson_free is still allowed). */
int lesson_parse(const char *data, size_t len, const char *name, const char *dir, Lesson *out,
                 LessonError *err);

void lesson_free(Lesson *l);

#endif
