# Every target creates .venv and installs the pinned dependencies when they are missing.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-slow bench lock clean

$(STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "simkit needs Python 3.11 or newer (found %s)" % sys.version.split()[0])'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/simkit replay simkit/data/demo-games.jsonl
	$(VENV)/bin/simkit solve simkit/data/demo-positions.jsonl --objective payout
	$(VENV)/bin/simkit random-play --deals 200000 --contract rufspiel
	$(VENV)/bin/simkit random-play --deals 200000 --contract wenz
	$(VENV)/bin/simkit random-play --deals 200000 --contract solo --tout-share 0.1 --deck short
	$(VENV)/bin/simkit run --deals 1e5 --out runs/demo --force
	$(VENV)/bin/simkit report runs/demo --out reports/demo

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist worksteal -q

test-slow: $(STAMP)
	$(PY) -m pytest -n 2 -q -m slow

bench: $(STAMP)
	$(PY) scripts/bench.py

# Re-resolve the newest allowed versions and rewrite constraints.txt.
lock:
	rm -rf /tmp/simkit-lock && $(PYTHON) -m venv /tmp/simkit-lock
	/tmp/simkit-lock/bin/pip install --quiet -e '.[dev]' 'numpy<2.5'
	{ echo "# Pinned versions of every dependency (pip constraints). Regenerate with: make lock"; \
	  /tmp/simkit-lock/bin/pip freeze --exclude-editable; } > constraints.txt

clean:
	rm -rf $(VENV) build *.egg-info
