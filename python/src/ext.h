/* ext.h -- what the files of the extension flowplatform._flowplatform share:
 * the Python and numpy headers in the right order, the exceptions, the
 * conversions between numpy arrays and libflow's images and fields, and
 * each file's entry points.
 *
 * The extension sees libflow through its public API only (flow/flow.h),
 * like the command-line tools. */
#ifndef FLOWPLATFORM_EXT_H
#define FLOWPLATFORM_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* numpy's C API is a table of pointers that module.c imports once; the
 * other files refer to the same table. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL flowplatform_numpy_api
#ifndef FLOWPLATFORM_IMPORTS_NUMPY
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include <flow/flow.h>

/* ---- module.c: exceptions --------------------------------------------------- */

/* flowplatform.Error (a RuntimeError) and flowplatform.ParameterError (an
 * Error and a ValueError: an unknown method, parameter or value). */
extern PyObject *fp_error;
extern PyObject *fp_parameter_error;

/* Raises `type` with the library's detail of the failure s of this thread
 * (flow_last_error, or the status's name when the detail is empty; bytes
 * that are not UTF-8, quoted from a file or a path, as \xNN) and its
 * `status` attribute set to the status's name.  Returns NULL. */
PyObject *fp_raise_as(PyObject *type, flow_status s);
/* The same with Error. */
PyObject *fp_raise(flow_status s);
/* Raises `type` with a message of the extension's own (a str, whose
 * reference is taken; NULL passes an exception through) and the status s. */
PyObject *fp_raise_message(PyObject *type, flow_status s, PyObject *message);
/* The UTF-8 text of the str `str` for the library, or NULL with an
 * exception set: ParameterError "<what>: '...' has a NUL character" for a
 * text with an embedded NUL, which C would read cut at the NUL. */
const char *fp_text(PyObject *str, const char *what);

/* ---- arrays.c: numpy arrays <-> libflow --------------------------------------- */

/* A frame handed in by the caller: a uint8 or float32 array of H x W (gray),
 * H x W x 1 or H x W x 3 (R, G, B), any strides.  `array` is a reference
 * owned by the fp_frame, aligned and in the machine's byte order. */
typedef struct fp_frame {
    PyArrayObject *array;
    int width, height, channels;
    int bytes; /* 1: uint8 samples, 0: float32 */
} fp_frame;

/* Checks obj as a frame; `what` names it in errors ("frame1").  Returns 0,
 * or -1 with TypeError (not an array, wrong dtype) or ValueError (wrong
 * shape, empty, too large) set. */
int fp_frame_get(PyObject *obj, const char *what, fp_frame *f);
void fp_frame_release(fp_frame *f);
/* Whether the samples lie packed in flow_image8's order (C-contiguous
 * uint8), so that the array's memory can be handed to libflow as it is. */
int fp_frame_packed8(const fp_frame *f);
/* The samples into img (of f's size and channels): planar floats, or
 * interleaved bytes.  No Python calls: they run without the GIL. */
void fp_frame_to_float(const fp_frame *f, flow_image *img);
void fp_frame_to_bytes(const fp_frame *f, flow_image8 *img);

/* A flow field handed in: a float array (float32 or float64) of H x W x 2,
 * (u, v) on the last axis, into a newly allocated field.  Returns 0, or -1
 * with an exception set. */
int fp_field_from_array(PyObject *obj, const char *what, flow_field *f);
/* A new H x W x 2 float32 array of f's vectors; NULL with an exception. */
PyObject *fp_field_to_array(const flow_field *f);
/* A new H x W (one channel) or H x W x 3 array of img's samples, float32 or
 * (as_bytes) uint8, the samples then rounded and clamped to 0..255. */
PyObject *fp_image_to_array(const flow_image *img, int as_bytes);
/* A mask (the errors name it `what`): a bool or integer array of H x W,
 * nonzero = set, into a newly allocated height*width bytes (PyMem_Free).
 * Returns 0, or -1 with an exception set. */
int fp_mask_from_array(PyObject *obj, const char *what, int width, int height,
                       unsigned char **mask);

/* ---- gpu_arrays.c: arrays in a GPU's memory handed in ------------------------ */

#define FP_GPU_NDIM 8

/* An array in a GPU's memory as its interface describes it
 * (__cuda_array_interface__, else DLPack). */
typedef struct fp_gpu_array {
    PyObject *capsule; /* the DLPack capsule taken, or NULL */
    void *managed;     /* its tensor, whose deleter runs at release */
    char *data;
    int ndim;
    Py_ssize_t shape[FP_GPU_NDIM];
    Py_ssize_t strides[FP_GPU_NDIM]; /* bytes */
    char dtype[24];   /* "uint8", "float32", or the interface's name of another */
    int readonly;
    int has_stream;   /* the producer's work is ordered before `stream` */
    uintptr_t stream; /* a cudaStream_t; 1, 2: CUDA's default streams */
} fp_gpu_array;

/* Reads obj into a when it is an array in a GPU's memory (__dlpack_device__
 * names a CUDA device, or it has __cuda_array_interface__), each interface
 * asked once; `what` names it in errors.  Returns 1 when it is one (a
 * holds it: fp_gpu_array_release), 0 when it is not (a numpy array, any
 * object with neither), or -1 with an exception (TypeError for a broken
 * interface, ValueError for page-locked host memory, or what the
 * interface raised). */
