"""The README's Python snippet (the ```python block under "## Use it from Python") runs as
it is, from the repository's root."""

import os
import re
import subprocess
import sys

from conftest import ROOT


def readme_snippet():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Use it from Python", 1)[1]
    m = re.search(r"```python\n(.*?)```", section, re.S)
    assert m, "no python block after '## Use it from Python'"
    return m.group(1)


def test_the_readme_python_snippet_runs():
    code = readme_snippet()
    assert "import zonedb" in code
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=1800, env=dict(os.environ))
    assert p.returncode == 0, p.stderr[-3000:]
