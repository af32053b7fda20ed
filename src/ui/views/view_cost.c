/* view_cost.c - the cost line over the status line: what the text costs
 * (n, n², the weights' bytes, the FLOPs, the run's time) and what twice as
 * many tokens would, or a kind's own (a GPT-2's KV cache), each in the
 * fullest of its forms that fits the screen's width.
 */
#include "view_cost.h"

#include <stdio.h>
#include <string.h>

#include "../widgets.h"

/* A size in B, KiB, MiB or GiB. */
static void fmt_bytes(double b, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int k = 0;
    while (b >= 1024 && k < 4)
        b /= 1024, k++;
    snprintf(buf, size, k ? "%.1f %s" : "%.0f %s", b, units[k]);
}

static void fmt_count(double v, char *buf, size_t size)
{
    static const char *const units[] = {"", "k", "M", "G", "T"};
    int k = 0;
    while (v >= 1000 && k < 4)
        v /= 1000, k++;
    snprintf(buf, size, k ? "%.1f%s" : "%.0f%s", v, units[k]);
}

/* The KV cache's part of a kind's cost line, in form 0 (words), 1 (short)
 * or 2 (the total alone); "" for a kind without a cache. */
static void kv_part(const KindCost *kc, int form, char *out, size_t len)
{
    char tok[16], now[16], ctx[16];
    out[0] = 0;
    if (!(kc->kv_token > 0))
        return;
    fmt_bytes(kc->kv_token, tok, sizeof tok);
    fmt_bytes(kc->kv_now, now, sizeof now);
    fmt_bytes(kc->kv_context, ctx, sizeof ctx);
    const int n_ctx = (int)(kc->kv_context / kc->kv_token + 0.5);
    if (form == 0)
        snprintf(out, len, " | KV cache %s a token: %s now, %s at %d", tok, now, ctx, n_ctx);
    else if (form == 1)
        snprintf(out, len, " | KV %s/token: %s, %s at %d", tok, now, ctx, n_ctx);
    else
        snprintf(out, len, " | KV %s", now);
}

/* A kind's cost line (a GPT-2's KV cache): the forward's FLOPs, its rows
 * computed and cached, the KV cache's bytes (a token's, the text's, the
 * context's), the time. When the line is wider than the terminal the
 * weights' bytes go first, then the KV cache's words, "run" (or "on a"),
 * "forward", "rows", the KV cache but its total ("rows" back), the rest
 * of the KV cache: at 80 columns the time and its unit stay on screen. */
/* The time as the cost lines write it into t, and into fixed a field as
 * wide whatever the digits ("0.473", "12.3", "1234.5": 6 columns), for
 * choosing a line's form: a form picked by the time's own width would
 * change (drop "run") as the time's digits do from one key to the next. */
#define TIME_W 6
static void time_fields(int digits, double ms, char t[24], char fixed[24])
{
    snprintf(t, 24, "%.*f", digits, ms);
    int len = (int)strlen(t);
    snprintf(fixed, 24, "%.*s", len > TIME_W ? len : TIME_W, "000000000000000000000");
}

static void draw_kind_cost(Grid *g, int y, const KindCost *kc, const char *n, const char *b_w,
                           int digits, double ms)
{
    /* per tier: forward's words (0 all, 1 no "forward", 2 nor "rows"), KV form, "run"/"on a",
     * the weights */
    static const struct {
        char fl, kv, run, weights;
    } tiers[] = {{0, 0, 1, 1}, {0, 0, 1, 0}, {0, 1, 1, 0}, {0, 1, 0, 0}, {1, 1, 0, 0},
                 {2, 1, 0, 0}, {1, 2, 0, 0}, {2, 2, 0, 0}, {2, 3, 0, 0}};
    char b_fl[16], b_whole[16], line[320], weights[48], kv[128];
    fmt_count(kc->flops, b_fl, sizeof b_fl);
    fmt_count(kc->whole, b_whole, sizeof b_whole);
    snprintf(weights, sizeof weights, " | weights %s", b_w);
    char tm[2][24];
    time_fields(digits, ms, tm[0], tm[1]);
    for (size_t t = 0; t < sizeof tiers / sizeof tiers[0]; t++) {
        const char *how =
            kc->ms > 0 ? (tiers[t].run ? "on a thread " : "thread ") : (tiers[t].run ? "run " : "");
        kv_part(kc, tiers[t].kv, kv, sizeof kv);
        if (tiers[t].kv > 2)
            kv[0] = 0;
        bool fits = false;
        for (int k = 1; k >= 0; k--) { /* measured with the fixed field, drawn with the time */
            snprintf(line, sizeof line,
                     "Cost: n %s | %s%s of %s FLOP: %d %s%s, %d cached%s | %s%s ms%s", n,
                     tiers[t].fl == 0 ? "forward " : "", b_fl, b_whole, kc->computed,
                     tiers[t].fl < 2 ? (kc->computed == 1 ? "row " : "rows ") : "", "computed",
                     kc->cached, kv, how, tm[k], tiers[t].weights ? weights : "");
            fits = k ? grid_text_width(line) <= g->w : fits;
        }
        if (fits)
            break;
    }
    grid_puts(g, 0, y, line, g->w, STYLE_TEXT);
}

