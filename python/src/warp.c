/* warp.c -- a frame warped back along a flow, its photometric error
 * (flow/warp.h, as `flow-tool warp` and `flow-tool photo-error`) and the
 * forward-backward check of two flows (flow/field.h, as `flow-tool
 * fb-check`).  The library's work runs with the GIL released. */
#include "ext.h"

#include <math.h>
#include <string.h>

int fp_image_from_array(PyObject *obj, const char *what, flow_image *img)
{
    fp_frame f;
    memset(img, 0, sizeof *img);
    if (fp_frame_get(obj, what, &f) < 0)
        return -1;
    if (flow_image_alloc(img, f.width, f.height, f.channels) != FLOW_OK) {
        fp_frame_release(&f);
        PyErr_NoMemory();
        return -1;
    }
    fp_frame_to_float(&f, img);
    fp_frame_release(&f);
    return 0;
}

/* A new H x W bool array of the bytes `known`. */
static PyObject *known_array(const unsigned char *known, int width, int height)
{
    npy_intp dims[2] = {height, width};
    PyObject *out = PyArray_SimpleNew(2, dims, NPY_BOOL);
    if (out)
        memcpy(PyArray_DATA((PyArrayObject *)out), known, (size_t)width * height);
    return out;
}

/* Reads frame2 and flow and warps; on success *out and *known (PyMem) are
 * the caller's. */
static int warp_arrays(PyObject *frame_obj, PyObject *flow_obj, double fill, flow_image *out,
                       unsigned char **known, flow_warp_stats *st)
{
    flow_image frame;
    flow_field w;
    if (fp_image_from_array(frame_obj, "frame2", &frame) < 0)
        return -1;
    if (fp_field_from_array(flow_obj, "flow", &w) < 0) {
        flow_image_free(&frame);
        return -1;
    }
    int rc = -1;
    if (frame.width != w.width || frame.height != w.height)
        PyErr_Format(PyExc_ValueError, "frame2 is %d x %d but flow is %d x %d: sizes must match",
                     frame.width, frame.height, w.width, w.height);
    else if (!(*known = PyMem_Malloc((size_t)w.width * w.height)))
        PyErr_NoMemory();
    else {
        flow_status s;
        Py_BEGIN_ALLOW_THREADS
        s = flow_warp_image(&frame, &w, (float)fill, out, *known, st);
        Py_END_ALLOW_THREADS
        if (s == FLOW_OK)
            rc = 0;
        else {
            fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
            PyMem_Free(*known);
            *known = NULL;
        }
    }
    flow_image_free(&frame);
    flow_field_free(&w);
    return rc;
}

PyObject *fp_warp(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"frame2", "flow", "fill", NULL};
    PyObject *frame_obj, *flow_obj;
    double fill = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d:warp", keywords, &frame_obj, &flow_obj,
                                     &fill))
        return NULL;
    flow_image out;
    unsigned char *known = NULL;
    flow_warp_stats st;
    if (warp_arrays(frame_obj, flow_obj, fill, &out, &known, &st) < 0)
        return NULL;
    PyObject *img = fp_image_to_array(&out, 0);
    PyObject *mask = img ? known_array(known, out.width, out.height) : NULL;
    flow_image_free(&out);
    PyMem_Free(known);
    if (!mask) {
        Py_XDECREF(img);
        return NULL;
    }
    return Py_BuildValue("(NN)", img, mask);
}

PyObject *fp_photometric_error(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"frame1", "frame2", "flow", NULL};
    PyObject *frame1_obj, *frame2_obj, *flow_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO:photometric_error", keywords, &frame1_obj,
                                     &frame2_obj, &flow_obj))
        return NULL;
    flow_image frame1, warped;
    if (fp_image_from_array(frame1_obj, "frame1", &frame1) < 0)
        return NULL;
    unsigned char *known = NULL;
    flow_warp_stats st;
    if (warp_arrays(frame2_obj, flow_obj, 0, &warped, &known, &st) < 0) {
        flow_image_free(&frame1);
        return NULL;
    }
    PyObject *err = NULL;
    if (frame1.width != warped.width || frame1.height != warped.height
        || frame1.channels != warped.channels)
        PyErr_Format(PyExc_ValueError,
                     "frame1 is %d x %d with %d channel%s but frame2 is %d x %d with %d "
                     "channel%s: they must match",
                     frame1.width, frame1.height, frame1.channels,
                     frame1.channels == 1 ? "" : "s", warped.width, warped.height,
                     warped.channels, warped.channels == 1 ? "" : "s");
    else {
        npy_intp dims[2] = {frame1.height, frame1.width};
        err = PyArray_SimpleNew(2, dims, NPY_FLOAT32);
    }
    double mean = 0;
    if (err) {
        float *e = PyArray_DATA((PyArrayObject *)err);
        flow_status s;
        Py_BEGIN_ALLOW_THREADS
        s = flow_photometric_error(&frame1, &warped, known, e, &mean);
        Py_END_ALLOW_THREADS
        if (s != FLOW_OK) {
            Py_CLEAR(err);
            fp_raise(s);
        }
    }
    flow_image_free(&frame1);
    flow_image_free(&warped);
    PyMem_Free(known);
    return err ? Py_BuildValue("(Nd)", err, mean) : NULL;
}

PyObject *fp_fb_check(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"forward", "backward", "threshold", NULL};
    PyObject *fwd_obj, *bwd_obj;
    double threshold = 1.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|d:fb_check", keywords, &fwd_obj, &bwd_obj,
                                     &threshold))
        return NULL;
    flow_field fwd, bwd;
    if (fp_field_from_array(fwd_obj, "forward", &fwd) < 0)
        return NULL;
    if (fp_field_from_array(bwd_obj, "backward", &bwd) < 0) {
        flow_field_free(&fwd);
        return NULL;
    }
    PyObject *result = NULL;
    if (fwd.width != bwd.width || fwd.height != bwd.height)
        PyErr_Format(PyExc_ValueError,
                     "forward is %d x %d but backward is %d x %d: sizes must match", fwd.width,
                     fwd.height, bwd.width, bwd.height);
    else {
        flow_fb_stats st;
        flow_status s;
        Py_BEGIN_ALLOW_THREADS
        s = flow_fb_check(&fwd, &bwd, threshold, &st);
        Py_END_ALLOW_THREADS
        if (s != FLOW_OK)
            fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
        else {
            PyObject *checked = fp_field_to_array(&fwd);
            if (checked)
                result = Py_BuildValue(
                    "(N{s:l, s:l, s:l, s:l, s:l, s:l, s:d})", checked, "total", st.total,
                    "kept", st.kept, "unknown_fwd", st.unknown_fwd, "outside", st.outside,
                    "unknown_bwd", st.unknown_bwd, "inconsistent", st.inconsistent, "density",
                    st.density);
        }
    }
    flow_field_free(&fwd);
    flow_field_free(&bwd);
    return result;
}
