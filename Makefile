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

.PHONY: run test test-fast lint format typecheck migrations-check bench install system-packages services clean messages

install: $(STAMP) $(NLTK_DATA)/.ready messages

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	rm -f $(VENV)/.installed-* && touch $@

$(NLTK_DATA)/.ready: $(STAMP) analyzer/nltkdata.py scripts/prepare_wordnet.py
	@if [ -f /usr/share/wordnet/data.noun ]; then $(PY) scripts/prepare_wordnet.py $(NLTK_DATA) && touch $@; \
	else echo "WordNet (Debian wordnet-base) is not installed: synonyms are off until it is."; fi

system-packages:
	./scripts/ensure-system-packages.sh

# The German and French catalogues (locale/*/LC_MESSAGES/django.po) compiled to .mo; needs
# gettext's msgfmt (scripts/ensure-system-packages.sh installs it).
messages: $(STAMP)
	$(PY) manage.py compilemessages -l de -l fr --ignore '.venv' --ignore 'var' > /dev/null

services:
	./scripts/ensure-services.sh

# `make run`'s ports: WEBCLIP_PORT=8080 WEBCLIP_DEMO_PORT=8180 make run
WEBCLIP_PORT ?= 8000
WEBCLIP_DEMO_PORT ?= 8100
RUN_URL := http://127.0.0.1:$(WEBCLIP_PORT)

run: $(STAMP)
	-./scripts/ensure-system-packages.sh --optional
	$(MAKE) --no-print-directory $(NLTK_DATA)/.ready
	-$(MAKE) --no-print-directory messages  # without msgfmt the pages stay in English
	mkdir -p var/mailbox var/broker/queue var/broker/processed
	$(PY) manage.py migrate --no-input
	WEBCLIP_PORT=$(WEBCLIP_PORT) $(PY) manage.py bootstrap
	$(PY) manage.py demo_site --url http://127.0.0.1:$(WEBCLIP_DEMO_PORT)/
	@echo "Webclip: $(RUN_URL)  (Ctrl-C stops everything)"
	WEBCLIP_PORT=$(WEBCLIP_PORT) WEBCLIP_DEMO_PORT=$(WEBCLIP_DEMO_PORT) $(VENV)/bin/honcho -f Procfile.dev start

test: system-packages $(STAMP) services
	$(MAKE) --no-print-directory $(NLTK_DATA)/.ready messages
	$(TEST_ENV) $(PY) manage.py makemigrations --check --dry-run > /dev/null
	$(TEST_ENV) $(VENV)/bin/pytest -n 2 --dist loadfile $(PYTEST_ARGS)

# The edit-test loop: no PostgreSQL, Redis or Chromium. `--fast` (tests/conftest.py) leaves out
# the tests marked postgres, redis, browser, e2e or slow; the SQLite test database is in memory.
FAST_ENV := DATABASE_URL=sqlite://:memory: CACHE_URL=locmemcache:// CELERY_BROKER_URL=memory://

test-fast: $(STAMP)
	$(MAKE) --no-print-directory $(NLTK_DATA)/.ready
	$(FAST_ENV) $(VENV)/bin/pytest -n 2 --dist loadfile --fast $(PYTEST_ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) scripts/check_import_cycles.py
	$(PY) scripts/check_sizes.py
	$(PY) scripts/settings_table.py --check README.md
	$(MAKE) --no-print-directory typecheck

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

migrations-check: $(STAMP)
	$(PY) manage.py makemigrations --check --dry-run

BENCHMARKS := analyzer_extraction analyzer_fallbacks analyzer_robustness matching matching_quality \
              patterns crawl_throughput focused_recall hidden_web real_sites render_cost web_load \
              freshness freshness_backfill reader_view backup seed_measures seed_analyzer news_flood \
              crawl_economy

bench: install services
	@for b in $(BENCHMARKS); do echo "== bench/$$b.py"; $(TEST_ENV) $(PY) bench/$$b.py || exit 1; done

clean:
	rm -rf var staticfiles .pytest_cache .ruff_cache .mypy_cache
