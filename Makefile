# The two commands of the README: `make lab` and `make test`. Both create .venv when it is missing.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TOOLS := .tools
ANVIL := $(TOOLS)/node_modules/.bin/anvil

.PHONY: lab test lint format tools anvil browser bench clean

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# Stamp files make re-runs fast: reinstall only when pyproject.toml changes.
# The notebooks' needs: JupyterLab, and Dask for notebook 09's local cluster.
$(VENV)/.lab-installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[lab,scale]'
	@touch $@

$(VENV)/.dev-installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

# JupyterLab refuses root unless told; containers and CI machines often run as root.
lab: $(VENV)/.lab-installed
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

# Anvil (Foundry's EVM node) from npm into a project-local folder, for the real-node tests.
$(ANVIL):
	@if command -v npm >/dev/null; then \
		npm install --silent --no-audit --no-fund --prefix $(TOOLS) @foundry-rs/anvil@1.7.1; \
	else echo "npm not found: the Anvil tests will be skipped"; fi

anvil: $(ANVIL)

# Debian's Chromium for the JupyterLab end-to-end test (Playwright drives it; it never downloads
# a browser of its own). Installed when missing and we may (root with apt); else the test skips.
browser:
	@if [ -x /usr/bin/chromium ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "installing Debian chromium for the browser test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else echo "chromium missing and not root: the browser test will be skipped"; fi

lint: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check toolkit tests bench
	$(VENV)/bin/ruff format --check toolkit tests bench

format: $(VENV)/.dev-installed
	$(VENV)/bin/ruff check --fix toolkit tests bench
	$(VENV)/bin/ruff format toolkit tests bench

test: $(VENV)/.dev-installed anvil browser lint
	$(PY) -m pytest --durations=15

$(VENV)/.bench-installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	@touch $@

# Side-by-side benchmark tables (QUICK=1 for a short run).
bench: $(VENV)/.bench-installed anvil
	$(PY) bench/run_all.py $(if $(QUICK),--quick)

clean:
	rm -rf $(VENV) $(TOOLS) .pytest_cache .ruff_cache
