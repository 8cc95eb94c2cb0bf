"""The package stays easy to find one's way in: every module under 600 lines, every function
under 80, and imports going one way through the layers docs/architecture.md draws."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "arena"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

# Lowest first. A module may import from its own layer and the layers below it, never above:
# the rules know nothing of processes, the store nothing of the command line.
LAYERS: list[tuple[str, ...]] = [
    ("__init__", "errors", "untrusted"),
    ("cards",),
    ("rules",),
    ("game", "solver"),
    ("worlds",),
    ("engine", "transcript", "botfile"),
    ("sandbox",),
    ("scheduler", "secrecy", "ratings", "faults", "owners", "runlock", "sequential", "duplicate"),
    ("store",),
    ("entrants", "runner", "collusion", "cluster", "tournament", "schedules", "separation"),
    ("compare",),
    ("views", "site", "reports", "tables"),
    ("cli", "cli_common", "cli_lists", "cli_compare", "play", "demo"),
]
LAYER = {unit: level for level, units in enumerate(LAYERS) for unit in units}

# Imports against the direction, each inside a function and each with its reason.
UPWARD = {
    # GameState.determinize hands over to arena.worlds, which is built on arena.game.
    ("game", "worlds"),
}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def unit_of(dotted: str) -> str:
    """``arena.store.base`` -> ``store``: a top-level module or subpackage of arena."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


def unit_of_file(path: Path) -> str:
    return unit_of(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))


@pytest.mark.parametrize("path", modules(), ids=name)
def test_every_module_is_under_600_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines < MAX_MODULE_LINES, f"{name(path)} has {lines} lines: split it by concern"


@pytest.mark.parametrize("path", modules(), ids=name)
def test_every_function_is_under_80_lines(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [
        f"{node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 >= MAX_FUNCTION_LINES
    ]
    assert not long, f"{name(path)}: {long}"


def _type_only(tree: ast.Module) -> set[int]:
    """Line numbers of the imports under ``if TYPE_CHECKING:`` (never run)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {
                n.lineno
                for s in node.body
                for n in ast.walk(s)
                if isinstance(n, ast.Import | ast.ImportFrom)
            }
    return lines


def imports(path: Path) -> list[tuple[str, int, bool]]:
    """``(unit imported, line, at module level)`` for every arena import of ``path`` that runs."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_only(tree)
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom) or node.lineno in skip:
            continue
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("arena"):
            module = node.module or ""
            targets = [f"arena.{a.name}" for a in node.names] if module == "arena" else [module]
        elif isinstance(node, ast.Import):
            targets = [a.name for a in node.names if a.name.startswith("arena")]
        else:
            continue
        out += [(unit_of(t), node.lineno, id(node) in top) for t in targets]
    return out


def test_every_unit_has_a_layer() -> None:
    units = {unit_of_file(p) for p in modules()}
    assert units <= set(LAYER), sorted(units - set(LAYER))


@pytest.mark.parametrize("path", modules(), ids=name)
def test_imports_go_down_the_layers(path: Path) -> None:
    me = unit_of_file(path)
    wrong = []
    for target, line, top in imports(path):
        if target == "__version__" or target == me:
            continue
        if LAYER[target] <= LAYER[me]:
            continue
        if (me, target) in UPWARD and not top:
            continue
        wrong.append(f"line {line}: {me} imports {target}")
    assert not wrong, f"{name(path)} imports against the layers: {wrong}"


def test_the_layer_check_sees_a_wrong_import(tmp_path: Path) -> None:
    # The check itself can fail: a store module that imports the command line is caught.
    bad = tmp_path / "arena" / "store" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f():\n    from arena.cli import main\n    return main\n")
    assert imports(bad) == [("cli", 2, False)]
    assert LAYER["cli"] > LAYER["store"]
