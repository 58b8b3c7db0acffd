# Two entry points for a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install install-test lint model gazetteer bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

## Build the graph of the bundled example corpus into out/ and print a summary.
demo: install
	$(BIN)/kg build examples/iclr2025_abstracts.txt -o out/graph.ttl --html out/graph.html

## Install the test dependencies (and Debian's Chromium for the browser tests) and run the suite.
test: install-test
	bash scripts/ensure-chromium.sh
	$(BIN)/python -m pytest

lint: install-test
	$(BIN)/ruff check kg queries viz tests scripts
	$(BIN)/mypy kg queries viz

clean:
	rm -rf out build dist *.egg-info
