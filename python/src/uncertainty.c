/* uncertainty.c -- a confidence map's sparsification (AUSE) and an
 * occlusion estimate's F1 against ground truth (flow/error.h; the figures of
 * `flow-tool error --confidence / --occlusion-estimate`), and their pictures
 * as `flow-tool occlusion / confidence` draw them (flow/render.h), panels
 * for montage(). */
#include "ext.h"

#include <math.h>

/* A measure for the dict: a float, or None where it is not defined (NaN). */
static PyObject *measure(double value)
{
    if (isnan(value))
        Py_RETURN_NONE;
    return PyFloat_FromDouble(value);
}

/* The H x W confidence array as floats (a copy the caller frees). */
static float *confidence_from_array(PyObject *obj, int width, int height)
{
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "confidence is %s: expected a numpy array",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 0) != height || PyArray_DIM(a, 1) != width) {
        PyErr_Format(PyExc_ValueError,
                     "confidence has %d dimensions (shape %R): expected (%d, %d), the flow's "
                     "H x W",
                     PyArray_NDIM(a), PyObject_GetAttrString(obj, "shape"), height, width);
        return NULL;
    }
    if (!PyArray_ISNUMBER(a) || PyArray_ISCOMPLEX(a)) {
        PyErr_Format(PyExc_TypeError, "confidence has dtype %S: expected a real number type",
                     (PyObject *)PyArray_DESCR(a));
        return NULL;
    }
    PyArrayObject *c = (PyArrayObject *)PyArray_FromArray(
        a, PyArray_DescrFromType(NPY_FLOAT32), NPY_ARRAY_CARRAY_RO | NPY_ARRAY_FORCECAST);
    if (!c)
        return NULL;
    const size_t n = (size_t)width * height;
    float *out = PyMem_Malloc(n * sizeof *out);
    if (out)
        memcpy(out, PyArray_DATA(c), n * sizeof *out);
    else
        PyErr_NoMemory();
    Py_DECREF(c);
    return out;
}

static PyObject *curve_array(const double *values, int n)
{
    npy_intp dims[1] = {n};
    PyObject *a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
    if (a)
        memcpy(PyArray_DATA((PyArrayObject *)a), values, sizeof(double) * n);
    return a;
}

PyObject *fp_sparsification(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"est", "gt", "confidence", "mask", "invalid", "steps", NULL};
    PyObject *est_obj, *gt_obj, *conf_obj, *mask_obj = Py_None, *invalid_obj = Py_None;
    int steps = 100;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|OOi:sparsification", keywords, &est_obj,
                                     &gt_obj, &conf_obj, &mask_obj, &invalid_obj, &steps))
        return NULL;
    flow_field est = {0}, gt = {0};
    unsigned char *mask = NULL, *invalid = NULL;
    float *confidence = NULL;
    flow_sparsification_curve *c = NULL;
    PyObject *result = NULL;
    if (fp_field_from_array(est_obj, "est", &est) < 0 || fp_field_from_array(gt_obj, "gt", &gt) < 0)
        goto done;
    if (est.width != gt.width || est.height != gt.height) {
        PyErr_Format(PyExc_ValueError, "est is %d x %d but gt is %d x %d: sizes must match",
                     est.width, est.height, gt.width, gt.height);
        goto done;
    }
    if ((mask_obj != Py_None &&
         fp_mask_from_array(mask_obj, "mask", gt.width, gt.height, &mask) < 0) ||
        (invalid_obj != Py_None &&
         fp_mask_from_array(invalid_obj, "invalid", gt.width, gt.height, &invalid) < 0))
        goto done;
    if (!(confidence = confidence_from_array(conf_obj, gt.width, gt.height)))
        goto done;
    if (!(c = PyMem_Malloc(sizeof *c))) {
        PyErr_NoMemory();
        goto done;
    }
    const flow_error_regions regions = {.mask = mask, .invalid = invalid};
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_sparsification(&est, &gt, &regions, confidence, steps, c);
    Py_END_ALLOW_THREADS
    if (s != FLOW_OK) {
        fp_raise_as(s == FLOW_ERR_INVALID || s == FLOW_ERR_SIZE ? PyExc_ValueError : fp_error, s);
        goto done;
    }
    double removed[FLOW_SPARSIFICATION_STEPS_MAX];
    for (int k = 0; k < c->steps; k++)
        removed[k] = (double)k / c->steps;
    result = Py_BuildValue("{s:N, s:N, s:N, s:N, s:N, s:l}", "removed",
                           curve_array(removed, c->steps), "epe", curve_array(c->curve, c->steps),
                           "oracle", curve_array(c->oracle, c->steps), "ause", measure(c->ause),
                           "ause_relative", measure(c->ause_relative), "scored", c->scored);
