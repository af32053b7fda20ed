/* pipeline.h - one head's calculation drawn stage by stage: Q_h, K_h, V_h
 * (tokens x d_k), the raw scores Q_h K_h^T, the scores divided by sqrt(d_k)
 * (and the temperature), the masked scores, the softmax weights and the
 * head's output P_h V_h, each its own labelled heatmap in a Grid.
 *
 * Signed matrices use STYLE_DIVERGE levels (GRID_LEVELS/2 is zero) over the
 * stage's own range (the raw, scaled and masked scores over one range, the
 * larger, so that the division by sqrt(d_k) shows), the weights STYLE_HEAT as the attention
 * heatmap; values are written in cells wide enough to hold them; the selected query row is flagged
 * CELL_SELECTED and marked '>' in every stage whose rows are queries (the selected key's row in K_h
 * and V_h). Stages flow left to right and top to bottom; what does not fit the rectangle goes on
 * further pages. Cells are as wide as values need where the scores then fit across (on a projector:
 * fewer stages a page, each with its numbers), colour only where not.
 * Pure functions of their arguments; no terminal.
 */
#ifndef ATTNVIZ_PIPELINE_H
#define ATTNVIZ_PIPELINE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/model.h"
#include "render/grid.h"

typedef enum {
    PIPE_Q,
    PIPE_K,
    PIPE_V,
    PIPE_RAW,
    PIPE_SCALED,
    PIPE_MASKED,
    PIPE_WEIGHTS,
    PIPE_OUT,
    PIPE_STAGES
} PipelineStage;

/* One head's stages, copied out of a result into one allocation. */
typedef struct {
    int n_q, n_k, d_k, d_model, h, layer;
    float factor; /* raw scores are multiplied by this: 1/sqrt(d_k) / temperature */
    float temperature;
    bool scaled; /* the 1/sqrt(d_k) is on */
    bool causal;
    bool bias;        /* Q, K, V include a bias (r->qkv_bias): "X W_q + b_q" */
    float *Q, *K, *V; /* (n_q, d_k), (n_k, d_k), (n_k, d_k): head h's columns */
    float *raw;       /* (n_q, n_k) Q_h K_h^T */
    float *scaled_s;  /* (n_q, n_k) raw * factor */
    float *masked;    /* (n_q, n_k) scaled_s with -INFINITY where the mask hides */
    float *P;         /* (n_q, n_k) the model's weights: softmax of masked */
    float *O;         /* (n_q, d_k) the model's head output P V_h */
    float *arena;
} PipelineData;

/* Copy head h of layer (both 0-based) of r into *d and compute the raw,
 * scaled and masked scores (through mat_sgemm). Returns AV_OK,
 * AV_ERR_CONFIG (head or layer out of range, or an empty result),
 * AV_ERR_TOO_LARGE (a lazy result: its weights are not kept),
 * AV_ERR_NEEDS_MODEL (the layer has no vectors: model_has_vectors) or
 * AV_ERR_NOMEM. *d is zeroed first; pipeline_free accepts it either way. */
int pipeline_compute(const ModelResult *r, int layer, int h, PipelineData *d);

void pipeline_free(PipelineData *d);

/* The matrix of a stage, its rows and columns. */
const float *pipeline_stage(const PipelineData *d, PipelineStage s, int *rows, int *cols);

/* The stage's title: "1 Q_h = X W_q: queries" ("X W_q + b_q" when d->bias),
 * "5 ÷ sqrt(d_k) = sqrt(8) = 2.83", ... */
void pipeline_stage_title(const PipelineData *d, PipelineStage s, char *buf, size_t size);

typedef struct {
    const PipelineData *d;
    const char *const *row_labels; /* n_q query tokens */
    const char *const *col_labels; /* n_k key tokens */
    int sel_row;                   /* the selected query token, or -1 */
    int sel_col;                   /* the selected key token, or -1 */
    bool glyphs;                   /* monochrome: glyphs and numbers, no colour levels */
    int page;                      /* 0-based page to draw (clamped) */
    int cell_w;                    /* columns per cell, 0: chosen (fewest pages, then widest) */
    int veil;                      /* 1 + the first stage drawn without its values (a question
                                      waits for the student's prediction), 0: every stage shown */
    int lead;                      /* 1 + a stage that opens its page (the one a lesson's page
                                      speaks of, with those after it), 0: none */
    /* 1 + the last stage the page speaks of (lead .. lead_last share a page
     * where any cell width lets them), 0: lead alone */
    int lead_last;
} PipelineSpec;

/* Draw page sp->page of the stages into g at (x, y), at most w x h.
 * Returns the number of pages (at least 1); *page_out, when not NULL, gets
 * the page drawn. */
int pipeline_draw(Grid *g, int x, int y, int w, int h, const PipelineSpec *sp, int *page_out);

/* The page (0-based) pipeline_draw would show stage on, for the same spec
 * and rectangle: a lesson that talks about the scores opens their page. */
int pipeline_page_of(const PipelineSpec *sp, int w, int h, PipelineStage stage);

/* Head h of layer as text on one page of width columns (0 = 100): the
 * title, every stage, values where they fit; query row sel (0-based, or -1)
 * marked. With color, ANSI colour. Returns AV_OK, AV_ERR_IO, or an error of
 * pipeline_compute. */
int pipeline_write(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int h, int sel,
                   bool color, int width);

#endif
