/* patches.h -- what the patch methods plk and dis share: the presmoothed
 * frames their pyramid starts from, and each level's gradient of the first
 * frame with the level's frames as a patch search reads them
 * (pixel/patch.h).  Not installed. */
#ifndef FLOW_METHODS_PATCHES_H
#define FLOW_METHODS_PATCHES_H

#include "methods/method.h"

/* The finest frames after K_sigma, and the row pass's scratch; none of
 * them when K is the identity (sigma 0): the frames are used as given. */
typedef struct flow_patch_input {
    flow_plane frame[2][3];
    flow_plane scratch;
    int channels;
    const flow_kernel *k;
} flow_patch_input;

flow_status flow_patch_input_alloc(flow_device *d, flow_patch_input *in, int width, int height,
                                   int channels, const flow_kernel *k);
void flow_patch_input_free(flow_device *d, flow_patch_input *in);
/* The frames of f presmoothed (stage "prepare"): *f1, *f2 point at their
 * planes; with f->swapped, the last call's planes exchanged. */
flow_status flow_patch_input_smooth(flow_patch_input *in, flow_exec *ex, const flow_frames *f,
                                    const flow_plane **f1, const flow_plane **f2);

/* A level's gradient planes of the first frame. */
typedef struct flow_patch_grad {
    flow_plane gx[3], gy[3];
} flow_patch_grad;

flow_status flow_patch_grad_alloc(flow_device *d, flow_patch_grad *g, int width, int height,
                                  int channels);
void flow_patch_grad_free(flow_device *d, flow_patch_grad *g);
/* The gradient of L's first frame into g, and L's frames with it into *f. */
flow_status flow_patch_level_frames(flow_device *d, const flow_pyr_level *L, flow_patch_grad *g,
                                    int channels, flow_patch_frames *f);

#endif
