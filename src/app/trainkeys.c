/* trainkeys.c - the live training view's keys as Actions (trainkeys.h). */
#include "app/trainkeys.h"

#include <stdio.h>

#include "core/av.h"

int trainview_apply(TrainView *tv, Action a)
{
    switch (a) {
    case ACT_TRAIN_PAUSE: trainview_toggle_pause(tv); break;
    case ACT_TRAIN_STEP:
        tv->paused = true;
        if (trainview_step(tv) != AV_OK)
            snprintf(tv->msg, sizeof tv->msg, "the step failed");
        break;
    case ACT_TRAIN_FASTER: trainview_speed(tv, 1); break;
    case ACT_TRAIN_SLOWER: trainview_speed(tv, -1); break;
    case ACT_TRAIN_RESET: return trainview_reset(tv, tv->conf.cfg.seed + 1);
    default: break;
    }
    return AV_OK;
}
