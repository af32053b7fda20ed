/* pagerun.h - a lesson page's model for the handout (render/handout.h): the
 * page's trained model folder or weights folder, else toy weights for its
 * settings, opened and run as a model kind (app/kind.h), so that the handout
 * runs pages as the interface does without telling the kinds apart.
 */
#ifndef ATTNVIZ_PAGERUN_H
#define ATTNVIZ_PAGERUN_H

#include "render/handout.h"

/* The table handout_write and handout_run take (static, never freed). */
const HandoutModel *pagerun_model(void);

#endif
