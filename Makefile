# Every workflow of the course. `make book` and `make test` create .venv when it is missing.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
LEGACY_VENV ?= .venv-legacy
LEGACY_BIN := $(LEGACY_VENV)/bin
JOBS ?= 2
PROFILE ?= ci

export PYTHONHASHSEED := 0

.PHONY: help venv doctor book book-check execute test test-python test-notebooks test-exercises \
        test-legacy test-seeds lint assign figures benchmark clean

help:  ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

$(BIN)/.installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[book,dev,grade]"
	$(BIN)/python -m ipykernel install --prefix $(VENV) --name python3 >/dev/null
	@touch $@

venv: $(BIN)/.installed  ## create .venv and install coursekit with the book, dev and grade extras

doctor: venv  ## versions, device, profile and data cache as the course sees them
	$(BIN)/coursekit doctor

book: venv  ## build the HTML site (needs a network once for the theme); offline: content check
	@if $(BIN)/python -m coursekit.book online; then \
	    cd book && ../$(BIN)/jupyter-book build --html --strict; \
	    echo "HTML site: book/_build/html/index.html"; \
	else \
	    echo "No network: Jupyter Book downloads its theme at the first HTML build."; \
	    echo "Running the offline content check instead (stub theme, --strict)."; \
	    $(MAKE) --no-print-directory book-check; \
	fi

book-check: venv  ## offline content check of the book with a stub theme
	$(BIN)/python -m coursekit.book check book

execute: venv  ## re-execute the chapters in the full profile and store their outputs
	COURSEKIT_PROFILE=full OMP_NUM_THREADS=1 $(BIN)/python -m coursekit.book execute book/[0-9]*.ipynb

figures: venv  ## redraw the architecture diagrams of book/figures/
	$(BIN)/python -m coursekit.viz.diagrams book/figures

assign: venv  ## regenerate exercises/ from solutions/
	$(BIN)/coursekit assign solutions/ exercises/

test: venv test-python test-notebooks test-exercises book-check test-legacy  ## run every test

test-python: venv  ## unit, parity, data, grading and configuration tests
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n $(JOBS) --dist loadgroup tests --ignore=tests/legacy -p no:cacheprovider

test-notebooks: venv  ## nbval over the book and the solutions (PROFILE=ci by default, or full)
	COURSEKIT_PROFILE=$(PROFILE) OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval-lax --nbval-sanitize-with tests/nbval_sanitize.cfg \
	    -p no:cacheprovider book/*.ipynb solutions/*.ipynb

test-exercises: venv  ## student notebooks report "not implemented"; the grader gives solutions full marks, exercises zero
	COURSEKIT_PROFILE=ci $(BIN)/python -m coursekit.grading.selfcheck exercises/
	$(BIN)/coursekit grade --validate solutions/ --jobs $(JOBS)

test-seeds: venv  ## every chapter in the ci profile under COURSEKIT_SEED=0..4: a table of claims x seeds (not in make test)
	OMP_NUM_THREADS=1 $(BIN)/python -m coursekit.book seeds book/[0-9]*.ipynb --jobs $(JOBS)

$(LEGACY_BIN)/.installed: tests/legacy/requirements.txt
	@test -x $(LEGACY_BIN)/python || $(PYTHON) -m venv $(LEGACY_VENV)
	$(LEGACY_BIN)/python -m pip install --quiet -r tests/legacy/requirements.txt
	$(LEGACY_BIN)/python -m pip install --quiet --no-deps -e .
	@touch $@

test-legacy: $(LEGACY_BIN)/.installed  ## parity with torchtext 0.18 and transformers 4.37 (Transfo-XL) in their own venv
	OMP_NUM_THREADS=1 $(LEGACY_BIN)/python -m pytest tests/legacy -p no:cacheprovider

lint: venv  ## ruff, and mypy over the package
	$(BIN)/ruff check coursekit tests benchmarks
	$(BIN)/ruff format --check coursekit tests benchmarks
	$(BIN)/mypy

benchmark: venv  ## ratio benchmarks against the production twins
	$(BIN)/python -m benchmarks

clean:  ## remove build outputs (keeps the virtual environments)
	rm -rf book/_build .pytest_cache