done:
    PyMem_Free(c);
    PyMem_Free(confidence);
    PyMem_Free(mask);
    PyMem_Free(invalid);
    flow_field_free(&est);
    flow_field_free(&gt);
    return result;
}

PyObject *fp_occlusion_score(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"estimate", "truth", "keep", NULL};
    PyObject *est_obj, *truth_obj, *keep_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:occlusion_score", keywords, &est_obj,
                                     &truth_obj, &keep_obj))
        return NULL;
    if (!PyArray_Check(truth_obj) || PyArray_NDIM((PyArrayObject *)truth_obj) != 2) {
        PyErr_SetString(PyExc_ValueError, "truth: expected an H x W bool or integer array");
        return NULL;
    }
    const int height = (int)PyArray_DIM((PyArrayObject *)truth_obj, 0);
    const int width = (int)PyArray_DIM((PyArrayObject *)truth_obj, 1);
    unsigned char *estimate = NULL, *truth = NULL, *keep = NULL;
    PyObject *result = NULL;
    if (fp_mask_from_array(truth_obj, "truth", width, height, &truth) < 0 ||
        fp_mask_from_array(est_obj, "estimate", width, height, &estimate) < 0 ||
        (keep_obj != Py_None && fp_mask_from_array(keep_obj, "keep", width, height, &keep) < 0))
        goto done;
    flow_occlusion_scores o;
    const flow_status s = flow_occlusion_score(estimate, truth, keep, width, height, &o);
    if (s != FLOW_OK) {
        fp_raise_as(PyExc_ValueError, s);
        goto done;
    }
    result = Py_BuildValue("{s:l, s:l, s:l, s:l, s:N, s:N, s:N}", "true_pos", o.true_pos,
                           "false_pos", o.false_pos, "false_neg", o.false_neg, "true_neg",
                           o.true_neg, "precision", measure(o.precision), "recall",
                           measure(o.recall), "f1", measure(o.f1));
done:
    PyMem_Free(estimate);
    PyMem_Free(truth);
    PyMem_Free(keep);
    return result;
}

PyObject *fp_occlusion_to_rgb(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"frame", "mask", NULL};
    PyObject *frame_obj, *mask_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:occlusion_to_rgb", keywords, &frame_obj,
                                     &mask_obj))
        return NULL;
    flow_image frame;
    if (fp_image_from_array(frame_obj, "frame", &frame) < 0)
        return NULL;
    unsigned char *mask = NULL;
    float *occluded = NULL;
    PyObject *result = NULL;
    if (fp_mask_from_array(mask_obj, "mask", frame.width, frame.height, &mask) < 0)
        goto done;
    const size_t n = (size_t)frame.width * frame.height;
    if (!(occluded = PyMem_Malloc(n * sizeof *occluded))) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        occluded[i] = mask[i] ? 1.0f : 0.0f;
    flow_image rgb = {0};
    const flow_status s = flow_render_occlusion(&frame, occluded, &rgb);
    result = s == FLOW_OK ? fp_image_to_array(&rgb, 1) : fp_raise_as(PyExc_ValueError, s);
    flow_image_free(&rgb);
done:
    PyMem_Free(occluded);
    PyMem_Free(mask);
    flow_image_free(&frame);
    return result;
}

PyObject *fp_confidence_to_rgb(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"confidence", "colour", "key", NULL};
    PyObject *conf_obj;
    int colour = 0, key = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pp:confidence_to_rgb", keywords, &conf_obj,
                                     &colour, &key))
        return NULL;
    if (!PyArray_Check(conf_obj) || PyArray_NDIM((PyArrayObject *)conf_obj) != 2) {
        PyErr_SetString(PyExc_ValueError, "confidence: expected an H x W array of values in "
                                          "[0, 1]");
        return NULL;
    }
    const int height = (int)PyArray_DIM((PyArrayObject *)conf_obj, 0);
    const int width = (int)PyArray_DIM((PyArrayObject *)conf_obj, 1);
    float *confidence = confidence_from_array(conf_obj, width, height);
    if (!confidence)
        return NULL;
    flow_image rgb = {0};
    flow_status s = flow_render_confidence(confidence, width, height, colour, &rgb);
    if (s == FLOW_OK && key && (s = flow_render_confidence_key(&rgb, colour)) == FLOW_ERR_SIZE)
        s = FLOW_OK; /* too small a map for the key: the map alone */
    PyObject *result = s == FLOW_OK ? fp_image_to_array(&rgb, 1) : fp_raise_as(PyExc_ValueError, s);
    flow_image_free(&rgb);
    PyMem_Free(confidence);
    return result;
}
