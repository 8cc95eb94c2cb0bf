"""A non-editable ``pip install .`` renders the same site as the source tree."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from site_support import store_tournament

from arena.site import render_site

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_installed_package_renders_the_same_site(tmp_path: Path) -> None:
    # Build from a copy so the build leaves nothing in the working tree.
    src = tmp_path / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("arena", "bots", "templates"):
        shutil.copytree(REPO / name, src / name, ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, src / name)
    env_dir = tmp_path / "venv"
    # A venv of its own, not one with system_site_packages: that would see the base
    # interpreter's packages, not those of the environment running the tests (a virtualenv, or
    # the system's). The dependencies come from the running environment's package directories,
    # added by a .pth file after the venv's own site-packages: its .pth files are not processed,
    # so an editable install of arena there stays invisible and the installed copy is imported.
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    inner = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    outer = [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    (Path(inner) / "_outer_environment.pth").write_text("\n".join(outer) + "\n", encoding="utf-8")
    # The installed copy, not a source tree someone put on PYTHONPATH.
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(src)],
        capture_output=True,
        text=True,
        env=clean,
    )
    assert installed.returncode == 0, installed.stderr
    where = subprocess.run(
        [str(python), "-c", "from arena.site.render import template_dir; print(template_dir())"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean,
    ).stdout.strip()
    assert Path(where).is_relative_to(env_dir), where
    assert (Path(where) / "_partials" / "hand.html").is_file()

    db = tmp_path / "arena.db"
    store_tournament(db, [("alpha", None), ("bravo", "B"), ("charlie", None)])
    subprocess.run(
        [str(python), "-m", "arena.cli", "render", "--db", str(db), "--out", "installed"],
        check=True,
        capture_output=True,
        cwd=tmp_path,
        env=clean,
    )
    render_site(db, tmp_path / "tree")
    installed = sorted(
        p.relative_to(tmp_path / "installed") for p in (tmp_path / "installed").rglob("*.*")
    )
    tree = sorted(p.relative_to(tmp_path / "tree") for p in (tmp_path / "tree").rglob("*.*"))
    assert installed == tree and len(tree) > 10
    for rel in tree:
        a = (tmp_path / "installed" / rel).read_text(encoding="utf-8")
        b = (tmp_path / "tree" / rel).read_text(encoding="utf-8")
        assert a == b, rel  # pages are dated by their results: two renders are identical
