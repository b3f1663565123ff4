# The two commands: `make demo` and `make test`. Both create .venv when missing.
# `make lint`: ruff (pinned in requirements-dev.txt) check and format check, as CI runs it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test venv lint clean

venv: $(STAMP)

$(STAMP): requirements.txt requirements-dev.txt requirements-nodeps.txt setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps -r requirements-nodeps.txt
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(STAMP)

# numba's on-disk caches (cache=True) live in $MILES_CACHE_DIR/numba/<key>/ (default
# ~/.cache/miles; sims/numba_cache.py): the key hashes the contents of every numba source
# (NUMBA_SOURCES, the list sims/numba_cache.py makes), numba's and Python's versions and
# the CPU. An edit of any of them gives a new key and an empty folder, so no stale kernel
# runs (no cache to drop, unlike numba's own beside the sources, which checks only the
# kernel's file); another clone of the same sources, at any path, loads the same kernels.
NUMBA_SOURCES := $(shell test -x $(PY) && $(PY) -m tests.numba_warm --sources)

# `python -m tests.numba_warm` compiles every task's kernels and the safety supervisor's
# into that folder once, spread over the cores, before the test workers start: from cold,
# each worker and each `miles up`/`miles train` a test starts would compile them again until
# the first one had written them. With the folder full (a clone of the same sources, or a
# checkout back at them) each job only loads them (1-3 s). Beside them the CUDA kernels are
# compiled to PTX once per key (tests/ptx_check.py; its test then reads the record). Redone
# after an edit of a numba source (a new key), and after .venv is (re)installed (numba's
# version is in the key).
NUMBA_WARM := .numba-warm

$(NUMBA_WARM): $(STAMP) $(NUMBA_SOURCES) tests/numba_warm.py tests/ptx_check.py bench/cuda_sps.py
	$(PY) -m tests.numba_warm
	touch $(NUMBA_WARM)

demo: $(STAMP)
	$(VENV)/bin/miles demo

# Every core runs tests (pytest-xdist; work stealing evens out the long tests), and the
# 25 slowest are listed at the end.
PYTEST_WORKERS ?= auto

test: $(STAMP) $(NUMBA_WARM)
	$(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal --durations=25 tests

# `make test-browser`: the operator console and the 3D view in a real headless Chromium
# (tests_browser/, Playwright driving Debian's chromium: no browser download). Installs the
# chromium package when it is missing (CI runs as root).
CHROMIUM ?= /usr/bin/chromium

.PHONY: browser test-browser

browser:
	@test -x $(CHROMIUM) || { apt-get update -q && apt-get install -y -q --no-install-recommends chromium; } \
		|| { echo "make test-browser needs Debian's chromium: apt-get install chromium (as root)"; exit 1; }

test-browser: $(STAMP) browser
	MILES_CHROMIUM=$(CHROMIUM) $(PY) -m pytest -q -p no:cacheprovider --durations=10 tests_browser

lint: $(STAMP)
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache $(NUMBA_WARM)

# --- Isaac Lab (issue 14): a separate Python 3.12 venv, it pins its own torch -------------
# `make isaac`: .venv-isaac with isaaclab (kit-less, Newton physics) and Miles installed
# editable without its torch pin, then the local asset folder (no downloads at run time).
# `make test-isaac`: the tests in tests_isaac/ (never collected by `make test`).
PYTHON312 ?= $(shell for p in python3.12 $$HOME/.pyenv/versions/3.12*/bin/python3.12; do \
	$$p -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null && echo $$p && break; done)
ISAAC_VENV := .venv-isaac
ISAAC_PY := $(ISAAC_VENV)/bin/python
ISAAC_STAMP := $(ISAAC_VENV)/.installed

.PHONY: isaac isaac-assets test-isaac

isaac: $(ISAAC_STAMP) isaac-assets

$(ISAAC_STAMP): requirements-isaac.txt requirements-isaac-importers.txt setup.py
	@test -n "$(PYTHON312)" || { echo "make isaac needs python3.12 (set PYTHON312=...)"; exit 1; }
	test -x $(ISAAC_PY) || $(PYTHON312) -m venv $(ISAAC_VENV)
	$(ISAAC_PY) -m pip install --quiet --disable-pip-version-check -r requirements-isaac.txt
	$(ISAAC_PY) -m pip install --quiet --disable-pip-version-check -r requirements-isaac-importers.txt
	$(ISAAC_PY) -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	touch $(ISAAC_STAMP)

# pybullet (the source of the Panda URDF) has no Python 3.12 wheel: its data comes from .venv.
isaac-assets: $(ISAAC_STAMP) $(STAMP)
	MILES_PYBULLET_DATA="$$($(PY) -c 'import pybullet_data; print(pybullet_data.getDataPath())')" \
		$(ISAAC_PY) -m sims.backends.isaac.assets --if-missing

test-isaac: isaac
	MILES_PYBULLET_DATA="$$($(PY) -c 'import pybullet_data; print(pybullet_data.getDataPath())')" \
		$(ISAAC_PY) -m pytest -q -p no:cacheprovider tests_isaac
