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

#include "model.h"

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

/* The calculation trace of query token i (0-based) in head h of a layer:
 * seed 001's five steps with the sentence's numbers. */
int export_trace(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h, int i);

/* --dump DIR: tokens.txt, X.npy (after PE), Q.npy, K.npy, V.npy, scores.npy
 * (H, n, n), weights.npy (H, n, n), output.npy (n, d_model), heads.txt; with
 * L > 1 also layerN/ with each layer's files. The folder is created when
 * missing. Returns AV_OK or AV_ERR_IO; *which names the file at fault, or is
 * NULL when a folder could not be made. */
int export_dump(const char *dir, const ModelResult *r, const ModelConfig *c,
                const char **which);

#endif
