/* fuzz_hfconfig.c - libFuzzer harness for config.json's parser (hfmodel.h).
 *
 * The input is a config.json text. Besides the sanitizers, the harness checks
 * hfmodel_parse_config's contract and aborts when it is broken: a refusal is
 * AV_ERR_MODEL or AV_ERR_NOMEM with one line beginning "config.json: " and a
 * zeroed Gpt2Config; an accepted config has every size within the HF_MAX_*
 * caps and AV_MAX_LAYERS, n_embd divisible by n_head, and an epsilon in
 * (0, 1).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/hfmodel.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_hfconfig: invariant broken: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Gpt2Config c;
    HfOrigin o;
    static const Gpt2Config zero;
    char why[512] = "";
    memset(&c, 0xA5, sizeof c);
    memset(&o, 0xA5, sizeof o);
    int rc = hfmodel_parse_config((const char *)data, size, "config.json", &c, &o, why, sizeof why);
    if (rc != AV_OK) {
        check(rc == AV_ERR_MODEL || rc == AV_ERR_NOMEM, "an undocumented error code");
        check(memcmp(&c, &zero, sizeof c) == 0, "a refused config left the struct non-zero");
        check(strncmp(why, "config.json: ", 13) == 0 && !strchr(why, '\n'),
              "the reason is not one line naming the file");
        return 0;
    }
    check(c.n_vocab >= 1 && c.n_vocab <= HF_MAX_VOCAB, "n_vocab out of range");
    check(c.n_ctx >= 1 && c.n_ctx <= HF_MAX_CTX, "n_ctx out of range");
    check(c.d_model >= 1 && c.d_model <= HF_MAX_D_MODEL, "d_model out of range");
    check(c.n_head >= 1 && c.n_head <= AV_MAX_HEADS, "n_head out of range");
    check(c.n_layer >= 1 && c.n_layer <= AV_MAX_LAYERS, "n_layer out of range");
    check(c.d_ff >= 1 && c.d_ff <= HF_MAX_D_FF, "d_ff out of range");
    check(c.d_model % c.n_head == 0, "d_model not divisible by n_head");
    check(c.ln_eps > 0 && c.ln_eps < 1, "epsilon out of range");
    check(memchr(o.task, 0, sizeof o.task) != NULL, "the task is not a string");
    return 0;
}
