# The interpreter: the active virtualenv's, else ./.venv, created with `python3 -m venv` (Debian
# 12 has no `python`, and PEP 668 keeps pip out of the system's interpreter).
ifdef VIRTUAL_ENV
VENV := $(VIRTUAL_ENV)
else
VENV := .venv
endif
PY := $(VENV)/bin/python
ROUNDS ?= 20

# System packages, installed as root on Debian/Ubuntu when missing (elsewhere `arena doctor`
# tells what the sandbox lacks): the sandbox's, then those the tests add (the browser test).
SANDBOX_PACKAGES := bubblewrap python3-seccomp python3-venv
# The toolchains of bots in other languages (docs/languages.md; `arena doctor` lists them).
LANGUAGE_PACKAGES := gcc g++ libc6-dev rustc golang-go nodejs default-jdk-headless
TEST_PACKAGES := $(SANDBOX_PACKAGES) $(LANGUAGE_PACKAGES) chromium chromium-driver

.PHONY: check lint types test test-fast bench docs screenshots setup setup-test setup-docs tournament

# The test command (README): set up, then lint, types and the whole test suite.
check: lint types test

lint: setup-test
	$(PY) -m ruff check arena tests bench bots
	$(PY) -m ruff format --check arena tests bench bots

types: setup-test
	$(PY) -m mypy

# On parallel workers (pytest-xdist): most slow tests wait (sandbox wall limits, subprocesses,
# clusters, a browser) rather than compute, so four workers pay even on two cores. Tests go to
# whichever worker is free; a file sharing a module-scoped fixture stays on one worker
# (tests/conftest.py). TEST_WORKERS=0 runs them in this process, one after another.
TEST_WORKERS ?= 4
PYTEST := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

test: setup-test
	$(PYTEST)

# The fast tier for the edit-test loop (docs/contributing.md): everything not marked slow
# (tests/conftest.py marks the slow files and tests, with the reason). CI runs `make check`.
# In one process: the tier computes rather than waits, and four workers took more wall time
# and 1.4x the CPU on two busy cores (docs/benchmarks.md); FAST_WORKERS=4 to try them.
FAST_WORKERS ?= 0
test-fast: setup-test
	$(PY) -m pytest -q -n $(FAST_WORKERS) --dist loadgroup -m "not slow"

define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "apt-get install" $$missing; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

$(VENV)/bin/python:
	$(call apt_install,$(SANDBOX_PACKAGES))
	python3 -m venv $(VENV)

# The package (editable) and, for setup-test, its test extra; redone when pyproject.toml changes.
$(VENV)/.arena-setup: pyproject.toml | $(VENV)/bin/python
	$(call apt_install,$(SANDBOX_PACKAGES))
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.arena-setup-test: pyproject.toml | $(VENV)/bin/python
	$(call apt_install,$(TEST_PACKAGES))
	$(PY) -m pip install -q -e '.[test]'
	touch $@

$(VENV)/.arena-setup-docs: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[docs]'
	touch $@

setup: $(VENV)/.arena-setup

setup-test: $(VENV)/.arena-setup-test

setup-docs: $(VENV)/.arena-setup-docs

# The main job: a duplicate round robin of the bundled bots into arena.db, and the site.
tournament: setup
	$(VENV)/bin/arena run random heuristic montecarlo --rounds $(ROUNDS)

bench: setup
	$(PY) bench/engine.py
	$(PY) bench/sandbox.py
	$(PY) bench/tournament.py

# The documentation site (mkdocs.yml, docs/) into site-docs/; strict: a broken link, a missing
# page or an unreadable docstring fails the build. (arena-site/ is the standings site.)
docs: setup-docs
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

# The README's screenshots (docs/images/): a small real tournament's site in headless Chromium.
screenshots: setup-test
	$(PY) bench/screenshots.py
