# The two commands of the README. Both work on a fresh machine with Python 3.11 and no venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[plot]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,plot]"
	touch $@

demo: $(VENV)/.installed-demo
	$(BIN)/python build_fmu.py --out dist
	$(BIN)/python examples/cosim_speed_control.py --dist dist --out out

# the engine compiled (or its cache found) first, in parallel processes, for the generic CPU that the
# test suite asks numba for (tests/conftest.py); then the tests, in one process per core
test: $(VENV)/.installed-test
	NUMBA_CPU_NAME=generic $(BIN)/python -m friction_joints.compiled
	$(BIN)/python -m pytest -q -n auto

clean:
	rm -rf $(VENV) dist build *.egg-info out
