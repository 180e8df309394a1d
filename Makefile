# The two commands of the README: `make lab` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TOOLS := .tools
ANVIL := $(TOOLS)/node_modules/.bin/anvil

.PHONY: lab demo tapes outputs test warm warm-lab test-other-python test-floors lint format typecheck docs tools anvil pyright browser bench clean
.PHONY: lite lite-serve pyodide-core

# The newest Python besides the default that the machine has (3.13, else 3.12; from PATH or
# pyenv): `make test` runs a fast subset of the tests on it too. OTHER_PYTHON= skips that.
DEFAULT_MINOR := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifeq ($(origin OTHER_PYTHON),undefined)
OTHER_PYTHON := $(shell for v in 3.13 3.12; do [ "$$v" = "$(DEFAULT_MINOR)" ] && continue; \
	for p in $$HOME/.pyenv/versions/$$v.*/bin/python python$$v; do \
	$$p -c '' 2>/dev/null && { echo $$p; exit; }; done; done)
endif
OTHER_VENV := .venv-other

# Python writes each module's bytecode once (__pycache__, ignored by git and by the tests' tree
# check) and every later process reads it back, even where the environment says not to: uv
# installs without bytecode, and `make test` starts well over a hundred Python processes (two
# workers, a kernel per notebook run, JupyterLab, Voila, the benchmarks' scripts, the subsets),
# each of which would otherwise compile pandas, matplotlib, Jupyter and the toolkit from source
# again, and pytest would rewrite every test module's asserts again in each worker.
unexport PYTHONDONTWRITEBYTECODE

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Installs go through uv (installed into .venv by pip first), which resolves and installs the
# same versions as pip in a fraction of the time (a new user's `make lab`: 69 s with pip) and
# reads [tool.uv] in pyproject.toml, which leaves out rfc3987-syntax (3 s of CPU at every
# JupyterLab start). CI builds the developer venv from nothing on every run.
UV := $(VENV)/bin/uv

$(UV): | $(PY)
	$(PY) -m pip install --quiet 'uv>=0.5'

# Stamp files make re-runs fast: reinstall only when pyproject.toml changes.
# The notebooks' needs: JupyterLab and what the notebooks import (the lab extra), and Dask for
# notebook 09's local cluster.
LAB_EXTRAS := lab,scale
$(VENV)/.lab-installed: pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) -e '.[$(LAB_EXTRAS)]'
	@touch $@

$(VENV)/.dev-installed: pyproject.toml | $(UV)
	$(UV) pip install --quiet --python $(PY) -e '.[dev]'
	@touch $@

# What `make lab` installs and nothing more, for the notebooks' tests: their kernels run here
# (NODE_GATEWAY_NOTEBOOK_PYTHON, read by tests/notebooks/kernel.py), so a notebook that imports
# a package only the test or dev extras bring fails `make test` as it would fail a new user's
# `make lab`. The same extras as .venv's lab install; uv installs them in seconds from the cache
# the dev install filled.
LAB_VENV := .venv-lab

$(LAB_VENV)/.installed: pyproject.toml | $(UV)
	rm -rf $(LAB_VENV)
	$(UV) venv --quiet --python $(PY) $(LAB_VENV)
	$(UV) pip install --quiet --python $(LAB_VENV)/bin/python -e '.[$(LAB_EXTRAS)]'
	@touch $@

# JupyterLab refuses root unless told; containers and CI machines often run as root.
# TAPES=replay runs every notebook from its tape in notebooks/tapes/ (no sandbox, no key, no
# network); TAPES=record records them anew as you run them.
lab: $(VENV)/.lab-installed
	$(if $(TAPES),NODE_GATEWAY_TAPE=$(CURDIR)/notebooks/tapes NODE_GATEWAY_TAPE_MODE=$(TAPES)) \
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# The explorer and the workload builder as a dashboard: notebook 06 in Voilà (outputs, no code),
# on http://127.0.0.1:8866 against the embedded sandbox, or with TAPES=replay from its tape. A
# kernel is pre-heated (the notebook run before anyone asks), so the page comes at once.
demo: $(VENV)/.lab-installed
	$(if $(TAPES),NODE_GATEWAY_TAPE=$(CURDIR)/notebooks/tapes/06_interactive_explorer.tape.gz \
		NODE_GATEWAY_TAPE_MODE=$(TAPES)) \
	$(VENV)/bin/voila notebooks/06_interactive_explorer.ipynb --Voila.ip=127.0.0.1 \
		--preheat_kernel=True

# Record every notebook's tape anew from the sandbox (after a notebook changes its calls), then
# its outputs, which new tapes change.
tapes: $(VENV)/.dev-installed
	$(PY) -m tests.notebooks.kernel
	@$(MAKE) --no-print-directory outputs

# The notebooks are committed with their outputs, for a reader on the repository's web page:
# each replayed from its tape and written back (`make test` fails when one is not current). The
# kernels run in .venv-lab, as in `make test`, so the outputs are the ones it compares with.
# The sample report in docs/ (notebook 08's, from its tape) is refreshed with them.
outputs: $(VENV)/.dev-installed $(LAB_VENV)/.installed
	NODE_GATEWAY_NOTEBOOK_PYTHON=$(CURDIR)/$(LAB_VENV)/bin/python \
		$(PY) -m tests.notebooks.kernel --outputs
	$(PY) -m toolkit report notebooks/08_budgeting_a_research_workload.ipynb \
		--tape notebooks/tapes/08_budgeting_a_research_workload.tape.gz -o docs/report-08-budgeting.html

# Anvil (Foundry's EVM node) from npm into a project-local folder, for the real-node tests.
$(ANVIL):
	@if command -v npm >/dev/null; then \
		npm install --silent --no-audit --no-fund --prefix $(TOOLS) @foundry-rs/anvil@1.7.1; \
	else echo "npm not found: the Anvil tests will be skipped"; fi

anvil: $(ANVIL)

# Pyright (the checker behind VS Code's Pylance) from npm, beside Anvil: the README's examples
# must type-check under it as under mypy (tests/test_types.py skips it without npm).
PYRIGHT := $(TOOLS)/node_modules/.bin/pyright

$(PYRIGHT):
	@if command -v npm >/dev/null; then \
		npm install --silent --no-audit --no-fund --prefix $(TOOLS) pyright@1.1.414; \
	else echo "npm not found: the pyright test will be skipped"; fi

pyright: $(PYRIGHT)

# The classroom's static JupyterLite site (docs/classroom.md, lite/build.py): the toolkit's
# wheel, the pure-Python wheels it needs that Pyodide lacks (from PyPI, kept in .tools), the
# notebooks and their tapes, into LITE_OUT (git-ignored). jupyterlite-core and the Pyodide kernel
# live in a venv of their own under .tools (pinned in lite/requirements.txt). Pyodide comes
# from the kernel's CDN when the site is opened, or from the site itself with
# LITE_PYODIDE=<a Pyodide release tarball, path or URL>. `make lite-serve` serves the site on
# 127.0.0.1:LITE_PORT (0: a free port; the address is printed).
LITE_OUT ?= lite/_output
LITE_PORT ?= 8765
LITE_VENV := $(TOOLS)/lite-venv

$(LITE_VENV)/.installed: lite/requirements.txt | $(UV)
	rm -rf $(LITE_VENV)
	$(UV) venv --quiet --python $(PY) $(LITE_VENV)
	$(UV) pip install --quiet --python $(LITE_VENV)/bin/python -r lite/requirements.txt
	@touch $@

lite: $(LITE_VENV)/.installed
	$(LITE_VENV)/bin/python lite/build.py --out $(LITE_OUT) --uv $(UV) \
		--cache $(TOOLS)/lite-wheels $(if $(LITE_PYODIDE),--pyodide $(LITE_PYODIDE))

lite-serve: $(LITE_VENV)/.installed
	@[ -f $(LITE_OUT)/index.html ] || $(MAKE) --no-print-directory lite
	$(LITE_VENV)/bin/python lite/serve.py $(LITE_OUT) --port $(LITE_PORT)

# Pyodide's core (the interpreter and its standard library, no packages) from npm, beside
# Anvil, for tests/lite: the toolkit's pure-Python layers run in it under Node.
PYODIDE_CORE := $(TOOLS)/node_modules/pyodide/pyodide.asm.wasm

$(PYODIDE_CORE):
	@if command -v npm >/dev/null; then \
		npm install --silent --no-audit --no-fund --prefix $(TOOLS) pyodide@314.0.8; \
	else echo "npm not found: the Pyodide test will be skipped"; fi

pyodide-core: $(PYODIDE_CORE)

# Debian's Chromium for the JupyterLab end-to-end test (Playwright drives it; it never downloads
# a browser of its own). Installed when missing and we may (root with apt); else the test skips.
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian chromium for the browser test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium missing and not root: the browser test will be skipped"; fi

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check toolkit tests bench lite
	$(VENV)/bin/ruff format --check toolkit tests bench lite

format: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check --fix toolkit tests bench lite
	$(VENV)/bin/ruff format toolkit tests bench lite

# mypy on the package, with the settings in pyproject.toml ([tool.mypy]); the README's examples
# are checked by tests/test_types.py. After a catalog change, regenerate the helpers' typed
# signatures first: `python -m toolkit.client._stubs`.
typecheck: $(VENV)/.dev-installed
	$(VENV)/bin/mypy

