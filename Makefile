# Belote Table — the two commands a club needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The CPU build of torch lies on this machine's disk; pip looks there first.
WHEELS := $(wildcard /opt/wheels)
PIP    := $(BIN)/pip install -q $(if $(WHEELS),--find-links $(WHEELS))

.PHONY: demo test venv test-venv browser mosquitto decks lint bench clean

$(VENV)/.run-installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) -e .
	touch $@

$(VENV)/.test-installed: $(VENV)/.run-installed
	$(PIP) -e '.[test,train]'
	touch $@

venv: $(VENV)/.run-installed
test-venv: $(VENV)/.test-installed

demo: venv
	$(BIN)/belote-table demo

# Browser tests drive Debian's chromium; install it when missing and we are root.
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && apt-get install -y -q chromium; \
	  else \
	    echo "chromium is missing: run 'sudo apt-get install -y chromium' (browser tests are skipped)"; \
	  fi; \
	fi

# The club link's tests run a real Mosquitto broker; install it when missing and we are root.
mosquitto:
	@if [ ! -x /usr/sbin/mosquitto ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && apt-get install -y -q mosquitto; \
	  else \
	    echo "mosquitto is missing: run 'sudo apt-get install -y mosquitto' (club tests are skipped)"; \
	  fi; \
	fi

# The real deck designs the reader trains and is measured on: Debian's gnome-cards-data
# and kdegames-card-data-kf5 (the GNOME and KDE card themes, SVG) and librsvg2-bin
# (rsvg-convert), rasterised into
# vision/lab/data/decks (never committed). Installed when missing and we are root.
decks: test-venv
	@if [ ! -d /usr/share/aisleriot/cards ] || [ ! -d /usr/share/carddecks ] || \
	    ! command -v rsvg-convert >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && apt-get install -y -q --no-install-recommends gnome-cards-data \
	      kdegames-card-data-kf5 librsvg2-bin; \
	  else \
	    echo "run 'sudo apt-get install -y gnome-cards-data kdegames-card-data-kf5 librsvg2-bin' (deck tests are skipped)"; \
	  fi; \
	fi
	@if [ -d /usr/share/aisleriot/cards ] && command -v rsvg-convert >/dev/null; then \
	  $(BIN)/belote-table vision decks; \
	fi

lint: test-venv
	$(BIN)/ruff check .
	$(BIN)/mypy

test: test-venv browser mosquitto decks lint
	$(BIN)/pytest

# Every benchmark: each prints its figures and writes benchmarks/<name>.json.
bench: test-venv browser mosquitto decks
	$(BIN)/python benchmarks/scorer.py
	$(BIN)/belote-table vision bench
	$(BIN)/python benchmarks/card_size.py
	$(BIN)/python benchmarks/accuracy.py
	$(BIN)/python benchmarks/misses.py
	$(BIN)/python benchmarks/real_decks.py
	$(BIN)/python benchmarks/orientation.py
	$(BIN)/python benchmarks/lights.py
	$(BIN)/python benchmarks/spread.py
	$(BIN)/python benchmarks/stills.py
	$(BIN)/python benchmarks/photos.py
	$(BIN)/python benchmarks/card_faces.py
	$(BIN)/python benchmarks/enroll.py
	$(BIN)/python benchmarks/enroll_table.py
	$(BIN)/python benchmarks/enroll_table.py --count 12
	$(BIN)/python benchmarks/misreads.py
	$(BIN)/python benchmarks/held_out_games.py
	$(BIN)/python benchmarks/render.py
	$(BIN)/python benchmarks/pipeline.py
	$(BIN)/python benchmarks/web.py
	$(BIN)/python benchmarks/club.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
