"""test_package.py -- the package's public face: its namespace is __all__
(no helper such as namedtuple leaks into it), the type stubs name every
public function, class, method and attribute of the extension with the
parameters it takes, py.typed marks the package as typed, and an
interpreter without numpy is told so, naming itself."""
import ast
import inspect
import os
import subprocess
import sys

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


def test_without_numpy_the_import_says_which_python():
    # numpy made unimportable in a fresh interpreter, as in a Python without it
    code = ("import sys; sys.modules['numpy'] = None; sys.path.insert(0, sys.argv[1]); "
            "import flowplatform")
    r = subprocess.run([sys.executable, "-c", code, os.path.dirname(PACKAGE)],
                       capture_output=True, text=True)
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: flowplatform needs numpy, which %s (Python %s) cannot "
                           "import" % (sys.executable, sys.version.split()[0])), last
    assert "install numpy for this interpreter" in last
