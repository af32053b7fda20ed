/* lens.h - the logit lens (core/lens.h) as text and JSON: what
 * `--export lens` and `--export lens-json` write.
 *
 * The text is a grid of layers x positions drawn into a Grid (render/grid.h)
 * and printed by grid_write: each cell the top token of that layer's stream
 * at that position and its probability (the percentage on the heat ramp
 * when coloured); the row "input" holds the token at each position, whose
 * next token the column predicts. Positions run in blocks as wide as the
 * width allows. The JSON holds every cell's ten tokens. Tokens are written
 * as the screen shows them (name: app/kind.h's kind_token_text, passed in
 * so that the renderer names no kind). Single-threaded, no global state.
 */
#ifndef ATTNVIZ_RENDER_LENS_H
#define ATTNVIZ_RENDER_LENS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/lens.h"
#include "render/grid.h"

/* The display text of vocabulary entry id into out (NUL-terminated, at most
 * len bytes). */
typedef void (*LensName)(const void *ctx, int id, char *out, size_t len);

/* Columns of one position's cell, its gap included. */
#define LENS_CELL_W 13

/* Draw positions [first, first + count) of ls into g from row y: a header
 * row of positions, the input row, then layers 0 .. L. Returns the rows
 * used (ls->rows + 2). */
int lens_draw(Grid *g, int y, const Lens *ls, int first, int count, LensName name, const void *ctx);

/* The text export: a title line, then blocks of positions as wide as width
 * columns (0: 100) allows, each drawn by lens_draw; ANSI colours when color.
 * Returns AV_OK, AV_ERR_IO or AV_ERR_NOMEM. */
int lens_export_text(FILE *f, const Lens *ls, LensName name, const void *ctx, int width,
                     bool color);

/* The JSON export: {"k": K, "layers": L, "tokens": [...], "token_ids":
 * [...], "lens": [[{"ids": [...], "tokens": [...], "probs": [...]}, ...]
 * for each position] for each layer 0 .. L}. Returns AV_OK or AV_ERR_IO. */
int lens_export_json(FILE *f, const Lens *ls, LensName name, const void *ctx);

#endif
