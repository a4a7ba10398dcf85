# The two commands of the README. Both create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed

.PHONY: run test bench install clean proto

install: $(INSTALLED)

$(INSTALLED): pyproject.toml setup.py services/match/rules/step.py services/match/rules/playout.py \
		services/match/rules/fairness.py services/match/rules/leading.py services/match/rules/solve.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(INSTALLED)

run: $(INSTALLED)
	$(VENV)/bin/domino up

test: $(INSTALLED)
	$(VENV)/bin/buf lint
	$(VENV)/bin/buf breaking --against api-baseline/domino-v1.binpb
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(PY) -m pytest

proto: $(INSTALLED)
	$(PY) scripts/generate_proto.py

bench: $(INSTALLED)
	$(PY) bench/rules.py --json

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis .mypy_cache .import_linter_cache
