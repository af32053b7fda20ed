/* lens_cmd.c - --export lens and lens-json (cli/lens_cmd.h). */
#include "cli/lens_cmd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/av.h"
#include "render/lens.h"
#include "ui/ui.h"
#include "cli/model_cmd.h"
#include "cli/outfile.h"
#include "cli/say.h"

static void token_name(const void *ctx, int id, char *out, size_t len)
{
    kind_token_text(ctx, id, out, len);
}

static int write_to(FILE *f, const CliOptions *o, const Kind *k, const Lens *ls, bool color)
{
    if (o->export_lens == 2)
        return lens_export_json(f, ls, token_name, k);
    return lens_export_text(f, ls, token_name, k, o->export.width, color);
}

/* The lens as --export says, for outfile_write. */
typedef struct {
    const CliOptions *o;
    const Kind *k;
    const Lens *ls;
    bool color;
} LensJob;

static int lens_to(FILE *f, void *ctx)
{
    const LensJob *j = ctx;
    return write_to(f, j->o, j->k, j->ls, j->color);
}

int lens_cmd_write(const CliOptions *o, Kind *k, const char *text)
{
    if (!kind_has_lens(k)) {
        const char *why = kind_refuses(k, KIND_ASK_LENS);
        return say(2, "--export %s: %s", o->export_lens == 2 ? "lens-json" : "lens",
                   why ? why : "this model predicts no tokens");
    }
    Lens ls;
    lens_init(&ls);
    int err = kind_lens(k, text, strlen(text), &ls);
    if (err) {
        lens_free(&ls);
        return model_cmd_error(o, k, err);
    }
    bool color = ui_color_wanted(o->color, !o->output && isatty(STDOUT_FILENO));
    if (!o->output) {
        err = write_to(stdout, o, k, &ls, color);
        lens_free(&ls);
        if (!err && fflush(stdout) != 0)
            err = AV_ERR_IO;
        if (err == AV_ERR_NOMEM)
            return say(1, "out of memory");
        return err ? say(1, "cannot write the export: %s", strerror(errno)) : 0;
    }
    int status = outfile_write(o->output, NULL, lens_to, &(LensJob){o, k, &ls, color});
    lens_free(&ls);
    return status;
}
