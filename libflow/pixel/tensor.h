/* tensor.h -- the motion tensor at one pixel (seed 001, appendix A.2):
 * J = grad3(f) grad3(f)^T with grad3 = (f_x, f_y, f_t).  Only the six
 * distinct entries of the symmetric matrix are stored. */
#ifndef FLOW_PIXEL_TENSOR_H
#define FLOW_PIXEL_TENSOR_H

#include "qualifier.h"

/* j[0..5] = J11, J12, J13, J22, J23, J33. */
FLOW_HD void flow_tensor_products_px(float fx, float fy, float ft, float j[6])
{
    j[0] = fx * fx;
    j[1] = fx * fy;
    j[2] = fx * ft;
    j[3] = fy * fy;
    j[4] = fy * ft;
    j[5] = ft * ft;
}

#endif
