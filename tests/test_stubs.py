"""The type stubs cover the whole public API, and the types they promise are the real ones.

``scripts/test.sh`` also runs mypy's stubtest (every signature of ``_ferroiter.pyi`` against
the built extension) and mypy on ``tests/typing_usage.py``; these tests need neither mypy nor
a type checker, so they guard the same ground in a plain ``pytest`` run.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import ferroiter
from ferroiter import _ferroiter

import typing_usage

PACKAGE = Path(ferroiter.__file__).parent
STUB = PACKAGE / "_ferroiter.pyi"


def _top_level_names(tree: ast.Module) -> set[str]:
    """Names a module (or stub) binds at top level: defs, classes, assignments, imports."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text(encoding="utf-8"))


def _stub_class_members(tree: ast.Module) -> dict[str, set[str]]:
    members: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members[node.name] = _top_level_names(ast.Module(body=node.body, type_ignores=[]))
    return members


def _stub_public(tree: ast.Module) -> set[str]:
    """What ``from ._ferroiter import *`` exports according to the stub: its public top-level
    names (the stub has no ``__all__``: the extension generates its functions from the op
    table, so the stub lists each name once, where it is defined)."""
    return {n for n in _top_level_names(tree) if not n.startswith("_")} - _stub_imports(tree)


def _stub_imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _public(names: object) -> set[str]:
    return {n for n in dir(names) if not n.startswith("_")}


def test_every_public_name_of_the_package_is_typed() -> None:
    """Each name of ``ferroiter.__all__`` is in the stub or defined (typed) in __init__.py."""
    stub = _top_level_names(_stub_tree())
    init = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    own = (
        {
            n.name
            for n in init.body
            if isinstance(n, ast.FunctionDef)
            and n.returns is not None
            and all(a.annotation is not None for a in n.args.args)
        }
        | {
            n.target.id
            for n in init.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
        }
        | {
            # re-exported from the package's own Python modules, which mypy --strict checks
            alias.asname or alias.name
            for n in init.body
            if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module != "_ferroiter"
            for alias in n.names
        }
    )
    missing = [name for name in ferroiter.__all__ if name not in stub and name not in own]
    assert not missing, f"public names without types (add them to _ferroiter.pyi): {missing}"
    assert not (set(ferroiter.__all__) - set(dir(ferroiter))), "__all__ names a missing object"


def test_every_name_the_extension_exports_is_in_the_stub() -> None:
    tree = _stub_tree()
    stub, stub_public = _top_level_names(tree), _stub_public(tree)
    runtime = _public(_ferroiter)
    assert runtime <= stub, f"missing from _ferroiter.pyi: {sorted(runtime - stub)}"
    assert stub_public == runtime, (
        f"the stub's public names differ from the extension's: missing "
        f"{sorted(runtime - stub_public)}, extra {sorted(stub_public - runtime)}"
    )
    # the package re-exports everything public the extension has
    assert runtime <= set(ferroiter.__all__), sorted(runtime - set(ferroiter.__all__))


def test_every_public_member_of_each_class_is_in_the_stub() -> None:
    members = _stub_class_members(_stub_tree())
    for name in _public(_ferroiter):
        cls = getattr(_ferroiter, name)
        if not inspect.isclass(cls):
            continue
        assert name in members, f"class {name} is not in the stub"
        missing = _public(cls) - members[name]
        assert not missing, f"{name}: members missing from the stub: {sorted(missing)}"


def test_the_types_the_stubs_promise_hold_at_run_time() -> None:
    """tests/typing_usage.py: mypy checks its assert_type()s, this runs its isinstance()s."""
    typing_usage.exercise()
