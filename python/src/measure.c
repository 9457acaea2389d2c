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

/* A measure for the dict: a float, or None where it is not defined (NaN). */
static PyObject *measure(double value)
{
    if (isnan(value))
        Py_RETURN_NONE;
    return PyFloat_FromDouble(value);
}

/* A count that is defined only with occlusion information. */
static PyObject *count(long value, int defined)
{
    if (!defined)
        Py_RETURN_NONE;
    return PyLong_FromLong(value);
}

static PyObject *stats_dict(const flow_error_measures *m, int occlusion)
{
    const flow_error_stats *st = &m->all;
    return Py_BuildValue(
        "{s:d, s:d, s:d, s:d, s:d, s:d, s:d, s:l, s:l, s:l, s:l, s:l, s:N, s:N, s:N, s:N, s:N, "
        "s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:N, s:l}",
        "aae", st->aae, "aae_std", st->aae_std, "aee", st->aee, "aee_std", st->aee_std, "over1",
        st->over1, "over3", st->over3, "max_ee", st->max_ee, "scored", st->scored, "total",
        st->total, "outside_mask", st->outside_mask, "unknown_gt", st->unknown_gt, "unknown_est",
        st->unknown_est, "px1", measure(m->px1), "px3", measure(m->px3), "px5", measure(m->px5),
        "fl", measure(m->fl), "epe_noc", measure(m->epe_noc), "epe_occ", measure(m->epe_occ),
        "scored_noc", count(m->scored_noc, occlusion), "scored_occ",
        count(m->scored_occ, occlusion), "fl_noc", measure(m->fl_noc), "fl_occ",
        measure(m->fl_occ), "fl_bg", measure(m->fl_bg), "fl_fg", measure(m->fl_fg), "s0_10",
        measure(m->s0_10), "s10_40", measure(m->s10_40), "s40", measure(m->s40), "d0_10",
        measure(m->d0_10), "d10_60", measure(m->d10_60), "d60_140", measure(m->d60_140),
        "invalid", m->invalid);
}

/* The byte maps of the regions from their arrays (None: not given). */
static int read_maps(PyObject *const obj[4], const char *const what[4], int width, int height,
                     unsigned char *map[4])
{
    for (int k = 0; k < 4; k++)
        if (obj[k] != Py_None && fp_mask_from_array(obj[k], what[k], width, height, &map[k]) < 0)
            return -1;
    return 0;
}

PyObject *fp_error_stats(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"est",        "gt",  "mask",   "invalid",
                               "occlusions", "noc", "objmap", NULL};
    PyObject *est_obj, *gt_obj, *obj[4] = {Py_None, Py_None, Py_None, Py_None},
                                *noc_obj = Py_None;
    static const char *const what[4] = {"mask", "invalid", "occlusions", "objmap"};
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|OOOOO:error", keywords, &est_obj, &gt_obj,
                                     &obj[0], &obj[1], &obj[2], &noc_obj, &obj[3]))
        return NULL;
    if (obj[2] != Py_None && noc_obj != Py_None) {
        PyErr_SetString(PyExc_ValueError,
                        "occlusions and noc both say which pixels are occluded: give one");
        return NULL;
    }
    flow_field est = {0}, gt = {0}, noc = {0};
    unsigned char *map[4] = {NULL, NULL, NULL, NULL};
    PyObject *result = NULL;
    if (fp_field_from_array(est_obj, "est", &est) < 0 || fp_field_from_array(gt_obj, "gt", &gt) < 0
        || !same_size(&est, "est", &gt, "gt"))
        goto done;
    if (read_maps(obj, what, gt.width, gt.height, map) < 0)
        goto done;
    if (noc_obj != Py_None &&
        (fp_field_from_array(noc_obj, "noc", &noc) < 0 || !same_size(&noc, "noc", &gt, "gt")))
        goto done;
    const flow_error_regions regions = {map[0], map[1], map[2], noc_obj != Py_None ? &noc : NULL,
                                        map[3]};
    flow_error_measures m;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_error_measure(&est, &gt, &regions, &m);
    Py_END_ALLOW_THREADS
    if (s != FLOW_OK)
        fp_raise(s);
    else if (m.all.scored == 0)
        PyErr_Format(PyExc_ValueError,
                     "no pixel to score: of %ld, %ld are outside the mask, %ld invalid, %ld have "
                     "unknown ground truth and %ld an unknown estimate",
                     m.all.total, m.all.outside_mask, m.invalid, m.all.unknown_gt,
                     m.all.unknown_est);
    else
        result = stats_dict(&m, regions.occluded || regions.noc);
done:
    for (int k = 0; k < 4; k++)
        PyMem_Free(map[k]);
    flow_field_free(&est);
    flow_field_free(&gt);
    flow_field_free(&noc);
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
