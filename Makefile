# Every workflow of the course. `make book` and `make test` create .venv when it is missing.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
LEGACY_VENV ?= .venv-legacy
LEGACY_BIN := $(LEGACY_VENV)/bin
COLAB_PYTHON ?= python3.12
COLAB_VENV ?= .venv-colab
COLAB_BIN := $(COLAB_VENV)/bin
COLAB_OUT := $(COLAB_VENV)/lane
COLAB_BOOK := book/01-text.ipynb book/06-bert.ipynb
COLAB_EXERCISES := exercises/01-text.ipynb exercises/06-bert.ipynb
COLAB_JUPYTER := JUPYTER_PATH=$(abspath $(COLAB_OUT))/jupyter
JOBS ?= 2
PROFILE ?= ci

export PYTHONHASHSEED := 0

.PHONY: help venv doctor book book-check execute test test-python test-notebooks test-exercises \
        test-legacy test-seeds test-colab lint assign figures benchmark clean

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

figures: venv  ## redraw the architecture diagrams that the chapters embed
	$(BIN)/python -m coursekit.viz.diagrams book/*.ipynb

assign: venv  ## regenerate exercises/ from solutions/
	$(BIN)/coursekit assign solutions/ exercises/

test: venv test-python test-notebooks test-exercises book-check test-legacy  ## run every test

test-python: venv  ## unit, parity, data, grading and configuration tests
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n $(JOBS) --dist loadgroup tests --ignore=tests/legacy -p no:cacheprovider

test-notebooks: venv  ## nbval over the book and the solutions (PROFILE=ci by default, or full)
	COURSEKIT_PROFILE=$(PROFILE) OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n $(JOBS) --dist loadfile --nbval-lax --nbval-sanitize-with tests/nbval_sanitize.cfg \
	    -p no:cacheprovider book/*.ipynb solutions/*.ipynb

test-exercises: venv  ## student notebooks report "not implemented"; the grader gives solutions full marks, exercises zero
	COURSEKIT_PROFILE=ci $(BIN)/python -m coursekit.grading.instructor.selfcheck exercises/
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

# Colab's runtime (tests/colab/runtime.txt) and a stub google.colab with Colab's kernel launcher.
# base-freeze.txt is that runtime before any set-up cell has run; test-colab starts from it. A
# rebuild (the pins changed) first returns the venv to the last base, so no install of a past run
# becomes part of the new base.
$(COLAB_BIN)/.installed: tests/colab/runtime.txt $(wildcard tests/colab/stub/*.py tests/colab/stub/*/*/*.py)
	@test -x $(COLAB_BIN)/python || $(COLAB_PYTHON) -m venv $(COLAB_VENV)
	$(COLAB_BIN)/python -c 'import sys; assert sys.version_info[:2] == (3, 12), f"Colab runs Python 3.12, not {sys.version}"'
	$(COLAB_BIN)/python -m pip install --quiet --upgrade pip
	test ! -f $(COLAB_OUT)/base-freeze.txt || \
	    $(COLAB_BIN)/python tests/colab/environment.py reset $(COLAB_OUT)/base-freeze.txt
	$(COLAB_BIN)/python -m pip install --quiet -r tests/colab/runtime.txt
	cp -R tests/colab/stub/. "$$($(COLAB_BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')"
	@mkdir -p $(COLAB_OUT)
	$(COLAB_BIN)/python -m pip freeze > $(COLAB_OUT)/base-freeze.txt
	@touch $@

# Not in `make test`: its first run downloads Colab's CUDA build of torch (several GB) into a venv
# of its own; later runs take minutes. Each run starts from Colab's runtime as built, installs the
# package as the set-up cells do (core dependencies, sacrebleu and transformers; no extra) from a
# copy of the working tree (setuptools' build/ folder stays out of the checkout), fails if that
# changed any package the runtime had, runs `pip check`, executes Chapters 1 and 6 (nbval, as in
# test-notebooks) and their exercises (selfcheck) in a kernel of that venv with the google.colab
# stub imported, then installs the test tools and runs the BERT and XLNet parity tests there
# against Colab's transformers. Freezes, diff and timings: $(COLAB_OUT)/.
test-colab: venv $(COLAB_BIN)/.installed  ## Chapters 1 and 6, their exercises, BERT/XLNet parity in a venv shaped like Colab (not in make test)
	@rm -f $(COLAB_OUT)/times.txt
	$(COLAB_BIN)/python tests/colab/environment.py reset $(COLAB_OUT)/base-freeze.txt
	$(COLAB_BIN)/python -m pip freeze > $(COLAB_OUT)/freeze-before.txt
	rm -rf $(COLAB_OUT)/source && mkdir -p $(COLAB_OUT)/source
	cp -R pyproject.toml README.md coursekit $(COLAB_OUT)/source/
	find $(COLAB_OUT)/source -name __pycache__ -prune -exec rm -rf {} +
	$(COLAB_BIN)/python -m pip install --quiet \
	    "seqmodels-coursekit @ file://$(abspath $(COLAB_OUT))/source" sacrebleu transformers
	$(COLAB_BIN)/python -m pip freeze > $(COLAB_OUT)/freeze-after.txt
	$(COLAB_BIN)/python tests/colab/environment.py compare \
	    $(COLAB_OUT)/freeze-before.txt $(COLAB_OUT)/freeze-after.txt $(COLAB_OUT)/freeze.diff
	$(COLAB_BIN)/python -m pip check
	$(COLAB_BIN)/python tests/colab/environment.py versions
	$(COLAB_JUPYTER) $(BIN)/python tests/colab/kernel.py write $(COLAB_OUT)/jupyter $(COLAB_BIN)/python
	$(COLAB_JUPYTER) $(BIN)/python tests/colab/kernel.py probe
	for notebook in $(COLAB_BOOK); do \
	    begin=$$SECONDS; \
	    $(COLAB_JUPYTER) COURSEKIT_PROFILE=ci OMP_NUM_THREADS=1 $(BIN)/python -m pytest \
	        -p no:cacheprovider --nbval-lax --nbval-kernel-name colab \
	        --nbval-sanitize-with tests/nbval_sanitize.cfg $$notebook || exit 1; \
	    echo "$$notebook: $$((SECONDS - begin)) s" | tee -a $(COLAB_OUT)/times.txt; \
	done
	for notebook in $(COLAB_EXERCISES); do \
	    begin=$$SECONDS; \
	    $(COLAB_JUPYTER) COURSEKIT_PROFILE=ci OMP_NUM_THREADS=1 \
	        $(BIN)/python -m coursekit.grading.instructor.selfcheck --kernel colab $$notebook || exit 1; \
	    echo "$$notebook: $$((SECONDS - begin)) s" | tee -a $(COLAB_OUT)/times.txt; \
	done
	grep -v ' @ ' $(COLAB_OUT)/freeze-after.txt > $(COLAB_OUT)/constraints.txt
	$(COLAB_BIN)/python -m pip install --quiet -c $(COLAB_OUT)/constraints.txt -r tests/colab/test-tools.txt
	begin=$$SECONDS; \
	PYTHONPATH=$(CURDIR)/tests/colab OMP_NUM_THREADS=1 $(COLAB_BIN)/pytest -n $(JOBS) \
	    -p no:cacheprovider -p installed_coursekit \
	    tests/models/test_bert_parity.py tests/models/test_xlnet_parity.py || exit 1; \
	echo "parity tests: $$((SECONDS - begin)) s" | tee -a $(COLAB_OUT)/times.txt
	@cat $(COLAB_OUT)/times.txt

lint: venv  ## ruff, and mypy over the package
	$(BIN)/ruff check coursekit tests benchmarks
	$(BIN)/ruff format --check coursekit tests benchmarks
	$(BIN)/mypy

benchmark: venv  ## ratio benchmarks against the production twins
	$(BIN)/python -m benchmarks

clean:  ## remove build outputs (keeps the virtual environments)
	rm -rf book/_build .pytest_cache
