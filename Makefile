# Two entry points for a fresh machine: `make demo` and `make test` (see README.md).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install install-test lint model gazetteer lexicon span-types context-types termhood type-nouns bench clean \
	eval train-decisions

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
	$(BIN)/mypy kg queries viz scripts

## Rebuild the shipped data from ../shared/data (only needed when the sources change).
gazetteer: install-test
	$(BIN)/python scripts/build_gazetteer.py --vocab ../shared/data/vocab --out kg/data
lexicon: install
	$(BIN)/python scripts/build_lexicon.py ../shared/data/paperlists kg/data \
		--exclude ../shared/data/gold/dev2_papers.json ../shared/data/iclr2025_abstracts.txt
span-types: install
	$(BIN)/python scripts/build_span_types.py ../shared/data kg/data

## Where SciERC and SciREX annotators start and end terms, word by word ("detailed [X]").
termhood: install
	$(BIN)/python scripts/build_termhood.py ../shared/data kg/data

## How SciERC and SciREX annotators type spans by the words around them ("via X", "for X").
context-types: install
	$(BIN)/python scripts/build_context_types.py ../shared/data kg/data

## How the 35k background abstracts name each phrase's kind ("the X task"; gold papers left out).
type-nouns: install
	$(BIN)/python scripts/build_type_nouns.py ../shared/data/paperlists kg/data/type_nouns.tsv.gz \
		--exclude ../shared/data/gold/dev2_papers.json ../shared/data/iclr2025_abstracts.txt

## Retrain the shipped entity recogniser (about an hour of CPU; docs/MODEL.md).
model: install-test
	mkdir -p build/model
	$(BIN)/python scripts/train_vectors.py build/model/vectors.floret
	$(BIN)/python scripts/train_pretrain.py build/model/pretrain --vectors build/model/vectors.floret --epochs 1
	$(BIN)/kg train --vectors build/model/vectors.floret --init-tok2vec build/model/pretrain/model0.bin
	$(BIN)/kg train --component ner --steps 4000 -o kg/data/model_ner --vectors build/model/vectors.floret --init-tok2vec build/model/pretrain/model0.bin

## Retrain the learned extraction decisions on all gold abstracts (kg/data/decisions.json.gz).
train-decisions: install-test
	$(BIN)/python scripts/train_decisions.py

## Cross-validated extraction quality over the gold abstracts (the project's quality figures).
eval: install-test
	$(BIN)/python scripts/cv_eval.py --ablation --errors

## Build-speed benchmark on ../shared/data/paperlists/colm2025.json.gz: prints its figures and
## records them in docs/PERFORMANCE.md (as every scripts/bench_*.py does; --no-doc: do not).
bench: install-test
	$(BIN)/python scripts/bench_build.py

clean:
	rm -rf out build dist *.egg-info
