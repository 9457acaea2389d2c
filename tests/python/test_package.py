"""test_package.py -- the package's public face: its namespace is __all__
(no helper such as namedtuple leaks into it), the type stubs name every
public function, class, method and attribute of the extension with the
parameters it takes, and py.typed marks the package as typed."""
import ast
import inspect
import os

import flowplatform as fp
from flowplatform import _flowplatform as ext

PACKAGE = os.path.dirname(fp.__file__)


def stub():
    with open(os.path.join(PACKAGE, "_flowplatform.pyi")) as f:
        return ast.parse(f.read())


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_namespace_is_all():
    assert public(dir(fp)) == set(fp.__all__)
    assert "namedtuple" not in dir(fp)


def test_package_is_typed():
    assert os.path.isfile(os.path.join(PACKAGE, "py.typed"))


def stub_names(body):
    """Top-level names of a stub body: functions, classes, annotated names."""
    names = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = node
    return names


def params_of(fn):
    a = fn.args
    return [x.arg for x in a.args + a.kwonlyargs if x.arg != "self"]


def test_stub_covers_the_extension():
    names = stub_names(stub().body)
    assert public(dir(ext)) <= set(names), public(dir(ext)) - set(names)
    for name in public(dir(ext)):
        obj = getattr(ext, name)
        if inspect.isbuiltin(obj):
            # the first line of the docstring is the signature: "read_flow(path) -> ndarray"
            want = obj.__doc__.split("(", 1)[1].split(")", 1)[0]
            want = [p.split("=")[0].strip() for p in want.split(",") if p.strip()]
            want = [p for p in want if not p.startswith("**")]
            assert params_of(names[name]) == want, name
        elif inspect.isclass(obj) and not issubclass(obj, BaseException):
            members = stub_names(names[name].body)
            assert public(dir(obj)) <= set(members), (name, public(dir(obj)) - set(members))
