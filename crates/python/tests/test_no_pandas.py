"""Without pandas, the DataFrame parts of the lab say which extra to install."""

import subprocess
import sys

SCRIPT = r"""
import sys
sys.modules["pandas"] = None  # as if pandas were not installed
import zonedb
from conftest import TINY_SCENARIO
r = zonedb.run(TINY_SCENARIO, progress=False)
assert r.metrics["name"] == "tiny"  # the dict parts need no pandas
for attr in ("series", "latency"):
    try:
        getattr(r, attr)
    except ImportError as e:
        assert 'pip install "./crates/python[lab]"' in str(e), e
        assert "pandas" in str(e)
    else:
        raise AssertionError(attr + " worked without pandas")
print("ok")
"""


def test_series_without_pandas_names_the_lab_extra():
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    p = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                       cwd=here, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"


def test_the_lab_extra_brings_pandas():
    from importlib.metadata import requires

    import re

    lab = [r for r in requires("zonedb") if re.search(r"extra\s*==\s*['\"]lab['\"]", r)]
    assert any(r.startswith("pandas") for r in lab) and any(r.startswith("pyarrow") for r in lab)
