/* lens.c - the logit lens as a text grid and as JSON (render/lens.h). */
#include "render/lens.h"

#include <stdio.h>

#include "core/av.h"
#include "render/export.h"

#define LABEL_W 9 /* "layer 12 " */
#define NAME_MAX_BYTES 160

/* A token's text, or nothing for an id past a small vocabulary (-1). */
static void token_name(int id, LensName name, const void *ctx, char *out, size_t len)
{
    out[0] = 0;
    if (id >= 0)
        name(ctx, id, out, len);
}

int lens_draw(Grid *g, int y, const Lens *ls, int first, int count, LensName name, const void *ctx)
{
    char buf[NAME_MAX_BYTES];
    grid_puts(g, 0, y, "position", LABEL_W - 1, STYLE_DIM);
    grid_puts(g, 0, y + 1, "input", LABEL_W - 1, STYLE_DIM);
    for (int l = 0; l < ls->rows; l++)
        grid_printf(g, 0, y + 2 + l, LABEL_W - 1, STYLE_DIM, "layer %d", l);
    for (int c = 0; c < count; c++) {
        const int i = first + c, x = LABEL_W + c * LENS_CELL_W;
        grid_printf(g, x, y, LENS_CELL_W - 1, STYLE_DIM, "%d", i + 1);
        token_name(ls->tok[i], name, ctx, buf, sizeof buf);
        grid_puts(g, x, y + 1, buf, LENS_CELL_W - 1, STYLE_LABEL);
        for (int l = 0; l < ls->rows; l++) {
            const size_t at = lens_at(ls, l, i);
            const float p = ls->probs[at];
            token_name(ls->ids[at], name, ctx, buf, sizeof buf);
            grid_puts(g, x, y + 2 + l, buf, LENS_CELL_W - 6, STYLE_TEXT);
            int level = (int)(p * (GRID_LEVELS - 1) + 0.5f);
            grid_printf(g, x + LENS_CELL_W - 5, y + 2 + l, 4, STYLE_HEAT, "%3.0f%%",
                        (double)p * 100);
            for (int k = 0; k < 4; k++) {
                Cell *cell = grid_at(g, x + LENS_CELL_W - 5 + k, y + 2 + l);
                if (cell)
                    cell->level = (uint8_t)level;
            }
        }
    }
    return ls->rows + 2;
}

int lens_export_text(FILE *f, const Lens *ls, LensName name, const void *ctx, int width, bool color)
{
    width = width > 0 ? width : 100;
    int per = (width - LABEL_W) / LENS_CELL_W;
    per = per < 1 ? 1 : per;
    const int blocks = (ls->n + per - 1) / per, h = 2 + blocks * (ls->rows + 3);
    Grid g;
    const int cells_w = LABEL_W + per * LENS_CELL_W;
    if (grid_init(&g, width > cells_w ? width : cells_w, h) != AV_OK)
        return AV_ERR_NOMEM;
    grid_printf(&g, 0, 0, g.w, STYLE_TITLE,
                "Logit lens: each layer's likeliest next token (0: the embeddings, %d: the "
                "output)",
                ls->rows - 1);
    int y = 2;
    for (int b = 0; b < blocks; b++) {
        const int first = b * per, count = ls->n - first < per ? ls->n - first : per;
        y += lens_draw(&g, y, ls, first, count, name, ctx) + 1;
    }
    int rc = grid_write(&g, f, color);
    grid_free(&g);
    return rc != 0 || ferror(f) ? AV_ERR_IO : AV_OK;
}

/* One cell: {"ids": [...], "tokens": [...], "probs": [...]}. */
static void json_cell(FILE *f, const Lens *ls, int l, int i, LensName name, const void *ctx)
{
    char buf[NAME_MAX_BYTES];
    const size_t at = lens_at(ls, l, i);
    fputs("{\"ids\": [", f);
    for (int q = 0; q < LENS_K; q++)
        fprintf(f, "%s%d", q ? ", " : "", ls->ids[at + q]);
    fputs("], \"tokens\": [", f);
    for (int q = 0; q < LENS_K; q++) {
        token_name(ls->ids[at + q], name, ctx, buf, sizeof buf);
        fputs(q ? ", " : "", f);
        export_json_string(f, buf);
    }
    fputs("], \"probs\": [", f);
    for (int q = 0; q < LENS_K; q++)
        fprintf(f, "%s%.9g", q ? ", " : "", (double)ls->probs[at + q]);
    fputs("]}", f);
}

int lens_export_json(FILE *f, const Lens *ls, LensName name, const void *ctx)
{
    char buf[NAME_MAX_BYTES];
    fprintf(f, "{\n  \"k\": %d,\n  \"layers\": %d,\n  \"tokens\": [", LENS_K, ls->rows - 1);
    for (int i = 0; i < ls->n; i++) {
        token_name(ls->tok[i], name, ctx, buf, sizeof buf);
        fputs(i ? ", " : "", f);
        export_json_string(f, buf);
    }
    fputs("],\n  \"token_ids\": [", f);
    for (int i = 0; i < ls->n; i++)
        fprintf(f, "%s%d", i ? ", " : "", ls->tok[i]);
    fputs("],\n  \"lens\": [\n", f);
    for (int l = 0; l < ls->rows; l++) {
        fputs("    [\n", f);
        for (int i = 0; i < ls->n; i++) {
            fputs("      ", f);
            json_cell(f, ls, l, i, name, ctx);
            fputs(i + 1 < ls->n ? ",\n" : "\n", f);
        }
        fprintf(f, "    ]%s\n", l + 1 < ls->rows ? "," : "");
    }
    fputs("  ]\n}\n", f);
    return ferror(f) ? AV_ERR_IO : AV_OK;
}
