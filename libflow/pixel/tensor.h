/* tensor.h -- the motion tensor at one pixel (seed 001, appendix A.2):
 * J = grad3(f) grad3(f)^T with grad3 = (f_x, f_y, f_t).  Only the six
 * distinct entries of the symmetric matrix are stored; j[0..5] below is
 * always J11, J12, J13, J22, J23, J33. */
#ifndef FLOW_PIXEL_TENSOR_H
#define FLOW_PIXEL_TENSOR_H

#include "qualifier.h"
#include "stencil.h"

FLOW_HD void flow_tensor_products_at(float fx, float fy, float ft, float j[6])
{
    j[0] = fx * fx;
    j[1] = fx * fy;
    j[2] = fx * ft;
    j[3] = fy * fy;
    j[4] = fy * ft;
    j[5] = ft * ft;
}

/* Gather and scatter of the six components at (x, y). */
FLOW_HD void flow_tensor_load(const flow_tensor *J, int x, int y, float j[6])
{
    j[0] = FLOW_PX(J->j11, x, y);
    j[1] = FLOW_PX(J->j12, x, y);
    j[2] = FLOW_PX(J->j13, x, y);
    j[3] = FLOW_PX(J->j22, x, y);
    j[4] = FLOW_PX(J->j23, x, y);
    j[5] = FLOW_PX(J->j33, x, y);
}

FLOW_HD void flow_tensor_store(const flow_tensor *J, int x, int y, const float j[6])
{
    FLOW_PX(J->j11, x, y) = j[0];
    FLOW_PX(J->j12, x, y) = j[1];
    FLOW_PX(J->j13, x, y) = j[2];
    FLOW_PX(J->j22, x, y) = j[3];
    FLOW_PX(J->j23, x, y) = j[4];
    FLOW_PX(J->j33, x, y) = j[5];
}

/* J = grad3 grad3^T of the (presmoothed) frames f1, f2 in one pass, the
 * derivatives never stored; accumulate != 0 adds to J instead (colour: the
 * channels' tensors summed). */
typedef struct flow_motion_products_args {
    flow_tensor J;
    flow_plane f1, f2;
    int accumulate;
} flow_motion_products_args;

FLOW_HD void flow_motion_products_px(const flow_motion_products_args *a, int x, int y)
{
    float fx, fy, ft, j[6];
    flow_derivatives_at(&a->f1, &a->f2, x, y, &fx, &fy, &ft);
    flow_tensor_products_at(fx, fy, ft, j);
    if (a->accumulate) {
        float old[6];
        flow_tensor_load(&a->J, x, y, old);
        for (int c = 0; c < 6; c++)
            j[c] = old[c] + j[c];
    }
    flow_tensor_store(&a->J, x, y, j);
}

#endif
