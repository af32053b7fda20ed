/* live_cmd.c - `attnviz --train TASK`: the task's data read and the trainer
 * set up before curses starts, so that every error is one line on stderr;
 * then the interface opens on the live training view (src/ui/views/view_train.c).
 */
#include "cli/live_cmd.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/trainview.h"
#include "core/av.h"
#include "io/assets.h"
#include "io/fileio.h"
#include "cli/keytty.h"
#include "ui/ui.h"
#include "cli/say.h"

#define GRAMMAR_RULES "assets/grammar/grammar.txt" /* as `attnviz train grammar` */

/* The data of the task: the -f text for "text", the rules for "grammar"
 * (-f, or the project's own), nothing for the others. */
static int task_data(const CliOptions *o, const char *text, char **owned, const char **data,
                     size_t *len)
{
    *owned = NULL, *data = NULL, *len = 0;
    if (strcmp(o->train, "text") == 0) {
        if (!text)
            return say(2, "--train text needs its text: -f FILE");
        *data = text, *len = strlen(text);
    } else if (strcmp(o->train, "grammar") == 0 && text) {
        *data = text, *len = strlen(text);
    } else if (strcmp(o->train, "grammar") == 0) {
        char path[4096];
        asset_find(GRAMMAR_RULES, path, sizeof path); /* installed too */
        int err = file_read_all(path, AV_MAX_TEXT_BYTES, owned, len);
        if (err)
            return say(av_exit_status(err), "cannot read %s: %s", path,
                       err == AV_ERR_IO ? strerror(errno) : av_strerror(err));
        *data = *owned;
    }
    return 0;
}

int live_cmd_main(const CliOptions *o, const char *text_data, const SentenceList *sentences)
{
    if (o->export_set || o->dump_dir || o->model_dir || o->weights_dir || o->generate)
        return say(2, "--train opens the live view: no --export, --dump, --model, --weights "
                      "or --generate with it");
    char *owned;
    const char *data;
    size_t len;
    int status = task_data(o, text_data, &owned, &data, &len);
    if (status)
        return status;
    TrainViewConfig c;
    TrainView tv;
    char why[160] = "";
    trainview_config(o->train, &c);
    c.cfg.seed = o->cfg.seed;
    int err = trainview_init(&tv, &c, data, len, why, sizeof why);
    free(owned);
    if (err)
        return say(av_exit_status(err), "--train %s: %s", o->train,
                   why[0] ? why : av_strerror(err));
    if (keytty_open(o->file && strcmp(o->file, "-") == 0,
                    "--train needs a terminal (attnviz train TASK --save DIR trains without)")) {
        trainview_free(&tv);
        return 2;
    }
    UiOptions u = {.cfg = o->cfg, .sentences = sentences, .color = o->color, .train = &tv};
    status = ui_run(&u);
    trainview_free(&tv);
    return status;
}
