"""``pip show zonedb`` has an author and a home page; the wheel installs a ``zonedb``
console command that runs the bundled command line."""

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points, metadata

import zonedb


def test_pip_show_has_author_and_home_page():
    m = metadata("zonedb")
    assert m["Name"] == "zonedb"
    assert m.get("Author") or m.get("Author-email")
    urls = m.get_all("Project-URL") or []
    assert m.get("Home-page") or any(u.lower().startswith("homepage") for u in urls), urls
    p = subprocess.run([sys.executable, "-m", "pip", "show", "zonedb"],
                       capture_output=True, text=True, check=True)
    fields = dict(line.split(": ", 1) for line in p.stdout.splitlines() if ": " in line)
    assert fields.get("Author") or fields.get("Author-email")
    assert fields.get("Home-page"), p.stdout


def zonedb_command():
    eps = entry_points()
    scripts = eps.select(group="console_scripts") if hasattr(eps, "select") else eps[
        "console_scripts"]
    assert any(e.name == "zonedb" and e.value == "zonedb._cli:main" for e in scripts)
    exe = shutil.which("zonedb", path=os.path.dirname(sys.executable))
    assert exe, "the wheel installs bin/zonedb next to python"
    return exe


def test_the_console_command_runs_the_cli(tmp_path, tiny_scenario):
    exe = zonedb_command()
    v = subprocess.run([exe, "--version"], capture_output=True, text=True, check=True)
    assert zonedb.__version__ in v.stdout
    h = subprocess.run([exe, "--help"], capture_output=True, text=True, check=True)
    for cmd in ("run", "compare", "reproduce", "sweep"):
        assert f"  {cmd}" in h.stdout
    bad = subprocess.run([exe, "no-such-command"], capture_output=True, text=True)
    assert bad.returncode == 2 and "no-such-command" in bad.stderr
    path = tmp_path / "tiny.toml"
    path.write_text(zonedb._native.toml_of_json(json.dumps(tiny_scenario)))
    r = subprocess.run([exe, "run", str(path), "--json", "--no-report"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    j = json.loads(r.stdout)
    py = zonedb.run(tiny_scenario, progress=False).json
    j.pop("host"), py.pop("host")
    assert j == py
