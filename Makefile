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

# numba's on-disk cache (cache=True) checks only the source file of the kernel it caches,
# not the files of the functions compiled into it: after an edit to any kernel source the
# caches are dropped (they rebuild on first use), so no stale kernel keeps running.
NUMBA_SOURCES := $(shell grep -rl --include='*.py' -e 'njit' -e 'register_jitable' -e 'cuda.jit' \
	sims policies miles_ros 2>/dev/null)
NUMBA_STAMP := .numba-sources

$(NUMBA_STAMP): $(NUMBA_SOURCES)
	find . -path ./$(VENV) -prune -o -path ./$(ISAAC_VENV) -prune -o \
		\( -name '*.nbi' -o -name '*.nbc' \) -type f -exec rm -f {} +
	touch $(NUMBA_STAMP)

# `python -m tests.numba_warm` compiles every task's kernels and the safety supervisor's
# into those caches once, spread over the cores, before the test workers start: from cold,
# each worker and each `miles up`/`miles train` a test starts would compile them again until
# the first one had written them. Redone after the caches are dropped, and after .venv is
# (re)installed: numba drops a cache written by another numba version.
NUMBA_WARM := .numba-warm

$(NUMBA_WARM): $(STAMP) $(NUMBA_STAMP) tests/numba_warm.py
	$(PY) -m tests.numba_warm
	touch $(NUMBA_WARM)

demo: $(STAMP) $(NUMBA_STAMP)
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

test-browser: $(STAMP) $(NUMBA_STAMP) browser
	MILES_CHROMIUM=$(CHROMIUM) $(PY) -m pytest -q -p no:cacheprovider --durations=10 tests_browser

lint: $(STAMP)
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache $(NUMBA_STAMP) $(NUMBA_WARM)

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
