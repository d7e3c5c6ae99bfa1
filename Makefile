# The two commands of the README. Both work on a fresh machine with Python 3.11 and no venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml setup.py $(wildcard friction_joints/native/src/*) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[plot]"
	touch $@

$(VENV)/.installed-test: pyproject.toml setup.py $(wildcard friction_joints/native/src/*) | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,plot]"
	touch $@

demo: $(VENV)/.installed-demo
	$(BIN)/python build_fmu.py --out dist
	$(BIN)/python examples/cosim_speed_control.py --dist dist --out out

# the tests, in one process per core (pip install compiled the C engine); the idle workers take tests
# from the busy ones (worksteal), the tests marked slow start first (tests/conftest.py); the 25 slowest are listed
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -q -n auto --dist worksteal --durations=25

clean:
	rm -rf $(VENV) dist build *.egg-info out
