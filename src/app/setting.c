/* setting.c - the key table's actions that change what the model computes
 * (setting.h): the switches (mask, PE, scaling), the designed or random
 * heads, d_model, the head and layer counts, the seed and the temperature,
 * and an example's sentence with the settings it brings. Each returns the
 * APP_* flags of action.c's table (APP_RUN, APP_WEIGHTS); nothing here
 * draws, prints or runs the model.
 */
#include "app/setting.h"

#include <stdio.h>
#include <string.h>

#include "app/ladder.h"
#include "core/av.h"

/* The switches: 0 causal mask, 1 positional encoding, 2 scaling. */
unsigned setting_toggle(AppState *s, int which)
{
    static const char *const msgs[3][2] = {
        {"causal mask off: every token sees every token",
         "causal mask on: token i sees tokens 1..i only"},
        {"positional encoding off", "positional encoding on"},
        {"scores not scaled", "scores divided by sqrt(d_k)"},
    };
    bool *flag = which == 0 ? &s->cfg.causal : which == 1 ? &s->cfg.pe : &s->cfg.scale;
    *flag = !*flag;
    app_msg(s, msgs[which][*flag]);
    return APP_RUN;
}

/* The designed preset fixes d_model and H: a message says so. */
static bool preset_fixed(AppState *s)
{
    if (s->cfg.preset != PRESET_DESIGNED)
        return false;
    app_msg(s, "the designed heads fix d_model 192 and 6 heads (P: random weights)");
    return true;
}

unsigned setting_preset(AppState *s, int arg)
{
    (void)arg;
    if (s->fixed_weights) {
        app_msg(s, "the weights come from --weights");
        return 0;
    }
    if (s->cfg.preset == PRESET_DESIGNED) {
        ModelConfig d;
        model_config_default(&d);
        s->cfg.preset = PRESET_RANDOM, s->cfg.d_model = d.d_model, s->cfg.H = d.H;
        app_msg(s, "random heads: untrained toy weights from the seed, their patterns mean "
                   "nothing yet (P: the designed heads)");
    } else {
        model_config_designed(&s->cfg);
        app_msg(s, "designed heads: previous token, self, first token, same word, "
                   "pronoun -> noun, verb -> subject");
    }
    s->head = s->head < s->cfg.H ? s->head : 0;
    s->pe_dim = s->pe_dim < s->cfg.d_model ? s->pe_dim : 0;
    return APP_RUN | APP_WEIGHTS;
}

unsigned setting_heads(AppState *s, int dir)
{
    if (preset_fixed(s))
        return 0;
    int H = ladder_heads_step(s->cfg.d_model, s->cfg.H, dir);
    if (H == s->cfg.H) {
        app_msg(s, dir > 0 ? "no more heads: H must divide d_model" : "at least one head");
        return 0;
    }
    s->cfg.H = H;
    s->head = s->head < H ? s->head : H - 1;
    s->msg[0] = '\0';
    return APP_RUN;
}

unsigned setting_dmodel(AppState *s, int dir)
{
    if (s->fixed_weights) {
        app_msg(s, "d_model is fixed by --weights");
        return 0;
    }
    if (preset_fixed(s))
        return 0;
    int d = ladder_dmodel_step(s->cfg.d_model, dir);
    if (d == s->cfg.d_model) {
        app_msg(s, dir > 0 ? "d_model is at its largest" : "d_model is at its smallest");
        return 0;
    }
    s->cfg.d_model = d;
    s->cfg.H = ladder_heads_fit(d, s->cfg.H);
    s->head = s->head < s->cfg.H ? s->head : s->cfg.H - 1;
    s->pe_dim = s->pe_dim < d ? s->pe_dim : 0;
    s->msg[0] = '\0';
    return APP_RUN | APP_WEIGHTS;
}

unsigned setting_seed(AppState *s, int dir)
{
    if (s->fixed_weights) {
        app_msg(s, "the seed is fixed by --weights");
        return 0;
    }
    s->cfg.seed += dir > 0 ? 1u : (uint64_t)-1;
    s->msg[0] = '\0';
    return APP_RUN | APP_WEIGHTS;
}

unsigned setting_layers(AppState *s, int dir)
{
    int L = s->cfg.layers + dir, most = s->max_layers > 0 ? s->max_layers : AV_MAX_LAYERS;
    if (L < 1 || L > most) {
        snprintf(s->msg, sizeof s->msg, L < 1 ? "at least one layer" : "at most %d layers%s", most,
                 s->fixed_weights ? " with these --weights" : "");
        return 0;
    }
    s->cfg.layers = L;
    s->layer = dir > 0 ? L - 1 : (s->layer < L ? s->layer : L - 1);
    if (L == 1)
        app_msg(s, "one layer: plain multi-head attention (> adds encoder layers)");
    else
        snprintf(s->msg, sizeof s->msg,
                 "%d encoder layers (attention, residual, LayerNorm, "
                 "FFN); showing layer %d",
                 L, s->layer + 1);
    return APP_RUN | (s->fixed_weights ? 0 : APP_WEIGHTS);
}

