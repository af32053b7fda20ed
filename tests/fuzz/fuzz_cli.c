/* fuzz_cli.c - libFuzzer harness for the command-line parser.
 *
 * The input is split on NUL bytes into at most FUZZ_MAX_ARGS arguments, each
 * its own heap copy (so ASan sees a read past any of them), after argv[0].
 * cli_parse uses getopt_long, whose state is global: the harness parses every
 * input twice, on fresh copies, with a parse of a fixed argv in between, and
 * the two results must agree, which checks that `optind = 0` really starts
 * afresh. It also checks cli.h's contract: a failure gives AV_ERR_CONFIG with
 * a NUL-terminated one-line message free of control characters (it goes to a
 * terminal: an argument holding ESC must not garble it), and a success a
 * configuration that model_config_check accepts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "cli/cli.h"
#include "core/model.h"

#define FUZZ_MAX_ARGS 32

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_cli: invariant broken: %s\n", what);
        abort();
    }
}

typedef struct {
    int argc;
    char *argv[FUZZ_MAX_ARGS + 2];
} Args;

static void args_split(Args *a, const uint8_t *data, size_t size)
{
    a->argc = 0;
    a->argv[a->argc++] = strdup("attnviz");
    size_t start = 0;
    while (size > 0 && start <= size && a->argc <= FUZZ_MAX_ARGS) {
        const uint8_t *nul = memchr(data + start, 0, size - start);
        size_t len = nul ? (size_t)(nul - data) - start : size - start;
        char *arg = malloc(len + 1);
        check(arg != NULL, "out of memory");
        memcpy(arg, data + start, len);
        arg[len] = '\0';
        a->argv[a->argc++] = arg;
        if (!nul)
            break;
        start += len + 1;
    }
    a->argv[a->argc] = NULL;
}

static void args_free(Args *a)
{
    for (int k = 0; k < a->argc; k++)
        free(a->argv[k]);
}

static void check_result(int rc, const CliOptions *o)
{
    if (rc != AV_OK) {
        check(rc == AV_ERR_CONFIG, "cli_parse returned an undocumented code");
        check(memchr(o->err, '\0', sizeof o->err) && o->err[0], "empty or unterminated error");
        /* one line that is safe to print: no newline, no escape sequence */
        for (const char *p = o->err; *p; p++)
            check((unsigned char)*p >= 0x20 && *p != 0x7F, "control character in the error");
        return;
    }
    check(model_config_check(&o->cfg) == AV_OK, "cli_parse accepted a bad configuration");
    /* a trained model's or an imported file's heads and layers are known only
     * once it is read (layer -1: its last): main.c checks them then */
    if (o->model_dir || o->attention) {
        check(o->export.head >= -1 && o->export.layer >= -1, "export head or layer below -1");
        return;
    }
    check(o->export.head >= -1 && o->export.layer >= 0, "negative export head or layer");
    check(o->head_1 >= 0 && o->head_1 <= o->cfg.H, "--head out of range accepted");
    check(o->export.head < o->cfg.H, "export head out of range");
    check(o->export.layer < o->cfg.layers, "export layer out of range");
    check(!(o->text && o->file), "both TEXT and --file accepted");
}

static void check_same(int rc1, const CliOptions *a, int rc2, const CliOptions *b)
{
    check(rc1 == rc2, "a second parse of the same argv gave another result");
    if (rc1 != AV_OK) {
        check(strcmp(a->err, b->err) == 0, "a second parse gave another message");
        return;
    }
    check(memcmp(&a->cfg, &b->cfg, sizeof a->cfg) == 0, "a second parse gave another config");
    check((!a->text && !b->text) || (a->text && b->text && strcmp(a->text, b->text) == 0),
          "a second parse gave another TEXT");
    check(a->head_1 == b->head_1 && a->help == b->help && a->version == b->version &&
              a->export_set == b->export_set && a->color == b->color,
          "a second parse gave other options");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *fixed[] = {"attnviz", "-c", "--heads", "2", "x", "--", "-y", NULL};
    Args a1, a2;
    CliOptions o1, o2, mid;

    args_split(&a1, data, size);
    int rc1 = cli_parse(a1.argc, a1.argv, &o1);
    check_result(rc1, &o1);

    int rc_mid = cli_parse(7, fixed, &mid);
    check(rc_mid == AV_OK && mid.cfg.H == 2 && mid.cfg.causal && mid.text &&
              strcmp(mid.text, "x -y") == 0,
          "a fixed argv parsed wrongly after another parse");
    cli_free(&mid);

    args_split(&a2, data, size);
    int rc2 = cli_parse(a2.argc, a2.argv, &o2);
    check_same(rc1, &o1, rc2, &o2);

    cli_free(&o1);
    cli_free(&o2);
    check(!o1.text, "cli_free left the text");
    args_free(&a1);
    args_free(&a2);
    return 0;
}
