/* schema.c -- the library's methods and their parameter schemas as Python
 * data (for a program that builds its controls from them), and keyword
 * arguments turned into a flow_params through the library's own by-name
 * setter: no parameter is named here.  applies() tells which parameters the
 * other values leave with an effect, for a program that greys out the
 * controls of the others. */
#include "ext.h"

#include <string.h>

static const char *type_name(flow_param_type t)
{
    switch (t) {
    case FLOW_PARAM_REAL: return "real";
    case FLOW_PARAM_INT: return "int";
    case FLOW_PARAM_BOOL: return "bool";
    case FLOW_PARAM_CHOICE: return "choice";
    }
    return "unknown";
}

/* A parameter's value v as Python sees it: float, int, bool or the
 * choice's name. */
static PyObject *value_of(const flow_param_info *in, double v)
{
    switch (in->type) {
    case FLOW_PARAM_REAL: return PyFloat_FromDouble(v);
    case FLOW_PARAM_INT: return PyLong_FromLong((long)v);
    case FLOW_PARAM_BOOL: return PyBool_FromLong(v != 0);
    case FLOW_PARAM_CHOICE: return PyUnicode_FromString(in->choices[(int)v]);
    }
    Py_RETURN_NONE;
}

/* The bound of a REAL or INT parameter; None for the others. */
static PyObject *bound(const flow_param_info *in, double v)
{
    if (in->type == FLOW_PARAM_REAL || in->type == FLOW_PARAM_INT)
        return value_of(in, v);
    Py_RETURN_NONE;
}

static PyObject *choices_of(const flow_param_info *in)
{
    if (in->type != FLOW_PARAM_CHOICE)
        Py_RETURN_NONE;
    PyObject *list = PyList_New(0);
    for (int i = 0; list && in->choices[i]; i++) {
        PyObject *name = PyUnicode_FromString(in->choices[i]);
        if (!name || PyList_Append(list, name) < 0)
            Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}

static PyObject *param_dict(const flow_param_info *in)
{
    return Py_BuildValue("{s:s, s:s, s:N, s:N, s:N, s:O, s:O, s:O, s:N, s:s, s:z}", "name",
                         in->name, "type", type_name(in->type), "default",
                         value_of(in, in->def), "min", bound(in, in->min), "max",
                         bound(in, in->max), "min_open",
                         in->flags & FLOW_PARAM_MIN_OPEN ? Py_True : Py_False, "max_open",
                         in->flags & FLOW_PARAM_MAX_OPEN ? Py_True : Py_False, "odd",
                         in->flags & FLOW_PARAM_ODD ? Py_True : Py_False, "choices",
                         choices_of(in), "help", in->help, "when", in->when);
}

PyObject *fp_methods(PyObject *self, PyObject *noargs)
{
    PyObject *list = PyList_New(0);
    const char *m;
    for (int i = 0; list && (m = flow_method_at(i)); i++) {
        PyObject *name = PyUnicode_FromString(m);
        if (!name || PyList_Append(list, name) < 0)
            Py_CLEAR(list);
        Py_XDECREF(name);
    }
    return list;
}

/* ParameterError for an unknown method, with the library's message (which
 * lists the known ones). */
static PyObject *unknown_method(const char *method)
{
    flow_params *p = NULL;
    const flow_status s = flow_params_create(method, &p);
    flow_params_destroy(p);
    return fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
}

PyObject *fp_schema(PyObject *self, PyObject *args)
{
    const char *method;
    if (!PyArg_ParseTuple(args, "s:schema", &method))
        return NULL;
    if (!flow_method_exists(method))
        return unknown_method(method);
    PyObject *params = PyList_New(0);
    const flow_param_info *in;
    for (int i = 0; params && (in = flow_method_param(method, i)); i++) {
        PyObject *d = param_dict(in);
        if (!d || PyList_Append(params, d) < 0)
            Py_CLEAR(params);
        Py_XDECREF(d);
    }
    if (!params)
        return NULL;
    return Py_BuildValue("{s:s, s:s, s:O, s:N}", "name", method, "title",
                         flow_method_title(method), "is_default",
                         strcmp(method, flow_method_default()) == 0 ? Py_True : Py_False,
                         "params", params);
}

/* Sets parameter `in` of p from a Python value: a string through the text
 * setter (a choice's name, or a number as a .params file writes it), a
 * number (bool, int, float, numpy scalar) through the number setter.
 * Returns 0, or -1 with an exception set. */
static int set_value(flow_params *p, const flow_param_info *in, PyObject *value)
{
    flow_status s;
    if (PyUnicode_Check(value)) {
        char what[96];
        snprintf(what, sizeof what, "parameter %s", in->name);
        const char *text = fp_text(value, what);
        if (!text)
            return -1;
        s = flow_params_set(p, in->name, text);
    } else if (PyNumber_Check(value)) {
        const double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred())
            return -1;
        s = flow_params_set_number(p, in->name, v);
    } else {
        PyErr_Format(PyExc_TypeError, "parameter %s: expected a number or a string, not %s",
                     in->name, Py_TYPE(value)->tp_name);
        return -1;
    }
    if (s != FLOW_OK) {
        fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
        return -1;
    }
    return 0;
}

