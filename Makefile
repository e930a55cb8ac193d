# Webclip: `make run` for a local instance, `make test` for the whole suite on real services.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
NLTK_DATA := var/nltk_data
TEST_ENV := DATABASE_URL=$${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/webclip} \
            CACHE_URL=$${CACHE_URL:-redis://127.0.0.1:6379/1} \
            CELERY_BROKER_URL=$${CELERY_BROKER_URL:-redis://127.0.0.1:6379/2}

.PHONY: run test lint format typecheck migrations-check bench install system-packages services clean

install: $(STAMP) $(NLTK_DATA)/.ready

$(STAMP): pyproject.toml setup.py clipping/matching/_speedups.c
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	rm -f $(VENV)/.installed-* && touch $@

$(NLTK_DATA)/.ready: $(STAMP) analyzer/nltkdata.py
	@if [ -f /usr/share/wordnet/data.noun ]; then $(PY) -m analyzer.nltkdata $(NLTK_DATA) && touch $@; \
	else echo "WordNet (Debian wordnet-base) is not installed: synonyms are off until it is."; fi

system-packages:
	./scripts/ensure-system-packages.sh

services:
	./scripts/ensure-services.sh

run: $(STAMP)
	-./scripts/ensure-system-packages.sh --optional
	$(MAKE) --no-print-directory $(NLTK_DATA)/.ready
	mkdir -p var/mailbox var/broker/queue var/broker/processed
	$(PY) manage.py migrate --no-input
	$(PY) manage.py bootstrap
	$(PY) manage.py demo_site --url http://127.0.0.1:8100/
	@echo "Webclip: http://127.0.0.1:8000  (Ctrl-C stops everything)"
	$(VENV)/bin/honcho -f Procfile.dev start

test: system-packages $(STAMP) services
	$(MAKE) --no-print-directory $(NLTK_DATA)/.ready
	$(TEST_ENV) $(PY) manage.py makemigrations --check --dry-run > /dev/null
	$(TEST_ENV) $(VENV)/bin/pytest -n 2 --dist loadfile $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

migrations-check: $(STAMP)
	$(PY) manage.py makemigrations --check --dry-run

BENCHMARKS := analyzer_extraction analyzer_robustness matching crawl_throughput focused_recall \
              hidden_web web_load

bench: install services
	@for b in $(BENCHMARKS); do echo "== bench/$$b.py"; $(TEST_ENV) $(PY) bench/$$b.py || exit 1; done

clean:
	rm -rf var staticfiles .pytest_cache .ruff_cache .mypy_cache
