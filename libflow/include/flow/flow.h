/* flow.h -- libflow, GPU optical flow: the one header to include.
 *
 *   #include <flow/flow.h>      cc prog.c $(pkg-config --cflags --libs libflow)
 *
 * status.h   status codes and error details
 * device.h   the CPU and CUDA devices: opening one, names, pinned memory, timing
 * params.h   the methods, their parameter schemas, parameter values, .params files
 * number.h   numbers from text: the one rule of parameters, .params files and options
 * context.h  computing flow fields: contexts, observers
 * spread.h   a sequence's flows computed on several devices at once
 * image.h    images and video (OpenCV when built with it)
 * field.h    flow fields, flow files (the table of formats), the forward-backward check
 * warp.h     a frame warped along a flow, the photometric error
 * synth.h    generated sequences with exact ground truth
 * track.h    KLT feature tracking
 * error.h    angular and endpoint errors against ground truth
 * render.h   colour coding, legend, blends and vector arrows
 * atomic_file.h  whole-or-nothing file output */
#ifndef FLOW_FLOW_H
#define FLOW_FLOW_H

#include "flow/atomic_file.h"
#include "flow/context.h"
#include "flow/device.h"
#include "flow/error.h"
#include "flow/field.h"
#include "flow/image.h"
#include "flow/number.h"
#include "flow/params.h"
#include "flow/render.h"
#include "flow/spread.h"
#include "flow/status.h"
#include "flow/synth.h"
#include "flow/track.h"
#include "flow/warp.h"

/* The version of these headers, MAJOR.MINOR.PATCH: the one place it is
 * written (the Makefile reads it from here for the library's file name, its
 * soname and libflow.pc).  A 0.x MINOR may change the API and the ABI;
 * from 1.0 only a new MAJOR does.  FLOW_VERSION_NUMBER orders versions in
 * #if tests: 10000 MAJOR + 100 MINOR + PATCH. */
#define FLOW_VERSION_MAJOR 0
#define FLOW_VERSION_MINOR 2
#define FLOW_VERSION_PATCH 0
#define FLOW_VERSION_NUMBER \
    (FLOW_VERSION_MAJOR * 10000 + FLOW_VERSION_MINOR * 100 + FLOW_VERSION_PATCH)
#define FLOW_VERSION_QUOTE_(major, minor, patch) #major "." #minor "." #patch
#define FLOW_VERSION_EXPAND_(major, minor, patch) FLOW_VERSION_QUOTE_(major, minor, patch)
#define FLOW_VERSION_STRING \
    FLOW_VERSION_EXPAND_(FLOW_VERSION_MAJOR, FLOW_VERSION_MINOR, FLOW_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library linked at run time, "MAJOR.MINOR.PATCH":
 * FLOW_VERSION_STRING of the headers it was built with. */
const char *flow_version(void);

#ifdef __cplusplus
}
#endif
#endif
