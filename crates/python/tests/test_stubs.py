"""The type stubs of ``zonedb._native`` name exactly what the extension exports (so they
cannot drift from the Rust side), and the package ships them (``py.typed``)."""

import ast
import importlib.resources
import inspect

import zonedb._native as native


def stub_names():
    text = importlib.resources.files("zonedb").joinpath("_native.pyi").read_text()
    tree = ast.parse(text)
    names = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            members = {
                n.name for n in node.body if isinstance(n, ast.FunctionDef)
            } if isinstance(node, ast.ClassDef) else set()
            names[node.name] = members
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = set()
    return names


def test_the_stubs_name_every_export_and_nothing_else():
    stubs = stub_names()
    exported = {n for n in dir(native) if not n.startswith("_") or n == "__version__"}
    exported.discard("__version__")
    assert set(stubs) - {"__version__"} == exported
    for cls, members in stubs.items():
        obj = getattr(native, cls)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            public = {m for m in members if not m.startswith("__") or m in dir(obj)}
            for m in public:
                assert hasattr(obj, m), f"{cls}.{m} is in the stubs, not in the module"


def test_the_package_is_typed():
    assert importlib.resources.files("zonedb").joinpath("py.typed").is_file()
