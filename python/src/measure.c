/* measure.c -- a flow against ground truth (flow/error.h, the figures of
 * `flow-tool error`) and the colour coding of a flow with its key
 * (flow/render.h, the pictures of `flow-tool color` and `flow-tool legend`). */
#include "ext.h"

#include <math.h>

static int same_size(const flow_field *a, const char *an, const flow_field *b, const char *bn)
{
    if (a->width == b->width && a->height == b->height)
        return 1;
    PyErr_Format(PyExc_ValueError, "%s is %d x %d but %s is %d x %d: sizes must match", an,
                 a->width, a->height, bn, b->width, b->height);
    return 0;
}

static PyObject *stats_dict(const flow_error_stats *st)
{
    return Py_BuildValue("{s:d, s:d, s:d, s:d, s:d, s:d, s:d, s:l, s:l, s:l, s:l, s:l}", "aae",
                         st->aae, "aae_std", st->aae_std, "aee", st->aee, "aee_std", st->aee_std,
                         "over1", st->over1, "over3", st->over3, "max_ee", st->max_ee, "scored",
                         st->scored, "total", st->total, "outside_mask", st->outside_mask,
                         "unknown_gt", st->unknown_gt, "unknown_est", st->unknown_est);
}

PyObject *fp_error_stats(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"est", "gt", "mask", NULL};
    PyObject *est_obj, *gt_obj, *mask_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O:error", keywords, &est_obj, &gt_obj,
                                     &mask_obj))
        return NULL;
    flow_field est = {0}, gt = {0};
    unsigned char *mask = NULL;
    PyObject *result = NULL;
    if (fp_field_from_array(est_obj, "est", &est) < 0 || fp_field_from_array(gt_obj, "gt", &gt) < 0
        || !same_size(&est, "est", &gt, "gt"))
        goto done;
    if (mask_obj != Py_None && fp_mask_from_array(mask_obj, gt.width, gt.height, &mask) < 0)
        goto done;
    flow_error_stats st;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_error_compute(&est, &gt, mask, &st);
    Py_END_ALLOW_THREADS
    if (s != FLOW_OK)
        fp_raise(s);
    else if (st.scored == 0)
        PyErr_Format(PyExc_ValueError,
                     "no pixel to score: of %ld, %ld are outside the mask, %ld have unknown "
                     "ground truth and %ld an unknown estimate",
                     st.total, st.outside_mask, st.unknown_gt, st.unknown_est);
    else
        result = stats_dict(&st);
done:
    PyMem_Free(mask);
    flow_field_free(&est);
    flow_field_free(&gt);
    return result;
}

PyObject *fp_flow_to_color(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"flow", "max", NULL};
    PyObject *flow_obj, *max_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:flow_to_color", keywords, &flow_obj,
                                     &max_obj))
        return NULL;
    double max_radius = 0; /* the library's "largest known length" */
    if (max_obj != Py_None) {
        max_radius = PyFloat_AsDouble(max_obj);
        if (max_radius == -1.0 && PyErr_Occurred())
            return NULL;
        if (!(max_radius > 0) || !isfinite(max_radius)) {
            PyErr_Format(PyExc_ValueError, "max = %R: expected a length > 0 in pixels, or None",
                         max_obj);
            return NULL;
        }
    }
    flow_field f;
    if (fp_field_from_array(flow_obj, "flow", &f) < 0)
        return NULL;
    flow_image rgb;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_render_color(&f, max_radius, &rgb, NULL);
    Py_END_ALLOW_THREADS
    flow_field_free(&f);
    if (s != FLOW_OK)
        return fp_raise(s);
    PyObject *out = fp_image_to_array(&rgb, 1);
    flow_image_free(&rgb);
    return out;
}

PyObject *fp_color_legend(PyObject *self, PyObject *args)
{
    int size = 256;
    if (!PyArg_ParseTuple(args, "|i:color_legend", &size))
        return NULL;
    flow_image rgb;
    const flow_status s = flow_render_legend(size, &rgb);
    if (s != FLOW_OK)
        return fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
    PyObject *out = fp_image_to_array(&rgb, 1);
    flow_image_free(&rgb);
    return out;
}
