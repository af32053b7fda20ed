/* test_run.h - a whole pipeline run for the tests that need one: toy (or
 * designed) weights from the config, the text run once into r. For tests of
 * the core and the layers above it.
 */
#ifndef ATTNVIZ_TEST_RUN_H
#define ATTNVIZ_TEST_RUN_H

#include <string.h>

#include "core/model.h"

/* Run text with the weights c asks for into r (zeroed or reused). Returns
 * model_weights_toy's or model_run's error. */
static inline int test_run(const ModelConfig *c, const char *text, ModelResult *r)
{
    ModelWeights w = {0};
    int err = model_weights_toy(c, &w);
    if (!err)
        err = model_run(c, &w, text, strlen(text), NULL, 0, r);
    model_weights_free(&w);
    return err;
}

#endif
