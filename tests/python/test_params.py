"""test_params.py -- methods() and schema() as data a program can build
controls from, and parameters by name: accepted forms, the library's
refusals as ParameterError, wrong types as TypeError."""
import pytest

import flowplatform as fp
from conftest import tool


def test_methods_are_the_registry():
    names = fp.methods()
    assert fp.default_method in names and "robust" in names
    # the same list as flow-compute's --help
    listed = tool("flow-compute", "--help")
    assert all(f"{m}: " in listed for m in names)


@pytest.mark.parametrize("method", fp.methods())
def test_schema_is_consistent(method):
    s = fp.schema(method)
    assert s["name"] == method and s["title"]
    assert s["is_default"] == (method == fp.default_method)
    assert s["params"]
    for p in s["params"]:
        kind, d = p["type"], p["default"]
        assert p["help"] and isinstance(p["name"], str)
        assert p["when"] is None or isinstance(p["when"], str)
        if kind == "choice":
            assert d in p["choices"] and p["min"] is None
        elif kind == "bool":
            assert isinstance(d, bool) and p["choices"] is None
        else:
            assert type(d) is (float if kind == "real" else int)
            assert p["min"] <= d <= p["max"]
            assert not (p["min_open"] and d == p["min"]) and not (p["max_open"] and d == p["max"])
            assert not p["odd"] or d % 2 == 1


@pytest.mark.parametrize("method", fp.methods())
def test_defaults_are_what_a_context_gets(method):
    with fp.Context(method, "cpu") as ctx:
        values = ctx.params
    assert values == {p["name"]: p["default"] for p in fp.schema(method)["params"]}


def test_accepted_forms():
    with fp.Context("clg-nl", "cpu", alpha="35", solver="w", cycles=2.0, color=True) as ctx:
        p = ctx.params
    assert (p["alpha"], p["solver"], p["cycles"], p["color"]) == (35.0, "w", 2, True)


def test_order_of_keywords_does_not_matter():
    a = fp.Context("dis", "cpu", patch=12, stride=10)
    b = fp.Context("dis", "cpu", stride=10, patch=12)
    assert a.params == b.params
    a.close(), b.close()


@pytest.mark.parametrize("method, kwargs, message", [
    ("nosuch", {}, "unknown method 'nosuch'"),
    ("robust", {"tau": 1}, "method robust has no parameter 'tau'"),
    ("robust", {"alpha": -5}, r"alpha = -5 out of range \(0 < alpha"),
    ("hs", {"solver": "newton"}, "unknown solver 'newton'"),
    ("hs", {"iterations": "many"}, "not an integer"),
    ("hs", {"solver": "fmg", "omega": 1.5}, "omega of method hs has no effect here"),
])
def test_refused_parameters(method, kwargs, message):
    with pytest.raises(fp.ParameterError, match=message) as e:
        fp.Context(method, "cpu", **kwargs)
    assert isinstance(e.value, ValueError) and isinstance(e.value, fp.Error)
    assert e.value.status == "invalid argument"


@pytest.mark.parametrize("method, device, kwargs, message", [
    ("hs", "cpu", {"solver": "fmg\0x"}, r"parameter solver: 'fmg\\x00x' has a NUL character"),
    ("hs", "cpu", {"alpha": "10\0junk"}, r"parameter alpha: '10\\x00junk' has a NUL character"),
    ("hs", "cpu", {"alpha\0x": 3}, r"parameter name: 'alpha\\x00x' has a NUL character"),
    ("hs\0x", "cpu", {}, r"method: 'hs\\x00x' has a NUL character"),
    ("hs", "cpu\0x", {}, r"device: 'cpu\\x00x' has a NUL character"),
])
def test_text_with_a_nul_is_refused_not_cut(method, device, kwargs, message):
    # C reads a string up to its NUL: 'fmg\0x' must not pass for fmg
    with pytest.raises(fp.ParameterError, match=message):
        fp.Context(method, device, **kwargs)


def test_compute_refuses_parameters_before_computing(translation):
    with pytest.raises(fp.ParameterError, match="alpha"):
        fp.compute(*translation.frames[:2], "hs", "cpu", alpha=0)


def test_wrong_types():
    with pytest.raises(TypeError, match="alpha: expected a number or a string, not list"):
        fp.Context("hs", "cpu", alpha=[1])
    with pytest.raises(TypeError, match="method must be a str"):
        fp.Context(3)
    with pytest.raises(TypeError, match="multiple values for argument 'device'"):
        fp.Context("hs", "cpu", device="cpu")
    with pytest.raises(fp.ParameterError, match="unknown method"):
        fp.schema("nosuch")
