"""The package stays easy to find one's way in: every module under 600 lines, every function
under 80, and imports going one way through the layers docs/architecture.md draws."""

from __future__ import annotations

import ast
import functools
import sys
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
    ("__init__", "errors", "events", "lazy", "untrusted"),
    ("cards",),
    ("rules", "keeps"),
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
    ("web",),
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
            "arena/cli/check.py",
            "arena/cli/web.py",
        ),
        "a command imports the library when it runs, so that `arena` starts fast",
    ),
    # The front door imports what plays, checks or renders in the method that does it: a
    # read (`arena standings`, `arena ladder --status`) then loads neither the tournament
    # runner, the sandbox's pool nor the site (issue 38: under 0.3 s of CPU).
    "arena/api.py": "a read does not load the run path, the sandbox's pool or the site",
}


def modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


@functools.cache
def parsed(path: Path) -> tuple[int, ast.Module]:
    """The line count and syntax tree of one module, read once for every rule."""
    text = path.read_text(encoding="utf-8")
    return len(text.splitlines()), ast.parse(text)


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


# Each rule is one test over every module whose message names every offender: a test per
# module and rule made 400 of the suite's tests, each re-reading and re-parsing its file.


def long_modules(paths: list[Path]) -> list[str]:
    """The modules of ``paths`` of 600 lines or more, with their line counts."""
    return [
        f"{name(p)} has {lines} lines: split it by concern"
        for p in paths
        if (lines := parsed(p)[0]) >= MAX_MODULE_LINES
    ]


def long_functions(paths: list[Path]) -> list[str]:
    """The functions of ``paths`` of 80 lines or more, by module, with their lengths."""
    return [
        f"{name(p)}: {node.name} (line {node.lineno}): {node.end_lineno - node.lineno + 1} lines"
        for p in paths
        for node in ast.walk(parsed(p)[1])
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 >= MAX_FUNCTION_LINES
    ]


def test_every_module_is_under_600_lines() -> None:
    assert not long_modules(modules()), "\n".join(long_modules(modules()))


def test_every_function_is_under_80_lines() -> None:
    assert not long_functions(modules()), "\n".join(long_functions(modules()))


def test_the_size_checks_name_every_offender(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The checks can fail, and name every offending module and function, not only the first.
    package = tmp_path / "arena"
    package.mkdir()
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    files = [package / f"m{i}.py" for i in range(4)]
    body = "".join(f"    x = {i}\n" for i in range(MAX_FUNCTION_LINES))
    files[0].write_text(f"def long():\n{body}\ndef also_long():\n{body}")
    files[1].write_text("x = 1\n" * MAX_MODULE_LINES)
    files[2].write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    files[3].write_text("def short():\n    return 1\n")
    assert long_modules(files) == [
        f"arena/m1.py has {MAX_MODULE_LINES} lines: split it by concern",
        f"arena/m2.py has {MAX_MODULE_LINES + 1} lines: split it by concern",
    ]
    assert long_functions(files) == [
        f"arena/m0.py: long (line 1): {MAX_FUNCTION_LINES + 1} lines",
        f"arena/m0.py: also_long (line {MAX_FUNCTION_LINES + 3}): {MAX_FUNCTION_LINES + 1} lines",
    ]


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
    tree = parsed(path)[1]
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


def wrong_imports(paths: list[Path]) -> list[str]:
    """Every import of ``paths`` that goes up the layers, by module and line."""
    wrong = []
    for path in paths:
        me = unit_of_file(path)
        for target, line, _ in imports(path):
            if target != "__version__" and target != me and LAYER[target] > LAYER[me]:
                wrong.append(f"{name(path)} line {line}: {me} imports {target}")
    return wrong


def test_imports_go_down_the_layers() -> None:
    wrong = wrong_imports(modules())
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_the_layer_check_sees_a_wrong_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check itself can fail: a store module that imports the command line is caught, and
    # every such module is named.
    package = tmp_path / "arena"
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    bad = package / "store" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f():\n    from arena.cli import main\n    return main\n")
    also = package / "cards.py"
    also.write_text("from arena.engine import Rules\n")
    assert imports(bad) == [("cli", 2, False)]
    assert LAYER["cli"] > LAYER["store"]
    assert wrong_imports([bad, also]) == [
        "arena/store/bad.py line 2: store imports cli",
        "arena/cards.py line 1: cards imports engine",
    ]


def test_a_folder_module_may_have_a_layer_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # A unit is a folder, unless LAYERS names one of its modules: then that module is one.
    assert unit_of("arena.store.base") == "store"
    monkeypatch.setitem(LAYER, "store.base", LAYER["cli"])
    assert unit_of("arena.store.base") == "store.base"
    assert unit_of("arena.store.matches.MatchStore") == "store"


def misplaced_imports(paths: list[Path], allowed: dict[str, str]) -> list[str]:
    """The modules of ``paths`` that import arena modules inside functions without being
    ``allowed`` to, and the ``allowed`` ones that no longer do."""
    wrong = []
    for path in paths:
        inside = [f"line {line}: {target}" for target, line, top in imports(path) if not top]
        if name(path) in allowed and not inside:
            wrong.append(
                f"{name(path)} imports nothing inside functions now: drop it from the list"
            )
        elif name(path) not in allowed and inside:
            wrong.append(f"{name(path)} imports arena modules inside functions: {inside}")
    return wrong


def test_arena_modules_are_imported_at_the_top() -> None:
    wrong = misplaced_imports(modules(), FUNCTION_LEVEL)
    assert not wrong, "\n".join(wrong)


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


def test_the_checks_see_a_cycle_and_an_import_inside_a_function(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both checks can fail: a cycle through an import inside a function is one, and is seen.
    assert cycles({"game": {"worlds", "cards"}, "worlds": {"game"}, "cards": set()}) == [
        ["game", "worlds"]
    ]
    bad = tmp_path / "arena" / "game.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("import arena.cards\n\ndef f():\n    from arena import worlds\n")
    assert imports(bad) == [("cards", 1, True), ("worlds", 4, False)]
    fine = tmp_path / "arena" / "rules.py"
    fine.write_text("import arena.cards\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "arena")
    assert misplaced_imports([bad, fine], {"arena/rules.py": "a stale entry"}) == [
        "arena/game.py imports arena modules inside functions: ['line 4: worlds']",
        "arena/rules.py imports nothing inside functions now: drop it from the list",
    ]


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


def test_the_front_door_is_lazy() -> None:
    # `from arena import Arena` is the one import of arena/__init__.py that goes up the layers,
    # and only when asked for (PEP 562): a bot's sandbox imports `arena.cards` without the
    # library behind it, and `arena --help` starts without it.
    import subprocess

    code = (
        "import sys, arena, arena.cards; assert 'arena.api' not in sys.modules; "
        "from arena import Arena; assert Arena.__module__ == 'arena.api'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
