/* pictures.c -- vector (quiver) plots and montages of numpy arrays through
 * the library's renderers (flow/render.h), as `flow-tool vectors` and
 * `flow-tool montage` draw them. */
#include "ext.h"

#include <math.h>
#include <string.h>

/* A positive finite length from obj (None: 0, the library's automatic
 * value); -1 with ValueError naming `what`. */
static int length_arg(PyObject *obj, const char *what, double *out)
{
    *out = 0;
    if (obj == Py_None)
        return 0;
    const double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred())
        return -1;
    if (!(v > 0) || !isfinite(v)) {
        PyErr_Format(PyExc_ValueError, "%s = %R: expected a number > 0, or None", what, obj);
        return -1;
    }
    *out = v;
    return 0;
}

/* img as RGB (a gray image's value in all three channels), into rgb. */
static int to_rgb(const flow_image *img, flow_image *rgb)
{
    if (flow_image_alloc(rgb, img->width, img->height, 3) != FLOW_OK) {
        PyErr_NoMemory();
        return -1;
    }
    const size_t n = (size_t)img->width * img->height;
    for (int c = 0; c < 3; c++)
        memcpy(rgb->data + c * n, img->data + (img->channels == 3 ? c * n : 0),
               n * sizeof(float));
    return 0;
}

PyObject *fp_flow_to_vectors(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"flow", "background", "step", "scale", "max", NULL};
    PyObject *flow_obj, *background = Py_None, *scale_obj = Py_None, *max_obj = Py_None;
    int step = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OiOO:flow_to_vectors", keywords, &flow_obj,
                                     &background, &step, &scale_obj, &max_obj))
        return NULL;
    if (step < 0) {
        PyErr_Format(PyExc_ValueError, "step = %d: expected pixels > 0, or 0 (automatic)", step);
        return NULL;
    }
    double scale, max_radius;
    if (length_arg(scale_obj, "scale", &scale) < 0 || length_arg(max_obj, "max", &max_radius) < 0)
        return NULL;
    flow_field f;
    if (fp_field_from_array(flow_obj, "flow", &f) < 0)
        return NULL;
    flow_image rgb = {0};
    flow_vector_style style;
    if (background == Py_None) {
        style = flow_vector_defaults(FLOW_BACKDROP_WHITE);
        if (flow_image_alloc(&rgb, f.width, f.height, 3) != FLOW_OK) {
            flow_field_free(&f);
            return PyErr_NoMemory();
        }
        for (size_t i = 0; i < (size_t)f.width * f.height * 3; i++)
            rgb.data[i] = 255.0f;
    } else {
        style = flow_vector_defaults(FLOW_BACKDROP_FRAME);
        flow_image frame;
        if (fp_image_from_array(background, "background", &frame) < 0) {
            flow_field_free(&f);
            return NULL;
        }
        const int fits = frame.width == f.width && frame.height == f.height;
        if (!fits)
            PyErr_Format(PyExc_ValueError,
                         "background is %d x %d but flow is %d x %d: sizes must match",
                         frame.width, frame.height, f.width, f.height);
        const int rc = fits ? to_rgb(&frame, &rgb) : -1;
        flow_image_free(&frame);
        if (rc < 0) {
            flow_field_free(&f);
            return NULL;
        }
    }
    style.step = step;
    style.scale = scale;
    style.max_radius = max_radius;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_render_vectors(&f, &style, &rgb, NULL);
    Py_END_ALLOW_THREADS
    flow_field_free(&f);
    PyObject *out = s == FLOW_OK ? fp_image_to_array(&rgb, 1) : fp_raise(s);
    flow_image_free(&rgb);
    return out;
}

PyObject *fp_montage(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *keywords[] = {"panels", "columns", "title", NULL};
    PyObject *panels_obj;
    int columns = 0;
    const char *title = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|iz:montage", keywords, &panels_obj, &columns,
                                     &title))
        return NULL;
    static const char expected[] = "panels: expected a list of images or of (image, label) pairs";
    if (PyArray_Check(panels_obj)) { /* one image, which would be taken row by row */
        PyErr_SetString(PyExc_TypeError, expected);
        return NULL;
    }
    PyObject *seq = PySequence_Fast(panels_obj, expected);
    if (!seq)
        return NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n < 1 || n > 64 || columns < 0) {
        PyErr_Format(PyExc_ValueError, "montage of %zd panels in %d columns: expected 1..64 "
                     "panels and columns >= 0 (0: automatic)", n, columns);
        Py_DECREF(seq);
        return NULL;
    }
    flow_image images[64];
    flow_panel panels[64];
    memset(images, 0, sizeof images);
    PyObject *out = NULL;
    Py_ssize_t got = 0;
    for (; got < n; got++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, got), *image = item;
        const char *label = NULL;
        if (PyTuple_Check(item)) {
            if (!PyArg_ParseTuple(item, "Oz:montage panel", &image, &label))
                goto done;
        }
        char what[32];
        snprintf(what, sizeof what, "panels[%zd]", got);
        if (fp_image_from_array(image, what, &images[got]) < 0)
            goto done;
        panels[got].image = &images[got];
        panels[got].label = label;
    }
    flow_image rgb;
    const flow_status s = flow_render_montage(panels, (int)n, columns, title, &rgb, NULL);
    if (s != FLOW_OK)
        fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
    else {
        out = fp_image_to_array(&rgb, 1);
        flow_image_free(&rgb);
    }
done:
    for (Py_ssize_t i = 0; i < got; i++)
        flow_image_free(&images[i]);
    Py_DECREF(seq);
    return out;
}
