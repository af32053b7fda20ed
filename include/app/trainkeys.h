/* trainkeys.h - what the live training view's keys do (trainkeys.c): the
 * Actions input.c's key table maps them to, applied to its TrainView.
 * No curses; unit-tested in tests/app/test_trainview.c.
 */
#ifndef ATTNVIZ_TRAINKEYS_H
#define ATTNVIZ_TRAINKEYS_H

#include "app/state.h"
#include "app/trainview.h"

/* One of the view's keys, as the front end's key table maps it: ACT_TRAIN_PAUSE,
 * _STEP (then paused; a failed step says so in msg), _FASTER, _SLOWER, _RESET
 * (the next seed, trainview_reset). Other actions, ACT_TRAIN_SAVE among them
 * (a file name is the caller's), change nothing. Returns AV_OK, or what
 * trainview_reset returns (tv is freed then). */
int trainview_apply(TrainView *tv, Action a);

#endif
