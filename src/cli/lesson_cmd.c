/* lesson_cmd.c - `attnviz --lesson` without the interface: listing the
 * built-in lessons and writing a lesson's handout; and opening a lesson with
 * its errors reported the way main.c reports every error, one line.
 */
#include "cli/lesson_cmd.h"

#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/lessonfit.h"
#include "app/pagerun.h"
#include "core/av.h"
#include "io/fileio.h"
#include "render/handout.h"
#include "io/lesson_builtin.h"
#include "cli/hub_cmd.h"
#include "cli/model_cmd.h"
#include "cli/say.h"
#include "ui/lessoncheck.h"

int lesson_cmd_open(const char *name, Lesson *l)
{
    LessonError e;
    int err = lesson_open(name, l, &e);
    if (err == AV_OK)
        return 0;
    if (err == AV_ERR_LESSON && e.line)
        return say(2, "%s:%d: %s", name, e.line, e.msg);
    if (err == AV_ERR_LESSON)
        return say(2, "%s: %s", name, e.msg);
    if (err == AV_ERR_IO && errno == ENOENT && !strchr(name, '/') && !strstr(name, ".lesson"))
        return say(2, "no lesson called '%s' (attnviz --lesson lists them)", name);
    if (err == AV_ERR_IO)
        return say(1, "cannot read the lesson %s: %s", name, strerror(errno));
    return say(av_exit_status(err), "%s: %s", name, av_strerror(err));
}

/* Whether every page of the lesson o->lesson can show its view on the
 * model k (app/lessonfit.h): 0, or 2 after one line saying which page
 * cannot and why, before any screen or file is made. */
static int lesson_fits(const CliOptions *o, const Kind *k)
{
    Lesson l;
    char why[640];
    int status = lesson_cmd_open(o->lesson, &l);
    if (!status && !lessonfit_lesson(&l, k, o->model_dir, why, sizeof why))
        status = say(2, "%s", why);
    lesson_free(&l);
    return status;
}

int lesson_cmd_model(CliOptions *o)
{
    int status = hub_cmd_resolve(o); /* --model NAME: a hub id's snapshot in the cache */
    Kind k;
    if (!status && !(status = model_cmd_check(o, &k))) {
        status = o->lesson ? lesson_fits(o, &k) : 0;
        kind_close(&k);
    }
    if (status)
        return status;
    /* absolute, so that no page finds a folder of that name beside its lesson */
    char *abs = realpath(o->model_dir, NULL);
    if (!abs)
        return say(1, "%s: %s", o->model_dir, strerror(errno));
    free(o->model_path);
    o->model_path = abs;
    o->model_dir = abs;
    return 0;
}

int lesson_cmd_use(const CliOptions *o, Lesson *l)
{
    if (o->model_dir && lesson_use_model(l, o->model_dir))
        return say(1, "out of memory");
    return 0;
}

/* "name<TAB>title" of every built-in lesson. */
static int list(void)
{
    LessonCatalog cat;
    if (lesson_catalog(&cat))
        return say(1, "out of memory");
    int status = cat.n ? 0 : say(1, "no built-in lessons: assets/lessons was not found");
    for (int k = 0; k < cat.n && !status; k++) {
        Lesson l;
        LessonError e;
        int err = lesson_parse(cat.text[k], cat.len[k], cat.name[k], "", &l, &e);
        printf("%s\t%s\n", cat.name[k], err ? "(malformed)" : l.title);
        lesson_free(&l);
    }
    lesson_catalog_free(&cat);
    if (!status && (fflush(stdout) != 0 || ferror(stdout)))
        status = say(1, "cannot write to standard output: %s", strerror(errno));
    return status;
}

static int handout(const CliOptions *o, const SentenceList *sentences)
{
    Lesson l;
    int status = lesson_cmd_open(o->lesson, &l);
    if (!status)
        status = lesson_cmd_use(o, &l);
    if (status) {
        lesson_free(&l);
        return status;
    }
    const char *const *items = (const char *const *)sentences->items;
    MemFile m;
    int err = memfile_open(&m);
    /* --width, --max-tokens and --budget: the pages set the rest (cli.c) */
    const HandoutOptions ho = {.width = o->export.width,
                               .max_tokens = o->cfg.max_tokens,
                               .weights_budget = o->cfg.weights_budget};
    if (!err)
        err = handout_write(m.f, &l, items, pagerun_model(), &ho);
    if (!err)
        err = memfile_close(&m);
    if (err == AV_ERR_NOMEM)
        status = say(1, "out of memory");
    else if (err)
        status = say(1, "cannot write the handout: %s", strerror(errno));
    else if (!o->output && (fwrite(m.buf, 1, m.len, stdout) != m.len || fflush(stdout) != 0))
        status = say(1, "cannot write to standard output: %s", strerror(errno));
    else if (o->output && file_write_atomic(o->output, m.buf, m.len, false))
        status = say(1, "cannot write %s: %s", o->output, strerror(errno));
    memfile_free(&m);
    lesson_free(&l);
    return status;
}

int lesson_cmd_batch(const CliOptions *o, const SentenceList *sentences)
{
    if (!o->lesson)
        return list();
    return handout(o, sentences);
}

/* The file a finding names: a built-in lesson's assets/lessons/NN-NAME.lesson
 * when the working folder has it, else "NAME (built-in)"; a file as given. */
static void check_label(const LessonCatalog *cat, const char *name, char *out, size_t size)
{
    char pat[256];
    glob_t gl;
    snprintf(out, size, "%s", name);
    if (lesson_catalog_find(cat, name) < 0)
        return;
    snprintf(out, size, "%s (built-in)", name);
    snprintf(pat, sizeof pat, "assets/lessons/[0-9]*-%s.lesson", name);
    if (glob(pat, 0, NULL, &gl) == 0 && gl.gl_pathc == 1)
        snprintf(out, size, "%s", gl.gl_pathv[0]);
    globfree(&gl);
}

/* One lesson checked; its findings counted into *found. Returns 0 or the
 * exit status of a lesson that does not open. */
static int check_one(const LessonCatalog *cat, const char *name, const LessonCheckOptions *co,
                     int *found)
{
    Lesson l;
    int status = lesson_cmd_open(name, &l); /* its errors, said as the interface says them */
    lesson_free(&l);
    if (status)
        return status;
    char label[4200];
    check_label(cat, name, label, sizeof label);
    int n = lessoncheck_run(name, label, co, stdout);
    if (n < 0)
        return say(av_exit_status(n), "%s: %s", name, av_strerror(n));
    *found += n;
    return 0;
}

int lesson_cmd_check(const CliOptions *o, const SentenceList *sentences)
{
    LessonCheckOptions co = {
        .n_sizes = o->n_sizes, .sentences = sentences, .cfg = o->cfg, .model = o->model_dir};
    for (int k = 0; k < o->n_sizes; k++)
        co.w[k] = o->size_w[k], co.h[k] = o->size_h[k];
    LessonCatalog cat;
    if (lesson_catalog(&cat))
        return say(1, "out of memory");
    int found = 0, status = 0;
    if (o->lesson)
        status = check_one(&cat, o->lesson, &co, &found);
    else if (!cat.n)
        status = say(1, "no built-in lessons: assets/lessons was not found");
    for (int k = 0; !o->lesson && k < cat.n && !status; k++)
        status = check_one(&cat, cat.name[k], &co, &found);
    lesson_catalog_free(&cat);
    if (!status && (fflush(stdout) != 0 || ferror(stdout)))
        status = say(1, "cannot write to standard output: %s", strerror(errno));
    return status ? status : found ? 1 : 0;
}
