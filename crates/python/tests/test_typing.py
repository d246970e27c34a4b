"""Every public function and method of ``zonedb`` has a docstring and type hints (the Python
side by its annotations, the native side by ``_native.pyi``), and ``zonedb.open``'s
signature is typed."""

import ast
import dataclasses
import importlib.resources
import inspect
import typing

import zonedb
import zonedb._native as native


def public_python_functions():
    for name in zonedb.__all__:
        obj = getattr(zonedb, name)
        if inspect.isfunction(obj):
            yield name, obj
        elif inspect.isclass(obj) and obj.__module__.startswith("zonedb.") and \
                obj.__module__ != "zonedb._native" and not issubclass(obj, BaseException):
            for m, f in vars(obj).items():
                if m == "__init__" and dataclasses.is_dataclass(obj):
                    continue  # generated from the typed fields
                if inspect.isfunction(f) and (not m.startswith("_") or m in ("__init__", "__len__")):
                    yield f"{name}.{m}", f
                elif isinstance(f, property):
                    yield f"{name}.{m}", f.fget


def test_every_public_python_function_is_documented_and_typed():
    missing = []
    for name, f in public_python_functions():
        if not (f.__doc__ or "").strip():
            missing.append(f"{name}: no docstring")
        hints = typing.get_type_hints(f)
        sig = inspect.signature(f)
        for p in sig.parameters.values():
            if p.name != "self" and p.name not in hints:
                missing.append(f"{name}: parameter {p.name} has no type")
        if "return" not in hints:
            missing.append(f"{name}: no return type")
    assert missing == []


def test_open_is_typed():
    hints = typing.get_type_hints(zonedb.open)
    assert hints["return"] is zonedb.Store
    assert {"path", "device", "options"} <= set(hints)


def test_every_native_method_has_a_docstring_and_typed_stubs():
    text = importlib.resources.files("zonedb").joinpath("_native.pyi").read_text()
    tree = ast.parse(text)
    problems = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not issubclass(getattr(native, node.name),
                                                             BaseException):
            cls = getattr(native, node.name)
            for f in node.body:
                if not isinstance(f, ast.FunctionDef):
                    continue
                if node.name in ("Store", "Snapshot", "Iter") and not (
                        getattr(cls, f.name).__doc__ or "").strip():
                    problems.append(f"{node.name}.{f.name}: no docstring")
                args = [a for a in f.args.args + f.args.kwonlyargs if a.arg != "self"]
                if any(a.annotation is None for a in args) or f.returns is None:
                    problems.append(f"{node.name}.{f.name}: untyped stub")
        elif isinstance(node, ast.FunctionDef):
            if not (getattr(native, node.name).__doc__ or "").strip():
                problems.append(f"{node.name}: no docstring")
            args = node.args.args + node.args.kwonlyargs
            if any(a.annotation is None for a in args) or node.returns is None:
                problems.append(f"{node.name}: untyped stub")
    assert problems == []
