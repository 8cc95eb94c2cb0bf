PY ?= python
ROUNDS ?= 20

.PHONY: check lint types test bench setup tournament

# The test command (README): lint, types, then the whole test suite.
check: lint types test

lint:
	$(PY) -m ruff check arena tests bench bots
	$(PY) -m ruff format --check arena

types:
	$(PY) -m mypy

test:
	$(PY) -m pytest -q

# The sandbox's system packages (as root on Debian/Ubuntu; elsewhere `arena doctor` tells what
# is missing), then the package itself.
setup:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  apt-get update -qq && apt-get install -y -qq bubblewrap python3-seccomp >/dev/null; \
	fi
	$(PY) -m pip install -q -e .

# The main job: a duplicate round robin of the bundled bots into arena.db, and the site.
tournament: setup
	arena run bots/*.py --rounds $(ROUNDS) --out site

bench:
	$(PY) bench/engine.py
	$(PY) bench/sandbox.py
	$(PY) bench/tournament.py
