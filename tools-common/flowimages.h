/* flowimages.h -- a flow field as the two 8-bit images that action-
 * recognition models are trained on (two-stream networks, TSN, I3D: the
 * format of dense_flow and denseflow): the x image holds the horizontal
 * component u, the y image the vertical v, each sample
 *
 *     level = clamp(round(255 (v + B) / (2 B)), 0, 255)
 *
 * for a bound B in pixels (20 by default), rounded half to even as OpenCV's
 * cvRound does; back, v = level 2 B / 255 - B, within half a step (B / 255
 * px) of the flow for |v| <= B.  An unknown vector (flow/field.h) is written
 * as no motion.  flow-compute writes them (--flow-images), flow-tool reads
 * them back (flow-tool from-images).
 *
 * Conventions as in cli.h: functions that can fail print their message and
 * return an exit code. */
#ifndef FLOW_TOOLS_FLOWIMAGES_H
#define FLOW_TOOLS_FLOWIMAGES_H

#include "flow/flow.h"

#define FLOW_IMAGES_BOUND 20.0
#define FLOW_IMAGES_BOUND_MAX 1e6
/* denseflow's names: flow_x_00001.jpg is the flow from frame 1 to frame 2 */
#define FLOW_IMAGES_X "flow_x_%05d.jpg"
#define FLOW_IMAGES_Y "flow_y_%05d.jpg"

/* The level of one component value. */
unsigned char flow_images_level(float v, double bound);
/* The value a level stands for. */
float flow_images_value(int level, double bound);

/* Both images of f (1 channel each, the levels as floats 0..255, which an
 * 8-bit writer stores exactly); x and y are allocated here (free them with
 * flow_image_free).  Returns FLOW_OK or FLOW_ERR_NOMEM. */
flow_status flow_images_from_field(const flow_field *f, double bound, flow_image *x,
                                   flow_image *y);

/* Checks a name pattern of the images: one integer field, no '/', and an
 * extension .jpg, .jpeg or .png; `what` names it in the message (a usage
 * error, exit code). */
int flow_images_check_name(const char *what, const char *pattern, const char *usage,
                           const char *program);

#endif
