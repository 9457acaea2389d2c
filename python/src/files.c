/* files.c -- flow files (every format of flow_field_format_at: .flo, .F,
 * .pcm, .pfm, KITTI .png), images and .params files through
 * the library's readers and writers (flow/field.h, flow/image.h,
 * flow/params.h): the format follows the extension, failures raise Error with the library's message (which names
 * the file), and writers leave no half-written file.  Paths are str, bytes
 * or os.PathLike. */
#include "ext.h"

PyObject *fp_read_flow(PyObject *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:read_flow", PyUnicode_FSConverter, &path))
        return NULL;
    flow_field f;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_field_read(PyBytes_AS_STRING(path), &f);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (s != FLOW_OK)
        return fp_raise(s);
    PyObject *out = fp_field_to_array(&f);
    flow_field_free(&f);
    return out;
}

PyObject *fp_write_flow(PyObject *self, PyObject *args)
{
    PyObject *path, *array;
    if (!PyArg_ParseTuple(args, "O&O:write_flow", PyUnicode_FSConverter, &path, &array))
        return NULL;
    flow_field f;
    if (fp_field_from_array(array, "flow", &f) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_field_write(PyBytes_AS_STRING(path), &f);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    flow_field_free(&f);
    if (s != FLOW_OK)
        return fp_raise(s);
    Py_RETURN_NONE;
}

PyObject *fp_flow_formats(PyObject *self, PyObject *noargs)
{
    PyObject *list = PyList_New(0);
    for (int i = 0; list && i < flow_field_format_count(); i++) {
        const flow_field_format *f = flow_field_format_at(i);
        PyObject *t = Py_BuildValue("(sss)", f->extension, f->name, f->description);
        if (!t || PyList_Append(list, t) < 0)
            Py_CLEAR(list);
        Py_XDECREF(t);
    }
    return list;
}

PyObject *fp_read_image(PyObject *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:read_image", PyUnicode_FSConverter, &path))
        return NULL;
    flow_image img;
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_image_read(PyBytes_AS_STRING(path), &img);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (s != FLOW_OK)
        return fp_raise(s);
    PyObject *out = fp_image_to_array(&img, 0);
    flow_image_free(&img);
    return out;
}

PyObject *fp_write_image(PyObject *self, PyObject *args)
{
    PyObject *path, *array;
    if (!PyArg_ParseTuple(args, "O&O:write_image", PyUnicode_FSConverter, &path, &array))
        return NULL;
    fp_frame f;
    if (fp_frame_get(array, "image", &f) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    flow_image img;
    flow_status s = flow_image_alloc(&img, f.width, f.height, f.channels);
    if (s == FLOW_OK) {
        Py_BEGIN_ALLOW_THREADS
        fp_frame_to_float(&f, &img);
        s = flow_image_write(PyBytes_AS_STRING(path), &img);
        Py_END_ALLOW_THREADS
        flow_image_free(&img);
    }
    fp_frame_release(&f);
    Py_DECREF(path);
    if (s != FLOW_OK)
        return fp_raise(s);
    Py_RETURN_NONE;
}

PyObject *fp_read_params(PyObject *self, PyObject *args)
{
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:read_params", PyUnicode_FSConverter, &path))
        return NULL;
    flow_params *p = NULL; /* a file that names no method: the default method's */
    flow_status s;
    Py_BEGIN_ALLOW_THREADS
    s = flow_params_read(PyBytes_AS_STRING(path), &p);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (s != FLOW_OK)
        return fp_raise_as(s == FLOW_ERR_INVALID ? fp_parameter_error : fp_error, s);
    PyObject *values = fp_params_to_dict(p);
    PyObject *out = values ? Py_BuildValue("(sN)", flow_params_method(p), values) : NULL;
    flow_params_destroy(p);
    return out;
}
