# Two entry points (see README): `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
ROBOT  ?= rx90

.PHONY: run test bench fuzz slow clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

run: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[compiler]'
	$(BIN)/robmod models $(ROBOT)

test: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pytest -n 2 tests

bench: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/bench_dynamics.py
	$(BIN)/python benchmarks/bench_identification.py
	$(BIN)/python benchmarks/bench_control.py
	$(BIN)/python benchmarks/bench_ident_pipeline.py
	$(BIN)/python benchmarks/bench_plain_api.py
	$(BIN)/python benchmarks/bench_trajectory.py
	$(BIN)/python benchmarks/bench_topp.py
	$(BIN)/python benchmarks/bench_generation.py
	$(BIN)/python benchmarks/bench_generation.py --trees

fuzz: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	ROBMOD_FUZZ_EXAMPLES=10000 $(BIN)/python -m pytest -p no:xdist -m fuzz tests

slow: $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	ROBMOD_SLOW=1 $(BIN)/python -m pytest -n 2 -m slow tests

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache
