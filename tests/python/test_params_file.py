"""test_params_file.py -- .params files from Python: Context.write_params
writes what flow-compute -p reproduces, read_params reads what flow-compute
writes, and applies() names the parameters that the other values leave with
an effect (the ones a Context accepts)."""
import numpy as np
import pytest

import flowplatform as fp
from conftest import tool


def test_written_params_reproduce_the_flow_with_flow_compute(translation, tmp_path):
    f1, f2 = translation.paths[:2]
    with fp.Context("clg-nl", "cpu", alpha=35, solver="w", cycles=2) as ctx:
        flow = ctx.compute(fp.read_image(f1), fp.read_image(f2))
        ctx.write_params(tmp_path / "s.params", comment="made by a test\nsecond line")
    text = (tmp_path / "s.params").read_text()
    assert text.startswith("# made by a test\n# second line\nmethod,clg-nl\n")
    assert "alpha,35\n" in text and "solver,w\n" in text
    tool("flow-compute", "-q", "-d", "cpu", "-p", tmp_path / "s.params", f1, f2,
         "-o", tmp_path / "x.flo")
    np.testing.assert_array_equal(fp.read_flow(tmp_path / "x.flo"), flow)


def test_written_params_are_those_that_ran(translation, tmp_path):
    """Level counts that the frame size cuts short are written as they ran,
    as flow-compute writes them; before any frame, as they were given."""
    with fp.Context("hs", "cpu", warp_levels=12) as ctx:
        ctx.write_params(tmp_path / "asked.params")
        ctx.compute(*translation.frames[:2])
        ctx.write_params(tmp_path / "ran.params")
    assert fp.read_params(tmp_path / "asked.params")[1]["warp_levels"] == 12
    ran = fp.read_params(tmp_path / "ran.params")[1]["warp_levels"]
    tool("flow-compute", "-q", "-d", "cpu", "-m", "hs", "--warp-levels", 12,
         *translation.paths[:2], "-o", tmp_path / "t.flo")
    assert ran == fp.read_params(tmp_path / "t.flo.params")[1]["warp_levels"] < 12


def test_read_params_reads_flow_compute_files(translation, tmp_path):
    tool("flow-compute", "-q", "-d", "cpu", "-m", "dis", "--preset", "fast", "--patch", 12,
         *translation.paths[:2], "-o", tmp_path / "d.flo")
    method, values = fp.read_params(tmp_path / "d.flo.params")
    assert method == "dis" and values["preset"] == "fast" and values["patch"] == 12
    assert set(values) == {p["name"] for p in fp.schema("dis")["params"]}


def test_read_params_partial_file_starts_from_defaults(tmp_path):
    (tmp_path / "p.params").write_text("# comment\nmethod,hs\nalpha,12   # smoother\n")
    method, values = fp.read_params(tmp_path / "p.params")
    defaults = {p["name"]: p["default"] for p in fp.schema("hs")["params"]}
    assert method == "hs" and values == {**defaults, "alpha": 12.0}
    (tmp_path / "q.params").write_text("alpha,3\n")
    assert fp.read_params(tmp_path / "q.params")[0] == fp.default_method


@pytest.mark.parametrize("text, message", [
    ("method,hs\nalpha,-5\n", r"p.params:2: parameter alpha = -5 out of range"),
    ("method,hs\ntau,1\n", r"p.params:2: .*tau"),
    ("method,nosuch\n", r"p.params:1: .*nosuch"),
])
def test_read_params_refusals_name_file_and_line(tmp_path, text, message):
    (tmp_path / "p.params").write_text(text)
    with pytest.raises(fp.ParameterError, match=message):
        fp.read_params(tmp_path / "p.params")


def test_read_params_bytes_not_utf8(tmp_path):
    # the refusal quotes the line's bytes: ParameterError with file:line, as
    # flow-compute -p says, not a UnicodeDecodeError of the message
    (tmp_path / "p.params").write_bytes(b"method,hs\nalpha,1\xff0\n")
    with pytest.raises(fp.ParameterError, match=r"p.params:2: alpha: '1\\xff0' is not a finite number"):
        fp.read_params(tmp_path / "p.params")
    (tmp_path / "c.params").write_bytes(b"method,hs\n# caf\xe9\nalpha,12\n")
    assert fp.read_params(tmp_path / "c.params")[1]["alpha"] == 12.0


def test_params_file_errors(tmp_path):
    with pytest.raises(fp.Error, match="missing.params") as e:
        fp.read_params(tmp_path / "missing.params")
    assert e.value.status == "input/output error"
    with fp.Context("hs", "cpu") as ctx:
        with pytest.raises(fp.Error, match="no/such/dir"):
            ctx.write_params(tmp_path / "no/such/dir/x.params")
    with pytest.raises(ValueError, match="closed"):
        ctx.write_params(tmp_path / "x.params")
    assert not list(tmp_path.iterdir())


def test_applies_follows_the_other_values():
    assert "omega" not in fp.applies("hs")
    assert "omega" in fp.applies("hs", solver="rbsor")
    assert "n0" in fp.applies("hs") and "n0" not in fp.applies("hs", solver="rbsor")
    assert "warps" not in fp.applies("clg", warp_levels=0)
    assert "warps" in fp.applies("clg", warp_levels=2)
    # a value without effect is accepted here (and its name left out)
    assert "omega" not in fp.applies("hs", solver="fmg", omega=1.5)
    names = [p["name"] for p in fp.schema("robust")["params"]]
    applying = fp.applies("robust")
    assert applying == [n for n in names if n in applying]


def test_applies_names_what_a_context_accepts():
    method = "clg-nl"
    values = {"solver": "rbsor", "nonlinear_data": 0}
    for p in fp.schema(method)["params"]:
        name, kw = p["name"], dict(values)
        kw.setdefault(name, p["default"])
        if name in fp.applies(method, **values):
            fp.Context(method, "cpu", **kw).close()
        else:
            with pytest.raises(fp.ParameterError, match="no effect"):
                fp.Context(method, "cpu", **kw)


def test_applies_refusals():
    with pytest.raises(fp.ParameterError, match="alpha = -1 out of range"):
        fp.applies("hs", alpha=-1)
    with pytest.raises(fp.ParameterError, match="unknown method"):
        fp.applies("nosuch")
    with pytest.raises(fp.ParameterError, match="no parameter 'tau'"):
        fp.applies("hs", tau=1)