/* dir < 0: x0.5 (sharper), dir > 0: x2 (flatter). */
unsigned setting_temp(AppState *s, int dir)
{
    float t = ladder_temp_step(s->cfg.temperature, dir > 0 ? 2.0f : 0.5f);
    if (t == s->cfg.temperature) {
        snprintf(s->msg, sizeof s->msg, "the temperature stays within %g .. %g",
                 (double)LADDER_TEMP_MIN, (double)LADDER_TEMP_MAX);
        return 0;
    }
    s->cfg.temperature = t;
    snprintf(s->msg, sizeof s->msg, "temperature %g: scores divided by %g, softmax %s", (double)t,
             (double)t,
             t < 1.0f   ? "sharper (towards one winner)"
             : t > 1.0f ? "flatter (towards uniform)"
                        : "as trained");
    return APP_RUN;
}

/* An example's own weights (weights=): the configuration before them is
 * kept, and comes back when an example without them is loaded. */
static unsigned example_weights(AppState *s, const SentenceSetting *st)
{
    if (s->example_weights[0] && strcmp(s->example_weights, st->weights) != 0) {
        s->cfg = s->cfg_before, s->example_weights[0] = '\0';
        return APP_WEIGHTS;
    }
    if (!st->weights[0] || s->example_weights[0])
        return 0;
    if (s->fixed_weights) {
        app_msg(s, "this example brings its own weights: not with --weights");
        return 0;
    }
    s->cfg_before = s->cfg;
    snprintf(s->example_weights, sizeof s->example_weights, "%s", st->weights);
    s->cfg.preset = PRESET_LOADED, s->cfg.d_model = st->d_model, s->cfg.H = st->heads;
    s->cfg.layers = 1;
    return APP_WEIGHTS;
}

unsigned setting_example(AppState *s, const SentenceSetting *st)
{
    unsigned flags = APP_RUN | example_weights(s, st);
    bool own = s->example_weights[0] != '\0';
    /* preset=random, d_model= or heads=: the random heads at that size,
     * the default where not given (sentences.c checked that they fit) */
    bool random = st->preset == PRESET_RANDOM || st->d_model || st->heads;
    if (!own && !s->fixed_weights && (st->preset == PRESET_DESIGNED || random) &&
        (st->preset == PRESET_DESIGNED) != (s->cfg.preset == PRESET_DESIGNED))
        flags |= setting_preset(s, 0);
    if (!own && !s->fixed_weights && random && s->cfg.preset != PRESET_DESIGNED) {
        ModelConfig d;
        model_config_default(&d);
        s->cfg.d_model = st->d_model ? st->d_model : d.d_model;
        s->cfg.H = st->heads ? st->heads : d.H;
        s->pe_dim = s->pe_dim < s->cfg.d_model ? s->pe_dim : 0;
        flags |= APP_WEIGHTS;
    }
    if (st->pe >= 0)
        s->cfg.pe = st->pe;
    if (st->causal >= 0)
        s->cfg.causal = st->causal;
    s->head = st->head > 0 && st->head <= s->cfg.H ? st->head - 1
              : s->head < s->cfg.H                 ? s->head
                                                   : 0;
    snprintf(s->want_token, sizeof s->want_token, "%s", st->token);
    return flags;
}

unsigned setting_sentence(AppState *s, int step)
{
    if (!s->sentences || s->sentences->n <= 0)
        return 0;
    /* after an edit, from the example the sentence was edited from */
    int n = s->sentences->n, from = s->sentence >= 0 ? s->sentence : s->example_at, k;
    k = from < 0 || from >= n ? (step > 0 ? 0 : n - 1) : ((from + step) % n + n) % n;
    s->sentence = s->example_at = k;
    edit_set(&s->text, s->sentences->items[k]);
    s->sel_row = s->sel_col = -1;
    s->panel = PANEL_NONE, s->compare = CMP_NONE;
    unsigned flags = APP_RUN;
    if (s->lesson_kept) { /* a left lesson's weights and settings go with its sentence */
        s->cfg = s->cfg_home, s->fixed_weights = s->cli_fixed;
        s->max_layers = s->max_layers_home, s->cross_on = false, s->lesson_kept = false;
        flags |= APP_WEIGHTS;
    }
    if (s->sentences->settings)
        flags |= setting_example(s, &s->sentences->settings[k]);
    const char *note = s->sentences->notes ? s->sentences->notes[k] : NULL;
    s->note_shown = note != NULL;
    if (note)
        snprintf(s->msg, sizeof s->msg, "%d/%d: %s", k + 1, n, note);
    else if (!(flags & APP_WEIGHTS) || !s->msg[0])
        snprintf(s->msg, sizeof s->msg, "example %d of %d", k + 1, n);
    return flags;
}

void setting_take_tokens(AppState *s, const TokenList *t)
{
    if (!s->want_token[0])
        return;
    for (int i = 0; t && i < t->n && i < s->n_q; i++)
        if (strcmp(t->tok[i].str, s->want_token) == 0) {
            s->sel_row = i, s->sel_col = -1;
            break;
        }
    s->want_token[0] = '\0';
}
