/* ladder.h - the steps of the interface's settings (ladder.c): pure
 * functions of their arguments.
 */
#ifndef ATTNVIZ_LADDER_H
#define ATTNVIZ_LADDER_H

#define LADDER_TEMP_MIN 0.01f
#define LADDER_TEMP_MAX 100.0f

/* The next number of heads that divides d_model, above (dir > 0) or below H;
 * H itself when there is none. */
int ladder_heads_step(int d_model, int H, int dir);

/* The next d_model of the ladder 8, 16, 24, 32, 48, 64, 96, 128, 192, 256,
 * 384, 512, 768, 1024 above (dir > 0) or below d; d when there is none. */
int ladder_dmodel_step(int d, int dir);

/* The largest divisor of d_model that is at most H (at least 1). */
int ladder_heads_fit(int d_model, int H);

/* temperature * factor when it stays within [LADDER_TEMP_MIN,
 * LADDER_TEMP_MAX], else t unchanged. */
float ladder_temp_step(float t, float factor);

#endif
