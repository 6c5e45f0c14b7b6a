# graphrepro: `make book` builds the HTML book, `make test` runs every test. Both bootstrap .venv.
PYTHON      ?= python3
VENV        := .venv
PY          := $(VENV)/bin/python
STAMP       := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)
export GRAPHREPRO_MIRROR ?= $(abspath ../shared/data)

.PHONY: help install vendor book build-only check test smoke verify bench list clean

help:
	@echo "make book    execute every chapter (standard profile, reusing results/) and build _build/html"
	@echo "make check   the fast loop: unit tests only (no chapter executed, no book built, no real dataset trained)"
	@echo "make test    every test: unit tests, every chapter under the smoke profile, the book built and opened in Chromium"
	@echo "             (in parallel, one process per core; TEST_WORKERS=1 runs them in one)"
	@echo "make verify  re-train 3 random recorded runs (each trained in at most 15 min) and compare with their records"
	@echo "make bench   seconds per run and the chapter's wall time"
	@echo "make build-only  build the HTML from the executed pages (executing only pages never executed)"

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[test]"
	rm -f $(VENV)/.installed-*
	touch $@

install: $(STAMP)

# MathJax 3 from the npm registry, served from the book itself so pages render offline (the book
# command fetches it when missing; this target only fetches it ahead of time).
vendor: $(STAMP)
	$(PY) -c "from graphrepro.build import ensure_mathjax; ensure_mathjax()"

book: $(STAMP)
	$(PY) -m graphrepro book --profile standard

build-only: $(STAMP)
	$(PY) -m graphrepro book --no-execute

check: $(STAMP)
	$(PY) -m pytest -m "not integration and not slow" -p no:cacheprovider -q

# The full suite in parallel processes, one per core; each test file stays in one process, so that a file's
# fixtures (the smoke book above all) are set up once.
TEST_WORKERS ?= auto
test: $(STAMP)
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

list: $(STAMP)
	$(PY) -m graphrepro list

verify: $(STAMP)
	$(PY) -m graphrepro verify --sample 3 --max-minutes 15

bench: $(STAMP)
	$(PY) -m graphrepro bench

clean:
	rm -rf _build book/executed .pytest_cache
