"""The package stays easy to find one's way in: every module under 600 lines, every function
under 80, and imports going one way through the layers docs/architecture.md draws."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "arena"
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80

# Lowest first, one folder (or top-level module) a unit: a module may import from its own
# layer and the layers below it, never above: the rules know nothing of processes, the
# store nothing of the command line (docs/architecture.md draws the same list).
LAYERS: list[tuple[str, ...]] = [
    ("__init__", "errors", "untrusted"),
    ("cards",),
    ("rules",),
    ("game", "solver"),
    ("worlds",),
    ("engine",),
    ("sandbox",),
    ("matches",),
    ("stats",),
    ("store",),
    ("tournaments",),
    ("ladder",),
    ("cluster",),
    ("views",),
    ("site",),
    ("api",),
    ("cli",),
]
LAYER = {unit: level for level, units in enumerate(LAYERS) for unit in units}

# Files that import arena modules inside functions, each with its reason. Nothing else may:
# an import inside a function hides a dependency from the reader (and can dodge a cycle). The
# list only shrinks: a file listed here that no longer needs it fails the test.
FUNCTION_LEVEL: dict[str, str] = {
    # Run as a script inside the sandbox: it imports the staged game modules only once it has
    # set up the process, before confinement, so every bot child shares them.
    "arena/sandbox/host.py": "the bot host imports the staged game once it is set up",
    # The command modules import the library when a command runs, not when `arena` starts:
    # with every import at the top, `arena --help` took 2.5 s instead of 0.5 s (sqlite-utils
    # loads numpy, the cluster commands Dask), and so did every command and CLI test.
    **dict.fromkeys(
        (
            "arena/cli/__init__.py",
            "arena/cli/cluster.py",
            "arena/cli/common.py",
            "arena/cli/compare.py",
            "arena/cli/ladder.py",
            "arena/cli/site.py",
            "arena/cli/lists.py",
            "arena/cli/play.py",
        ),
        "a command imports the library when it runs, so that `arena` starts fast",
    ),
}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def unit_of(dotted: str) -> str:
    """``arena.store.base`` -> ``store``: a top-level module or folder of arena, or a folder's
    module that LAYERS places on a layer of its own (``stats.collusion``)."""
    parts = dotted.split(".")
    if ".".join(parts[1:3]) in LAYER:
        return ".".join(parts[1:3])
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
            targets = [f"{module}.{a.name}" for a in node.names]
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
    for target, line, _ in imports(path):
        if target == "__version__" or target == me:
            continue
        if LAYER[target] <= LAYER[me]:
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


def test_a_folder_module_may_have_a_layer_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # A unit is a folder, unless LAYERS names one of its modules: then that module is one.
    assert unit_of("arena.store.base") == "store"
    monkeypatch.setitem(LAYER, "store.base", LAYER["cli"])
    assert unit_of("arena.store.base") == "store.base"
    assert unit_of("arena.store.results.MatchRecords") == "store"


@pytest.mark.parametrize("path", modules(), ids=name)
def test_arena_modules_are_imported_at_the_top(path: Path) -> None:
    inside = [f"line {line}: {target}" for target, line, top in imports(path) if not top]
    if name(path) in FUNCTION_LEVEL:
        assert inside, f"{name(path)} imports nothing inside functions now: drop it from the list"
    else:
        assert not inside, f"{name(path)} imports arena modules inside functions: {inside}"


def _unit_graph() -> dict[str, set[str]]:
    """Which units each unit imports, at module level or inside functions."""
    graph: dict[str, set[str]] = {}
    for path in modules():
        me = unit_of_file(path)
        for target, _, _ in imports(path):
            if target not in (me, "__version__"):
                graph.setdefault(me, set()).add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of ``graph``: its strongly connected components of two or more units
    (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(unit: str) -> None:
        index[unit] = low[unit] = len(index)
        stack.append(unit)
        for other in sorted(graph.get(unit, ())):
            if other not in index:
                visit(other)
                low[unit] = min(low[unit], low[other])
            elif other in stack:
                low[unit] = min(low[unit], index[other])
        if low[unit] == index[unit]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == unit:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for unit in sorted(graph):
        if unit not in index:
            visit(unit)
    return found


def test_no_import_cycles_not_even_inside_functions() -> None:
    assert cycles(_unit_graph()) == []


def test_the_checks_see_a_cycle_and_an_import_inside_a_function(tmp_path: Path) -> None:
    # Both checks can fail: a cycle through an import inside a function is one, and is seen.
    assert cycles({"game": {"worlds", "cards"}, "worlds": {"game"}, "cards": set()}) == [
        ["game", "worlds"]
    ]
    bad = tmp_path / "arena" / "game.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("import arena.cards\n\ndef f():\n    from arena import worlds\n")
    assert imports(bad) == [("cards", 1, True), ("worlds", 4, False)]


def test_every_folder_of_the_package_ships() -> None:
    """A non-editable install ships exactly the packages pyproject.toml lists: every folder
    of ``arena/`` must be one of them (``arena.ladder`` was once missing)."""
    config = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(init.parent.relative_to(PACKAGE.parent).parts)
        for init in PACKAGE.rglob("__init__.py")
    }
    assert folders <= listed, sorted(folders - listed)
