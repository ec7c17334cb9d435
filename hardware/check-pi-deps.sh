#!/usr/bin/env bash
# Check, on any Linux PC with Python 3.11 and access to PyPI, that the project
# installs on the Pi next to Debian's numpy 1.24 (picamera2's), without
# touching it. Two dry runs, nothing is installed outside a throw-away venv:
#   1. a venv holding numpy 1.24.2 (as --system-site-packages shows Debian's):
#      pip must not want to replace numpy;
#   2. the binary dependencies resolved for aarch64 / CPython 3.11 wheels.
set -euo pipefail
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3.11}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q numpy==1.24.2
echo "== 1. dry run in a venv with numpy 1.24.2"
"$WORK/venv/bin/pip" install --dry-run -c "$SRC/hardware/constraints-pi.txt" "$SRC[firmware]" \
    | tee "$WORK/plan.txt" | grep "Would install"
if grep "Would install" "$WORK/plan.txt" | grep -q " numpy-"; then
    echo "FAIL: pip would replace numpy 1.24 (picamera2 would break)" >&2
    exit 1
fi
echo "ok: numpy stays $("$WORK/venv/bin/python" -c 'import numpy; print(numpy.__version__)')"

echo "== 2. aarch64 wheels for CPython 3.11"
# The project's own dependency list (pyproject.toml), run and firmware extra.
mapfile -t DEPS < <("$PY" -c 'import sys, tomllib
p = tomllib.load(open(sys.argv[1], "rb"))["project"]
print("\n".join(p["dependencies"] + p["optional-dependencies"]["firmware"]))' \
    "$SRC/pyproject.toml")
"$WORK/venv/bin/pip" install --dry-run --only-binary=:all: --target "$WORK/target" \
    --platform manylinux_2_28_aarch64 --platform manylinux_2_17_aarch64 \
    --platform manylinux2014_aarch64 --python-version 3.11 --implementation cp \
    -c "$SRC/hardware/constraints-pi.txt" numpy==1.24.2 "${DEPS[@]}" | grep "Would install"
echo "ok: every dependency has an aarch64 wheel next to numpy 1.24.2"
