/* html.h - one self-contained HTML page of every layer and head of a result.
 *
 * Inline CSS and JavaScript (assets/export/view.css and view.js, compiled in),
 * no network, no other file: it opens from file://. The page shows the heads
 * of a layer as small multiples, a focused head, the bars of a token's row and
 * a cell's weight and raw score; the URL fragment #layer=L&head=H&token=T&key=K
 * (1-based, each optional) selects the view. Without JavaScript it shows the
 * focused head as inline SVG (svg.h).
 *
 * Data: each head as svg_matrix draws it (long texts pooled), only the cells
 * a row sees, as little-endian uint16 round(w * 65534) (65535: a masked pooled
 * cell), base64; raw scores (when the result kept them and nothing is pooled)
 * as IEEE half floats, likewise, while both stay within HTML_DATA_BUDGET.
 * About 2.7 bytes a visible cell, 5.4 with scores. Single-threaded.
 */
#ifndef ATTNVIZ_HTML_H
#define ATTNVIZ_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "core/model.h"
#include "render/svg.h"

#define HTML_WEIGHT_SCALE 65534.0 /* a weight w is stored as round(w * this) */
#define HTML_MASKED 65535u
/* Bytes of base64 the weights and scores may take together: past it the
 * scores are left out (12 x 12 heads of 64 tokens: 1.6 MB causal, 3.1 MB
 * not), the weights never. */
#define HTML_DATA_BUDGET (1.9 * 1000 * 1000)

/* Write the page of r: focus on head (0-based) of layer. Returns AV_OK,
 * AV_ERR_NOMEM or AV_ERR_IO. */
int html_write(FILE *f, const ModelResult *r, const ModelConfig *c, int layer, int head,
               const SvgOptions *o);

/* float to IEEE 754 binary16, rounded to nearest even (overflow: infinity). */
uint16_t html_half(float x);

/* n bytes as base64 (RFC 4648, padded) to f. */
void html_base64(FILE *f, const unsigned char *p, size_t n);

#endif