int fp_gpu_array_get(PyObject *obj, const char *what, fp_gpu_array *a);
void fp_gpu_array_release(fp_gpu_array *a);
/* A frame's checks for a GPU array: uint8 or float32 (TypeError), H x W,
 * H x W x 1 or H x W x 3 of 1 to 2^28 pixels in C order (ValueError: a
 * frame is read in place, never copied).  Returns 0 with w, h, c and bytes
 * (1: uint8) set, or -1. */
int fp_gpu_frame_check(const fp_gpu_array *a, const char *what, int *w, int *h, int *c,
                       int *bytes);
/* An output flow's checks for a GPU array: float32 (TypeError) of shape
 * (h, w, 2) whose u and v are planes of packed rows (strides (4 w, 4, s),
 * |s| >= 4 w h), writable (ValueError).  Returns 0 with u and v set, or -1. */
int fp_gpu_flow_check(const fp_gpu_array *a, const char *what, int w, int h, float **u,
                      float **v);

/* ---- device_array.c: DeviceArray, flows in the GPU's memory ------------------ */

extern PyTypeObject fp_device_array_type;
extern PyTypeObject fp_device_handle_type;
/* A handle that owns d (closed with the last reference; d is closed on
 * failure too); NULL with an exception. */
PyObject *fp_device_handle_new(flow_device *d);
flow_device *fp_device_handle_get(PyObject *handle);
/* A new DeviceArray for an H x W flow on the handle's device, its planes
 * at *u and *v; NULL with an exception. */
PyObject *fp_device_array_new_flow(PyObject *handle, int width, int height, float **u,
                                   float **v);
/* A new DeviceArray of one H x W float32 plane at *p; NULL with an
 * exception. */
PyObject *fp_device_array_new_plane(PyObject *handle, int width, int height, float **p);

/* ---- schema.c: the methods and their parameters ------------------------------ */

PyObject *fp_methods(PyObject *self, PyObject *noargs);
PyObject *fp_schema(PyObject *self, PyObject *args);
/* applies(method, **params): the names of the method's parameters that have
 * an effect under these values (any value in range accepted, with effect or
 * not). */
PyObject *fp_applies(PyObject *self, PyObject *args, PyObject *kw);
/* The parameters of `method` (NULL: the default method) with the keyword
 * arguments kw (may be NULL) set by name through the library's setter, in
 * the order of the method's schema.  NULL with ParameterError (an unknown
 * method or parameter, a value out of range, or unless idle_ok a value
 * without effect under the others) or TypeError (a value that is neither a
 * number nor a string). */
flow_params *fp_params_from_kwargs(const char *method, PyObject *kw, int idle_ok);
/* {name: value} of p: float, int, bool or the choice's name. */
PyObject *fp_params_to_dict(const flow_params *p);

/* ---- context.c: the Context type ---------------------------------------------- */

extern PyTypeObject fp_context_type;

/* ---- spread.c: the Spread type (several devices) ------------------------------ */

extern PyTypeObject fp_spread_type;

/* ---- files.c: flow files and images ---------------------------------------- */

PyObject *fp_read_flow(PyObject *self, PyObject *args);
PyObject *fp_write_flow(PyObject *self, PyObject *args);
PyObject *fp_flow_formats(PyObject *self, PyObject *noargs);
PyObject *fp_read_image(PyObject *self, PyObject *args);
PyObject *fp_write_image(PyObject *self, PyObject *args);
/* read_params(path) -> (method, {name: value}): a .params file through
 * flow_params_read. */
PyObject *fp_read_params(PyObject *self, PyObject *args);

/* ---- measure.c: errors against ground truth, colour coding ------------------ */

PyObject *fp_error_stats(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_flow_to_color(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_color_legend(PyObject *self, PyObject *args);

/* ---- uncertainty.c ------------------------------------------------------------- */

PyObject *fp_sparsification(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_occlusion_score(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_occlusion_to_rgb(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_confidence_to_rgb(PyObject *self, PyObject *args, PyObject *kw);

/* ---- warp.c: warping, photometric error, forward-backward check ------------ */
/* An image handed in (fp_frame_get's arrays) as a newly allocated planar
 * float image; `what` names it in errors.  Returns 0, or -1 with an
 * exception set. */
int fp_image_from_array(PyObject *obj, const char *what, flow_image *img);
PyObject *fp_warp(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_photometric_error(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_fb_check(PyObject *self, PyObject *args, PyObject *kw);

/* ---- pictures.c: vector plots and montages ------------------------------------ */
PyObject *fp_flow_to_vectors(PyObject *self, PyObject *args, PyObject *kw);
PyObject *fp_montage(PyObject *self, PyObject *args, PyObject *kw);

/* ---- tracker.c: the Tracker type ------------------------------------------------ */
extern PyTypeObject fp_tracker_type;

/* ---- video.c: the Video type ---------------------------------------------------- */

extern PyTypeObject fp_video_type;

#endif
