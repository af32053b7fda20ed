/* examples.c - the weights an example brings. The built-in examples are
 * plain text; seed 001's "Cat eats fish" needs the article's own embeddings
 * and weights (assets/seed001, .npy files), looked for in assets/ of the
 * current folder, then beside the program and up to three folders above it
 * (the source tree of a build folder). The toy weights are rebuilt from the
 * configuration whenever neither an example nor --weights fixes them.
 */
#include "examples.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/weights.h"
#include "term.h"

/* Try assets/NAME in the current folder, then near the executable. */
static int load_named(const ModelConfig *c, const char *name, ModelWeights *w)
{
    char path[PATH_MAX + 64], exe[PATH_MAX];
    const char *which;
    snprintf(path, sizeof path, "assets/%s", name);
    if (weights_load(c, path, w, &which) == AV_OK)
        return AV_OK;
    model_weights_free(w);
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return AV_ERR_IO;
    exe[len] = '\0';
    for (int up = 0; up < 4; up++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            break;
        *slash = '\0';
        snprintf(path, sizeof path, "%s/assets/%s", exe, name);
        if (weights_load(c, path, w, &which) == AV_OK)
            return AV_OK;
        model_weights_free(w);
    }
    return AV_ERR_IO;
}

void examples_weights(UiState *u)
{
    AppState *s = &u->app;
    if (s->example_weights[0]) {
        if (strcmp(u->example_name, s->example_weights) == 0) {
            u->w = &u->example;
            return;
        }
        model_weights_free(&u->example);
        u->example_name[0] = '\0';
        if (load_named(&s->cfg, s->example_weights, &u->example) == AV_OK) {
            snprintf(u->example_name, sizeof u->example_name, "%s", s->example_weights);
            u->w = &u->example;
            return;
        }
        snprintf(s->msg, sizeof s->msg, "this example needs assets/%s (the source folder's): "
                 "run attnviz from there", s->example_weights);
        s->cfg = s->cfg_before, s->example_weights[0] = '\0';
    }
    if (u->fixed) {
        u->w = u->fixed;
        return;
    }
    model_weights_free(&u->toy);
    if (model_weights_toy(&s->cfg, &u->toy) != AV_OK)
        term_die("out of memory");
    u->w = &u->toy;
}

void examples_free(UiState *u)
{
    model_weights_free(&u->example);
}
