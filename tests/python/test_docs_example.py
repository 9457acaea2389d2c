"""test_docs_example.py -- the example of docs/python.md, run as the page
says (from the top of the checkout), prints the figures the page quotes
(all but the time, the machine's thread count and the temporary
directory's name) and writes its files
into a new temporary directory, nothing into the checkout.  Skipped without
RubberWhale in ../shared/data, which the example reads."""
import os
import re
import subprocess
import sys

import pytest

import flowplatform as fp
from conftest import ROOT

DOC = os.path.join(ROOT, "docs", "python.md")


def blocks():
    """The page's example (the python block) and its output (the first
    plain block after it)."""
    with open(DOC) as f:
        text = f.read()
    code = re.search(r"^## Example\n.*?^```python\n(.*?)^```\n", text, re.M | re.S)
    output = re.search(r"^```\n(.*?)^```\n", text[code.end():], re.M | re.S)
    return code.group(1), output.group(1).splitlines()


def test_example_prints_the_quoted_figures(tmp_path):
    if not os.path.isdir(os.path.join(ROOT, "..", "shared", "data", "middlebury", "RubberWhale")):
        pytest.skip("no ../shared/data/middlebury/RubberWhale (the example reads it)")
    code, quoted = blocks()
    script = tmp_path / "example.py"
    script.write_text(code)
    before = set(os.listdir(ROOT))
    env = dict(os.environ, TMPDIR=str(tmp_path),
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(fp.__file__))))
    r = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    printed = r.stdout.splitlines()
    assert len(printed) == len(quoted) == 3, (printed, quoted)
    # the first line: all but the time and the machine's thread count
    machine = re.compile(r"[0-9.]+ s$|\([0-9]+ threads?\)")
    assert machine.sub("", printed[0]) == machine.sub("", quoted[0]), (printed[0], quoted[0])
    assert printed[1] == quoted[1]
    where = re.compile(r"/\S+$")
    assert where.sub("", printed[2]) == where.sub("", quoted[2]), (printed[2], quoted[2])
    out = where.search(printed[2]).group(0)
    assert os.path.dirname(out) == str(tmp_path)
    assert sorted(os.listdir(out)) == ["rubberwhale-color.png", "rubberwhale.flo"]
    assert set(os.listdir(ROOT)) == before