# The documentation site (mkdocs.yml): the guides in docs/ and the API reference from the
# docstrings, into site/. Warnings are errors: a broken link, anchor or docstring fails it.
docs: $(VENV)/.dev-installed
	$(VENV)/bin/mkdocs build --strict --quiet

# Why `make test` is laid out as it is:
# - First the checks that need no test run, side by side (-j4): ruff, mypy and the docs'
#   build are one process each, and the notebooks' and the subsets' venvs are mostly uv
#   copying from its cache and pyright's install npm's download, so together they take about
#   the time of the longest (mypy) instead of their sum; -Otarget prints each one's output
#   whole once it ends. The venvs are made here, before the main run, since its tree check
#   (tests/conftest.py) would see a venv appear during it.
# - The whole suite runs in TEST_WORKERS processes (pytest-xdist): much of its
#   time is spent waiting on other processes (notebook kernels, JupyterLab, Chromium, Voila,
#   the benchmark script) or on sleeps, so a second worker keeps the second core busy. (A third
#   worker made the suite shorter, 641 s to 573 s, and showed a bug in two CI runs of four: a
#   run stopped as it collected its workers kept none of its rows, each paid (fixed; see
#   tests/workloads/test_stopping.py). Two until three have run clean again.)
#   `--dist loadgroup` keeps some tests on one worker, in order (tests/conftest.py groups
#   them): the tests that read the notebooks' session runs are one group ("kernels"), the
#   JupyterLab and Voila tests in Chromium another ("browser", 2 to 3 minutes), each run one
#   test at a time as in a serial run, the two side by side; the other tests with kernels of
#   their own (tapes' replays, reports) are a group per module, and a module with a
#   module-scoped fixture builds it once. Any other test goes to whichever worker is free, the long ones (the
#   benchmarks' smoke run, the type checkers) first, so the workers end within a minute
#   of each other: 8 to 9 minutes on this 2-core machine alone (the whole CI from a fresh
#   clone, 9 to 10), longer with other heavy work on it (18 with the one "kernels" group of
#   old and no bytecode written). TEST_WORKERS=0 runs it in one
#   process, in collection order (to debug a test). The type checkers' test reads the cache
#   `make typecheck` leaves, so it runs after it.
#   pytest 9.2 ignores the node id by which xdist 3.8 passes a test's group to its scheduler
#   (pytest-xdist#1386): tests/conftest.py sets it itself, and stops the run if it cannot.
#   Notebook 06 once showed other output on its second run under two workers: a view drawn
#   from its timer thread called `DataFrame.to_html`, which sets a pandas display option for
#   the whole process while it writes (fixed: the widgets write their tables themselves). The
#   test prints a line diff when a second run differs.
# - The two subsets (the other Python, the floors) run beside the main run, at a low CPU
#   priority (nice 10): the main run's workers get the cores first, and the subsets the time
#   they leave, waiting on kernels, browsers and sleeps (they ran after it, which added a minute
#   and a half to every run). Not the lowest (19): that starves them while both workers are
#   busy, and their own deadlines (a proxy's start, a kernel's cell, pytest's 300 s) would
#   then be the machine's, not the code's. What is left of them when the main run ends runs on
#   its own then. Their output, each run's whole (-Otarget), is printed after the
#   main run's; `make test` fails if any of the three did. Both venvs were installed before
#   the main run (its tree check, or a subset's, would see a venv appear).
# - The main run's workers each import the whole suite when they start (to collect it), and
#   the first notebook kernels of each import what the notebooks import, at the same moment: on
#   a fresh clone no module has its bytecode yet (uv installs none), so both would compile the
#   same modules side by side, and rewrite the same tests' asserts (8 s of CPU each for the
#   tests alone). They are imported once here instead, in the -j4 phase, where mypy leaves a
#   core free most of its time: the suite collected (no test run, so no tree check either), and
#   the lab venv's imports made, matplotlib's font cache with them.
TEST_WORKERS ?= 2

warm: $(VENV)/.dev-installed
	@out=$$($(PY) -m pytest --collect-only -qq -p no:cacheprovider 2>&1) || \
		{ echo "$$out" | tail -40; exit 1; }

warm-lab: $(LAB_VENV)/.installed
	$(LAB_VENV)/bin/python -c 'import toolkit.widgets, toolkit.plots, matplotlib.pyplot, ipykernel.kernelapp'

# The subsets run in a process group of their own, so that stopping `make test` (Ctrl-C) stops
# them too: a job put in the background by a script ignores Ctrl-C.
SETSID := $(shell command -v setsid 2>/dev/null)
SUBSET_VENVS = $(if $(OTHER_PYTHON),$(OTHER_VENV)/.installed) \
	$(if $(FLOORS_PYTHON),$(FLOORS_VENV)/.installed)

