/* lesson_cmd.h - `attnviz --lesson` on the command line: the list of the
 * built-in lessons, a lesson opened by name or path with its errors said in
 * one line, the Markdown handout (--export md) and the lesson checker
 * (--check).
 */
#ifndef ATTNVIZ_LESSON_CMD_H
#define ATTNVIZ_LESSON_CMD_H

#include "cli/cli.h"
#include "io/lesson.h"
#include "io/sentences.h"

/* Open the lesson name (built-in name or file) into *l. On failure one line
 * on standard error ("attnviz: FILE:LINE: what is wrong" for a malformed
 * file) and the exit status (1 unreadable file, 2 no such lesson or a
 * malformed one); 0 on success. */
int lesson_cmd_open(const char *name, Lesson *l);

/* --lesson NAME --model DIR: DIR (or a hub id's snapshot in the cache,
 * cli/hub_cmd.h) opened once to see that it opens and that it can show
 * every page's view (app/lessonfit.h: a BERT has no logit lens), then made
 * absolute in o->model_dir (o->model_path owns it). Returns 0 or the exit
 * status after one line on standard error (2 for a lesson the model cannot
 * show, or one that does not open). */
int lesson_cmd_model(CliOptions *o);

/* With --model (lesson_cmd_model done): every page of l runs on it
 * (lesson_use_model). Returns 0, or 1 after "out of memory". */
int lesson_cmd_use(const CliOptions *o, Lesson *l);

/* --lesson without the interface: no name lists the built-in lessons
 * ("name<TAB>title" one a line) on standard output; a name with --export md
 * writes its handout to standard output or o->output (atomically). Returns
 * the exit status. */
int lesson_cmd_batch(const CliOptions *o, const SentenceList *sentences);

/* --lesson [NAME|FILE] --check: the lesson checker (ui/lessoncheck.h) on
 * the lesson, or on every built-in lesson when no name is given, at
 * o's sizes; the findings on standard output, one a line. Returns 1 when
 * there is any, 0 when the lessons are clean, 2 for a lesson that does not
 * open (said on standard error as lesson_cmd_open says it). */
int lesson_cmd_check(const CliOptions *o, const SentenceList *sentences);

#endif
