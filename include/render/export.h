/* export.h - a model result to text, CSV, JSON, Markdown and .npy dumps.
 *
 * The text export draws each head with heatmap_draw into a Grid and prints
 * it: the same rendering as the interface. The others write the numbers.
 * Every function writes to a FILE* and returns AV_OK or an AV_ERR_* code (see
 * each); the caller makes the file atomic (fileio.h). Single-threaded.
 */
#ifndef ATTNVIZ_EXPORT_H
#define ATTNVIZ_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/model.h"

typedef enum {
    EXPORT_TEXT,
    EXPORT_CSV,
    EXPORT_JSON,
    EXPORT_MD,
    EXPORT_TRACE,
    EXPORT_PIPELINE, /* every stage of a head as text (render/pipeline.h) */
    EXPORT_SVG,      /* the heatmaps as an SVG picture (render/svg.h) */
    EXPORT_HTML,     /* one self-contained page of every layer and head (render/html.h) */
} ExportFormat;

typedef struct {
    ExportFormat format;
    int head;           /* 0-based head, or -1 for all heads */
    int layer;          /* 0-based layer */
    int token;          /* 0-based query token, for the trace */
    bool color;         /* ANSI colour in the text export */
    int width;          /* columns for the text export (0 = 100) */
    bool numbers;       /* text: each cell's percentage written, as on screen */
    bool sentence;      /* text: begin with the sentence(s) the heatmaps belong to */
    bool mono;          /* SVG and HTML: the grey ramp (--color never) */
    const char *source; /* SVG and HTML: the model folder or file named in the title */
} ExportOptions;

/* Parse "text", "csv", "json", "md", "trace", "pipeline", "svg", "html".
 * Returns 0 or -1. */
int export_parse_format(const char *s, ExportFormat *f);

/* Write r in o->format to f. Returns AV_OK, AV_ERR_IO (writing failed),
 * AV_ERR_NOMEM, AV_ERR_CONFIG (a trace token out of range),
 * AV_ERR_TOO_LARGE (CSV, JSON or Markdown of a result too long to keep its
 * weights: every weight is more than a file should hold; a pipeline of a
 * lazy result) or AV_ERR_NEEDS_MODEL (a trace or pipeline of a result
 * without vectors: imported attention, a weights_only run). SVG and HTML
 * pool a long text as the screen does (svg.h). */
int export_write(FILE *f, const ModelResult *r, const ModelConfig *c, const ExportOptions *o);

/* One head as the text heatmap: title, heatmap, legend; pooled when the
 * text is wider than width - 20 tokens or longer than 400 (the weights are
 * then computed block by block when the result is lazy). Returns AV_OK,
 * AV_ERR_IO or AV_ERR_NOMEM. */
int export_text_head(FILE *f, const ModelResult *r, const ModelConfig *c, int h,
                     const ExportOptions *o);

/* s as a JSON string of the JSON exports: quotes, '"' and '\\' escaped,
 * control bytes as \u00XX, other bytes as they are (tokens are UTF-8). */
void export_json_string(FILE *f, const char *s);

#endif
