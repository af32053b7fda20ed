/* svg.h - heatmaps as SVG 1.1 for slides and papers, and the pieces the HTML
 * export shares with it (render/html.h).
 *
 * What is drawn is what the screen shows: the same colour levels
 * (heatmap_level: floor(16 sqrt(w))), the same pooling of long texts (each
 * cell the largest weight of the tokens it covers, POOL_MAX), the same labels
 * and masked cells hatched. The sixteen colours are a perceptual ramp of the
 * screen's hues (dark blue, teal, green, yellow) whose lightness rises at
 * every level, so the levels stay apart in greyscale print and for
 * colour-blind readers, which the 256-colour cube of the terminal cannot do;
 * mono is a grey ramp from white to near black. Text is <text>, escaped; no
 * external reference; a viewBox, so the picture scales. Single-threaded.
 */
#ifndef ATTNVIZ_SVG_H
#define ATTNVIZ_SVG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/model.h"

/* A head of more rows or columns than this is pooled to this many cells. */
#define SVG_POOL_CELLS 80

/* One heatmap of a picture: head h of layer l of r, and its caption (NULL:
 * "Head h: label"). */
typedef struct {
    const ModelResult *r;
    int layer, head;
    const char *caption;
} SvgPanel;

typedef struct {
    bool mono;          /* the grey ramp */
    const char *source; /* the model folder, weights folder or attention file named in
                           the title; NULL: the preset's name */
    bool inline_svg;    /* no XML declaration: an <svg> inside an HTML page */
    const char *id;     /* prefix of the ids of cells and patterns (NULL: "") */
} SvgOptions;

/* A head as the cells drawn: the weights themselves (P borrowed, masked by
 * the causal rule) or pooled (P owned, POOL_MASKED cells masked), with a
 * label a row and a column: the tokens, or "a-b" token ranges when pooled. */
typedef struct {
    const float *P; /* rows x cols, row-major */
    int rows, cols;
    bool pooled, causal;
    const char **row_labels, **col_labels;
    float *own;   /* pooled cells, freed by svg_matrix_free */
    char *labbuf; /* range labels */
} SvgMatrix;

/* Head h of layer l of r as the screen would draw it. Returns AV_OK or
 * AV_ERR_NOMEM. */
int svg_matrix(const ModelResult *r, int layer, int h, SvgMatrix *m);
void svg_matrix_free(SvgMatrix *m);
/* Whether cell (i, j) of m is masked. */
bool svg_matrix_masked(const SvgMatrix *m, int i, int j);

/* The colour 0xRRGGBB of colour level 0..GRID_LEVELS-1, and of the text
 * written on it (black or white, whichever reads). */
uint32_t svg_ramp_rgb(int level, bool mono);
uint32_t svg_ramp_text_rgb(int level, bool mono);

/* s as XML character data or attribute value: & < > " ' as entities, C0
 * controls and DEL as their visible control pictures (U+2400...), bytes that
 * are not UTF-8 and code points XML 1.0 forbids as U+FFFD. At most max_chars
 * code points (0: all), an ellipsis after a cut. */
void svg_escape(FILE *f, const char *s, int max_chars);

/* Text s on one line, escaped as svg_escape: its runs of white space as one
 * space, at most left code points, cut after a word when it is longer (an
 * ellipsis after the cut). Returns the code points written (left + 1 after a
 * cut). */
int svg_one_line(FILE *f, const char *s, int left);

/* The name an export gives the folder or file it read, never a local path:
 * its last component ("/home/a/models/gpt2/" -> "gpt2", a hub id
 * "openai-community/gpt2" -> "gpt2"), or for a Hugging Face cache snapshot
 * (".../models--ORG--NAME/snapshots/HASH") the hub id "ORG/NAME". Written
 * NUL-terminated into out (cut to size). */
void svg_source_name(const char *path, char *out, size_t size);

/* The settings of a view in one line: "model or preset; mask; scaling;
 * temperature" (no sentence, no head); source is named by svg_source_name. */
void svg_settings(const ModelResult *r, const ModelConfig *c, const char *source, char *buf,
                  size_t size);

/* svg_settings with the mask said as mask says ("off (left), causal
 * (right)"), NULL: r's own. */
void svg_settings_mask(const ModelResult *r, const ModelConfig *c, const char *source,
                       const char *mask, char *buf, size_t size);

/* Write the panels as one SVG picture: the title (sentence, settings, layer,
 * head), each panel's heatmap (values in the cells when they fit), the
 * colour bar with its scale. Returns AV_OK, AV_ERR_NOMEM or AV_ERR_IO. */
int svg_write(FILE *f, const ModelConfig *c, const SvgPanel *p, int n, const SvgOptions *o);

#endif
