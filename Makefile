# The two commands of the README. Both create .venv and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed

SDK := sdk/typescript
NODE_INSTALLED := $(SDK)/node_modules/.installed
EXAMPLE := examples/node
EXAMPLE_INSTALLED := $(EXAMPLE)/node_modules/.installed
TEST_PAGE := $(SDK)/test-page/bundle.js
CHROMIUM := /usr/bin/chromium

.PHONY: run test bench install clean proto

install: $(INSTALLED) $(NODE_INSTALLED) $(EXAMPLE_INSTALLED) $(TEST_PAGE) $(CHROMIUM)

$(INSTALLED): pyproject.toml setup.py services/rules/step.py services/rules/playout.py \
		services/rules/fairness.py services/rules/leading.py services/rules/solve.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is needed")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(INSTALLED)

# The TypeScript SDK's generator, compiler and bundler, exactly as package-lock.json pins them.
$(NODE_INSTALLED): $(SDK)/package.json $(SDK)/package-lock.json
	cd $(SDK) && npm ci --no-audit --no-fund
	touch $@

# The Node example's connect-node and tsx, as its package-lock.json pins them; the SDK is
# linked from $(SDK) by path, so its own packages come first.
$(EXAMPLE_INSTALLED): $(EXAMPLE)/package.json $(EXAMPLE)/package-lock.json $(NODE_INSTALLED)
	cd $(EXAMPLE) && npm ci --no-audit --no-fund
	touch $@

# The browser check the edge serves (`domino up`, tests/system/test_browser.py).
$(TEST_PAGE): $(NODE_INSTALLED) $(SDK)/test-page/main.ts $(wildcard $(SDK)/client/*.ts $(SDK)/gen/*/*/*/*.ts $(SDK)/gen/*/*/*.ts)
	cd $(SDK) && npm run -s build:test-page

# Debian's Chromium, which the browser tests drive headless through Playwright.
$(CHROMIUM):
	@if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq --no-install-recommends chromium; \
	else echo "the browser tests need Debian's chromium: sudo apt-get install chromium" >&2; exit 1; fi

run: install
	$(VENV)/bin/domino up

# The suite's workers: each starts its own PostgreSQL and NATS when a test asks for them, and
# many tests wait on sockets rather than compute, so more workers than cores pay on two cores.
TEST_WORKERS ?= 4

test: install
	$(VENV)/bin/buf lint
	$(VENV)/bin/buf breaking --against api-baseline/domino-v1.binpb
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile

proto: $(INSTALLED) $(NODE_INSTALLED)
	$(PY) scripts/generate_proto.py
	$(PY) scripts/generate_typescript.py

bench: $(INSTALLED)
	$(PY) bench/rules.py --json

clean:
	rm -rf $(VENV) var .pytest_cache .hypothesis .mypy_cache .import_linter_cache $(SDK)/node_modules \
		$(EXAMPLE)/node_modules $(TEST_PAGE) $(TEST_PAGE).map