/* The fullest cost line that fits w columns: where it does not, the
 * doubling's words go first ("->", the weights' x4 said with n²'s), then
 * "run", the doubling's FLOPs, the weights' bytes, the doubling. */
void view_cost_line(const CostParts *c, int w, char *line, size_t len)
{
    /* per tier: the weights' bytes, the time's words (0 full), the doubling (0 full, 4 none) */
    static const struct {
        char bytes, how, dbl;
    } tiers[] = {{1, 0, 0}, {1, 0, 1}, {1, 1, 1}, {1, 1, 2},
                 {1, 1, 3}, {0, 1, 2}, {0, 1, 3}, {0, 1, 4}};
    static const char *const dbl[] = {" | x2 tokens -> n\u00b2 x4, weights x4",
                                      " | x2 tokens: n\u00b2, weights x4",
                                      " | x2 tokens: n\u00b2 x4", " | x2 tokens: n\u00b2 x4", ""};
    char tm[2][24];
    time_fields(c->digits, c->ms, tm[0], tm[1]);
    for (size_t t = 0; t < sizeof tiers / sizeof tiers[0]; t++) {
        char grow[24] = "", bytes[48] = "", flop[40] = "";
        int d = tiers[t].dbl;
        if (c->grow > 0 && d < 3)
            snprintf(grow, sizeof grow, ", FLOPs x%.1f", c->grow);
        if (tiers[t].bytes)
            snprintf(bytes, sizeof bytes, " | weights %s", c->bytes);
        if (c->flop)
            snprintf(flop, sizeof flop, " | %s", c->flop);
        bool fits = false;
        for (int k = 1; k >= 0; k--) { /* measured with the fixed field, drawn with the time */
            snprintf(line, len, "Cost: n %s | n\u00b2 %s%s%s | %s%s ms%s%s%s", c->n, c->nn, bytes,
                     flop, c->how[(int)tiers[t].how], tm[k], c->after, dbl[d], grow);
            fits = k ? grid_text_width(line) <= w : fits;
        }
        if (fits)
            return;
    }
}

/* What the text costs, and what twice as many tokens would: n^2 grows 4x.
 * FLOPs are a whole forward's, the model's cost; the time is the run's,
 * which on the heatmaps stops at the weights (said so). Imported attention
 * was computed elsewhere: no FLOPs, the time is reading it. */
void view_cost_draw(const UiState *u, Grid *g, int y)
{
    const AppState *s = &u->a.app;
    if (u->a.ses.computing) {
        grid_puts(g, 0, y,
                  "Cost: computing\u2026 the newest text runs off the key path (keys "
                  "are taken meanwhile)",
                  g->w, STYLE_ACCENT);
        return;
    }
    if (u->a.ses.run_err || s->n_q == 0)
        return;
    const ModelResult *r = &u->a.ses.res;
    AttnShape sh = r->shape, dbl = sh;
    dbl.n_q *= 2, dbl.n_k *= 2;
    double nn = (double)sh.n_q * sh.n_k, fl = model_flops(&sh) * s->cfg.layers;
    char b_nn[16], b_w[16], b_fl[24], n[32], line[320];
    fmt_count(nn, b_nn, sizeof b_nn);
    fmt_bytes(model_weight_bytes(&s->cfg, sh.n_q, sh.n_k), b_w, sizeof b_w);
    if (lesson_state_hides(&u->a.lesson, LESSON_ANS_CELLS)) /* the lesson's question */
        snprintf(b_nn, sizeof b_nn, "?"), snprintf(b_w, sizeof b_w, "?");
    fmt_count(fl, b_fl, sizeof b_fl);
    if (sh.n_k != sh.n_q)
        snprintf(n, sizeof n, "%d x %d", sh.n_q, sh.n_k);
    else
        snprintf(n, sizeof n, "%d", sh.n_q);
    double ms = u->no_clock ? 0 : u->a.ses.run_ms;
    const int digits = ms < 1 ? 3 : 1;
    KindCost kc;
    if (!r->src && kind_cost(u->a.ses.kind, &kc)) { /* the whole forward's, of the rows computed */
        draw_kind_cost(g, y, &kc, n, b_w, digits, u->no_clock ? 0 : kc.ms > 0 ? kc.ms : ms);
        return;
    }
    CostParts c = {n, b_nn, b_w, NULL, {"run ", ""}, r->out ? "" : " (weights)", digits, ms, 0};
    if (r->src) { /* a file read as it stands, or a view derived from a run */
        AttnSource file;
        bool read = kind_source(u->a.ses.kind, &file);
        c.how[0] = read ? "imported: read in " : "run and combined in ";
        c.how[1] = read ? "read in " : "combined in ";
        c.after = "";
    } else {
        strcat(b_fl, " FLOP");
        c.flop = b_fl;
        c.grow = model_flops(&dbl) / model_flops(&sh);
    }
    view_cost_line(&c, g->w, line, sizeof line);
    grid_puts(g, 0, y, line, g->w, STYLE_TEXT);
}
