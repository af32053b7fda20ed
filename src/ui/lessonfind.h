/* lessonfind.h - what the lesson checker finds wrong on one drawn frame of
 * a lesson page (lessonfind.c): the frame read as text rows, then the
 * checks a student's eye would make (the page shown, no error, the
 * narration whole, the picture drawn, what the page names drawn, the
 * answer not on screen before its reveal), and the checks of a page's
 * text alone. Private to src/ui/ (lessoncheck.c walks the pages).
 */
#ifndef ATTNVIZ_LESSONFIND_H
#define ATTNVIZ_LESSONFIND_H

#include <regex.h>
#include <stdbool.h>
#include <stdio.h>

#include "uistate.h"

/* A drawn frame as text: what a capture of the terminal would read. */
typedef struct {
    int w, h;
    char **row;      /* h rows of UTF-8 text, trailing blanks cut */
    Rect view, page; /* the view's and the lesson page's rectangles */
    int stages;      /* bit s: the pipeline's stage s+1 has its title drawn */
    int n_tiles;     /* small multiples drawn (one a head) */
    bool have_focus; /* a focused head's heatmap drawn */
} Shot;

typedef enum { SHOT_PAGE, SHOT_BEFORE, SHOT_PREDICTED, SHOT_REVEALED } ShotState;

enum {
    FIND_RE_ERROR,
    FIND_RE_CHOICE,
    FIND_RE_LEGEND,
    FIND_RE_HEAD,
    FIND_RE_LAYER,
    FIND_RE_STAGE,
    FIND_RE_EVERY_HEAD,
    FIND_RE_COUNT
};

/* Where findings go and the page they are about. */
typedef struct {
    FILE *out;
    const char *label; /* the lesson's file, as findings name it */
    int count;         /* findings so far */
    regex_t re[FIND_RE_COUNT];
    bool re_ok;
    /* the page: */
    const Lesson *l;
    int page; /* 0-based */
    int w, h; /* 0: a finding of the page's text, at every size */
} Finder;

/* Compile the patterns (AV_OK or AV_ERR_NOMEM); finder_free releases them. */
int finder_init(Finder *f, FILE *out, const char *label, const Lesson *l);
void finder_free(Finder *f);

/* One finding about f's page in state st: "LABEL:LINE: WxH page K (STATE): msg". */
void finder_say(Finder *f, ShotState st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Read g as u drew it (u->lay) into *s. Returns AV_OK or AV_ERR_NOMEM. */
int shot_take(Shot *s, const Grid *g, const UiState *u);
void shot_free(Shot *s);

/* What every frame of a page must show: its header and title, no error,
 * its narration (and question, and after the reveal the answer) whole,
 * its picture, and the heads, layers and stages its text names. */
void find_frame(Finder *f, ShotState st, const Shot *s, const UiState *u);

/* Whether the screen of s outside the lesson's page (the view, the top
 * lines, the status and cost lines) holds the extended regex fmt (case
 * ignored) made with the number v. */
bool shot_has(const Shot *s, const char *fmt, int v);

/* A row quoted in a finding: whitespace squashed, at most 72 bytes. */
const char *shot_quote(const char *row, char *buf, size_t size);

/* The text a student reads on page p: narration, question and, when
 * revealed, the explanation, joined into buf. */
void find_page_words(const Lesson *l, const LessonPage *p, bool revealed, char *buf, size_t size);

#endif
