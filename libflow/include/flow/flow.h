/* flow.h -- libflow, GPU optical flow: the one header to include.
 *
 *   #include <flow/flow.h>      cc prog.c $(pkg-config --cflags --libs libflow)
 *
 * status.h   status codes and error details
 * backend.h  the CPU and CUDA backends and their operations on 2-D planes
 * preprocess.h  Gaussian smoothing and the motion tensor
 * method.h   Lucas-Kanade, Horn-Schunck, CLG; Jacobi, SOR, multigrid
 * image.h    images and video (OpenCV when built with it)
 * field.h    flow fields and .flo/.F/.pcm files
 * synth.h    generated sequences with exact ground truth
 * error.h    angular and endpoint errors against ground truth
 * render.h   colour coding, legend, blends and vector arrows */
#ifndef FLOW_FLOW_H
#define FLOW_FLOW_H

#include "flow/atomic_file.h"
#include "flow/backend.h"
#include "flow/error.h"
#include "flow/field.h"
#include "flow/image.h"
#include "flow/method.h"
#include "flow/preprocess.h"
#include "flow/render.h"
#include "flow/status.h"
#include "flow/synth.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library version, "MAJOR.MINOR.PATCH". */
const char *flow_version(void);

#ifdef __cplusplus
}
#endif
#endif
