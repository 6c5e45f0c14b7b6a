# graphrepro: `make book` builds the HTML book, `make test` runs every test. Both bootstrap .venv.
PYTHON      ?= python3
VENV        := .venv
PY          := $(VENV)/bin/python
STAMP       := $(VENV)/.installed-$(shell cat pyproject.toml | sha256sum | cut -c1-12)
MATHJAX     := 3.2.2
MATHJAX_JS  := _vendor/mathjax/tex-chtml.js
export GRAPHREPRO_MIRROR ?= $(abspath ../shared/data)

.PHONY: help install vendor book build-only test smoke verify bench list clean

help:
	@echo "make book    execute every chapter (standard profile, reusing results/) and build _build/html"
	@echo "make test    unit tests, every chapter under the smoke profile, the book built and opened in Chromium"
	@echo "make verify  re-train 3 random recorded runs and compare with their records"
	@echo "make bench   seconds per run and the chapter's wall time"

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[test]"
	rm -f $(VENV)/.installed-*
	touch $@

install: $(STAMP)

# MathJax 3 from the npm registry, served from the book itself so pages render offline.
$(MATHJAX_JS):
	rm -rf _build/npm && mkdir -p _build/npm _vendor
	cd _build/npm && npm pack --silent mathjax@$(MATHJAX) >/dev/null && tar xzf mathjax-$(MATHJAX).tgz
	rm -rf _vendor/mathjax && mv _build/npm/package/es5 _vendor/mathjax
	rm -rf _build/npm

vendor: $(MATHJAX_JS)

book: $(STAMP) vendor
	$(PY) -m graphrepro book --profile standard

build-only: $(STAMP) vendor
	$(PY) -m graphrepro book --no-execute

test: $(STAMP) vendor
	$(PY) -m pytest

list: $(STAMP)
	$(PY) -m graphrepro list

verify: $(STAMP)
	$(PY) -m graphrepro verify --sample 3

bench: $(STAMP)
	$(PY) -m graphrepro bench

clean:
	rm -rf _build book/executed .pytest_cache
