# Quick start: `make demo` and `make test`; both build .venv from nothing but python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Reinstall when the project metadata changes.
STAMP  := $(VENV)/.installed

.PHONY: demo test bench fuzz golden lint format install clean wheel-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test,ray]'
	$(BIN)/python -m ofc.pipeline.warm
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/ofc demo

# The browser test opens the report in headless Chromium: installed from Debian when missing, if run as root.
test: $(STAMP)
	@command -v chromium >/dev/null || [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		echo "could not install chromium: tests/test_browser.py will say why"
	$(BIN)/python -m pytest -q -n auto

# Build the sdist and the wheel, install the wheel into a fresh environment outside the checkout and run
# ingest, rescore, report, rules list and sql --list there (about 2 minutes: numba compiles afresh).
wheel-check: $(STAMP)
	PYTHON=$(PYTHON) $(BIN)/python -m tests.wheel_check

# `make bench BASELINE=<commit>` measures the benchmarks that compare beside that commit's code, extracted
# into .bench/<commit> and run with this environment; BENCH=<name ...> runs only those.
bench: $(STAMP)
	@if [ -n "$(BASELINE)" ] && [ ! -f .bench/$(BASELINE)/.commit ]; then \
		mkdir -p .bench/$(BASELINE) && git archive $(BASELINE) | tar -x -C .bench/$(BASELINE) && \
		git rev-parse --short $(BASELINE) > .bench/$(BASELINE)/.commit; fi
	OFC_BENCH_BASELINE=$(if $(BASELINE),$(CURDIR)/.bench/$(BASELINE),) $(BIN)/python -m tests.bench $(BENCH)

# The hostile-input properties of `make test`, with thousands of examples each.
fuzz: $(STAMP)
	OFC_FUZZ_EXAMPLES=$${OFC_FUZZ_EXAMPLES:-3000} $(BIN)/python -m pytest -q tests/test_fuzz.py

# Rewrite tests/golden from the samples; review the diff like code (tests/golden/README.md).
golden: $(STAMP)
	$(BIN)/python -m tests.golden

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

clean:
	rm -rf $(VENV) data/lake data/out .pytest_cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
