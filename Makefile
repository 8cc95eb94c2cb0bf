PY ?= python

.PHONY: check lint types test bench

check: lint types test

lint:
	$(PY) -m ruff check arena tests bench bots
	$(PY) -m ruff format --check arena

types:
	$(PY) -m mypy

test:
	$(PY) -m pytest -q

bench:
	$(PY) bench/engine.py