/* Checks that every key of kw is a parameter of p's method and still has
 * an effect under the values set (as flow-compute refuses an option that
 * would silently do nothing). */
static int check_keys(flow_params *p, PyObject *kw, int after)
{
    const char *method = flow_params_method(p);
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kw, &pos, &key, &value)) {
        const char *name = fp_text(key, "parameter name");
        if (!name)
            return -1;
        const flow_param_info *in = flow_method_param_find(method, name);
        if (!in) {
            /* the library's setter words the refusal */
            fp_raise_as(fp_parameter_error, flow_params_set_number(p, name, 0));
            return -1;
        }
        if (after && !flow_params_applies(p, name)) {
            fp_raise_message(fp_parameter_error, FLOW_ERR_INVALID,
                             PyUnicode_FromFormat("parameter %s of method %s has no effect "
                                                  "here: it applies with %s",
                                                  name, method, in->when));
            return -1;
        }
    }
    return 0;
}

flow_params *fp_params_from_kwargs(const char *method, PyObject *kw, int idle_ok)
{
    flow_params *p;
    if (method && !flow_method_exists(method)) {
        unknown_method(method);
        return NULL;
    }
    const flow_status s = flow_params_create(method, &p);
    if (s != FLOW_OK) {
        fp_raise(s);
        return NULL;
    }
    if (!kw || PyDict_GET_SIZE(kw) == 0)
        return p;
    if (check_keys(p, kw, 0) < 0)
        goto fail;
    /* in the schema's order, as flow-compute sets its options, so that a
     * method's cross-checks see the same sequence whatever the call's order */
    const flow_param_info *in;
    for (int i = 0; (in = flow_method_param(flow_params_method(p), i)); i++) {
        PyObject *value = PyDict_GetItemString(kw, in->name);
        if (value && set_value(p, in, value) < 0)
            goto fail;
    }
    if (!idle_ok && check_keys(p, kw, 1) < 0)
        goto fail;
    return p;
fail:
    flow_params_destroy(p);
    return NULL;
}

PyObject *fp_params_to_dict(const flow_params *p)
{
    const char *method = flow_params_method(p);
    PyObject *d = PyDict_New();
    const flow_param_info *in;
    for (int i = 0; d && (in = flow_method_param(method, i)); i++) {
        double v = 0;
        flow_params_get_number(p, in->name, &v);
        PyObject *value = value_of(in, v);
        if (!value || PyDict_SetItemString(d, in->name, value) < 0)
            Py_CLEAR(d);
        Py_XDECREF(value);
    }
    return d;
}

PyObject *fp_applies(PyObject *self, PyObject *args, PyObject *kw)
{
    const char *method;
    if (!PyArg_ParseTuple(args, "s:applies", &method))
        return NULL;
    flow_params *p = fp_params_from_kwargs(method, kw, 1);
    if (!p)
        return NULL;
    PyObject *list = PyList_New(0);
    const flow_param_info *in;
    for (int i = 0; list && (in = flow_method_param(method, i)); i++) {
        if (!flow_params_applies(p, in->name))
            continue;
        PyObject *name = PyUnicode_FromString(in->name);
        if (!name || PyList_Append(list, name) < 0)
            Py_CLEAR(list);
        Py_XDECREF(name);
    }
    flow_params_destroy(p);
    return list;
}
