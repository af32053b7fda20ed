/* export.h - a model result to text, CSV, JSON, Markdown and .npy dumps.
 *
 * The text export draws each head with heatmap_draw into a Grid and prints
 * it: the same rendering as the interface. The others write the numbers.
 * Every function writes to a FILE* and returns AV_OK or AV_ERR_IO; the
 * caller makes the file atomic (fileio.h).
 */
#ifndef ATTNVIZ_EXPORT_H
#define ATTNVIZ_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "core/model.h"

typedef enum { EXPORT_TEXT, EXPORT_CSV, EXPORT_JSON, EXPORT_MD, EXPORT_TRACE } ExportFormat;

typedef struct {
    ExportFormat format;
    int head;    /* 0-based head, or -1 for all heads */
    int layer;   /* 0-based layer */
    int token;   /* 0-based query token, for the trace */
    bool color;  /* ANSI colour in the text export */
    int width;   /* columns for the text export (0 = 100) */
} ExportOptions;

/* Parse "text", "csv", "json", "md", "trace". Returns 0 or -1. */
int export_parse_format(const char *s, ExportFormat *f);

/* Write r in o->format to f. */
int export_write(FILE *f, const ModelResult *r, const ModelConfig *c, const ExportOptions *o);

/* One head as the text heatmap: title, heatmap, legend. */
int export_text_head(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h,
                     bool color, int width);

#endif
