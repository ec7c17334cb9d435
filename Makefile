# Belote Table — the two commands a club needs: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# The CPU build of torch lies on this machine's disk; pip looks there first.
WHEELS := $(wildcard /opt/wheels)
PIP    := $(BIN)/pip install -q $(if $(WHEELS),--find-links $(WHEELS))

.PHONY: demo test venv test-venv browser mosquitto sqlite3 decks lint bench clean

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

# A damaged event store is recovered with SQLite's own .recover (companion/recovery.py;
# row by row without it, or with an sqlite3 too old for it); install it when missing
# and we are root.
sqlite3:
	@if [ ! -x /usr/bin/sqlite3 ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -q && apt-get install -y -q sqlite3; \
	  else \
	    echo "sqlite3 is missing: run 'sudo apt-get install -y sqlite3' (recovery reads row by row)"; \
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

test: test-venv browser mosquitto sqlite3 decks lint
	$(BIN)/pytest

# Every benchmark the README and the model card quote: each prints its figures and
# writes benchmarks/<name>.json; then the ones with options of their own.
BENCHES = scorer card_size accuracy misses real_decks orientation lights spread stills \
	photos card_faces enroll enroll_table misreads held_out_games render pipeline web club soak

bench: test-venv browser mosquitto decks
	$(BIN)/belote-table vision bench
	set -e; for b in $(BENCHES); do $(BIN)/python benchmarks/$$b.py; done
	$(BIN)/python benchmarks/misses.py --held-out
	$(BIN)/python benchmarks/enroll_table.py --count 12

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