test: $(VENV)/.dev-installed anvil browser
	@$(MAKE) --no-print-directory -j4 -Otarget lint typecheck docs pyright $(LAB_VENV)/.installed \
		$(SUBSET_VENVS) warm warm-lab
	@echo "the subsets run beside the main run (nice 10); their output comes after it"
	@subsets=$$(mktemp); \
	$(SETSID) nice -n 10 $(MAKE) --no-print-directory -j2 -Otarget test-other-python test-floors \
		>$$subsets 2>&1 & subsets_pid=$$!; \
	trap 'kill -- -$$subsets_pid 2>/dev/null || kill $$subsets_pid; rm -f $$subsets; exit 130' INT TERM; \
	NODE_GATEWAY_NOTEBOOK_PYTHON=$(CURDIR)/$(LAB_VENV)/bin/python \
		$(PY) -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=15; main=$$?; \
	wait $$subsets_pid; other=$$?; cat $$subsets; rm -f $$subsets; \
	[ $$main = 0 ] && [ $$other = 0 ]

# On the other Python: the sync/async kernel tests (both nest-asyncio packages), proxies and
# TLS, the sandbox, pricing, frames, and the browser path (asyncio keeps one current task a
# thread from 3.14, a loop before: HereLoop must hold on both). The property tests search
# their inputs in full on the default Python only: here the *_properties.py modules are left
# out and every other Hypothesis test runs a few examples (SUBSET_EXAMPLES), enough to show
# that its code runs on this interpreter or on these versions; at their full counts they were
# half of each subset's time (the sandbox's batch paths alone, 300 examples each, a third of
# the floors').
SUBSET_EXAMPLES := 10
SUBSET_PYTEST = -m pytest -q -p no:cacheprovider --ignore-glob='*_properties.py' \
	--examples-at-most=$(SUBSET_EXAMPLES)
OTHER_TESTS := tests/client/test_in_a_running_kernel.py tests/client/test_environment.py \
	tests/client/test_ru.py tests/sandbox tests/catalog tests/frames tests/browser

test-other-python:
	@if [ -z "$(OTHER_PYTHON)" ]; then echo "no other Python 3.12+ found: the subset is skipped"; \
	else $(MAKE) --no-print-directory $(OTHER_VENV)/.installed && \
		$(OTHER_VENV)/bin/python $(SUBSET_PYTEST) $(OTHER_TESTS); fi

$(OTHER_VENV)/.installed: pyproject.toml | $(UV)
	@echo "the fast subset on $$($(OTHER_PYTHON) --version)"
	rm -rf $(OTHER_VENV)
	$(UV) venv --quiet --python $(OTHER_PYTHON) $(OTHER_VENV)
	$(UV) pip install --quiet --python $(OTHER_VENV)/bin/python -e '.[test]'
	@touch $@

# The declared floors: every runtime and test dependency at the lowest version pyproject.toml
# allows (pins made by .ci/floor_pins.py, installed by uv as constraints), on the oldest Python
# the project supports, running a fast subset that touches each dependency. The plots run before
# the sandbox: a Solana simulation made in a thread leaves that thread unable to run LAPACK's
# eigenvalue solver, which matplotlib's curve extents call.
FLOORS_PYTHON ?= $(shell for p in python3.11 $$HOME/.pyenv/versions/3.11.*/bin/python; do \
	$$p -c '' 2>/dev/null && { echo $$p; exit; }; done)
FLOORS_VENV := .venv-floors
FLOORS_TESTS := tests/frames tests/plots tests/catalog tests/sandbox tests/client/test_transport.py

test-floors:
	@if [ -z "$(FLOORS_PYTHON)" ]; then echo "no Python 3.11 found: the floors are not tested"; \
	else $(MAKE) --no-print-directory $(FLOORS_VENV)/.installed && \
		$(FLOORS_VENV)/bin/python $(SUBSET_PYTEST) $(FLOORS_TESTS); fi

$(FLOORS_VENV)/.installed: pyproject.toml .ci/floor_pins.py | $(VENV)/.dev-installed
	@echo "the declared floors on $$($(FLOORS_PYTHON) --version)"
	rm -rf $(FLOORS_VENV)
	$(UV) venv --quiet --python $(FLOORS_PYTHON) $(FLOORS_VENV)
	$(PY) .ci/floor_pins.py test > $(FLOORS_VENV)/floors.txt
	$(UV) pip install --quiet --python $(FLOORS_VENV)/bin/python \
		-c $(FLOORS_VENV)/floors.txt -e '.[test]'
	@touch $@

$(VENV)/.bench-installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	@touch $@

# Side-by-side benchmark tables (QUICK=1 for a short run).
bench: $(VENV)/.bench-installed anvil
	$(PY) bench/run_all.py $(if $(QUICK),--quick)

clean:
	rm -rf $(VENV) $(LAB_VENV) $(OTHER_VENV) $(FLOORS_VENV) $(TOOLS) .pytest_cache .ruff_cache site lite/_output
