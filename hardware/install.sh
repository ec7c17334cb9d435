#!/usr/bin/env bash
# Install Belote Table on a Raspberry Pi 5 (Raspberry Pi OS Bookworm 64-bit).
#
#   sudo hardware/install.sh            # the service, udev rule and venv
#   sudo hardware/install.sh --kiosk    # and the club screen at desktop login
#   hardware/install.sh --dry-run       # print what it would do, change nothing
#   hardware/install.sh --lang=en       # its messages in English (French by default,
#                                       # or English under an English locale)
#
# Run from a checkout of the project. It installs:
#   /opt/belote-table/app    a copy of the checkout
#   /opt/belote-table/venv   a venv with --system-site-packages, so that Debian's
#                            picamera2 (and the numpy 1.24 it is built for) are seen
#   /etc/systemd/system/belote-table.service, /etc/default/belote-table,
#   /etc/udev/rules.d/99-belote-display.rules, the system user "belote".
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX="${PREFIX:-/opt/belote-table}"
SERVICE_USER="${SERVICE_USER:-belote}"
KIOSK_USER="${KIOSK_USER:-${SUDO_USER:-pi}}"
DRY_RUN=0
KIOSK=0
# French unless English is asked for, as `belote-table` (companion/i18n.py): the
# first of LC_ALL, LC_MESSAGES, LANG that is set decides, --lang=fr|en overrides.
case "${LC_ALL:-${LC_MESSAGES:-${LANG:-}}}" in en*) MSG_LANG=en ;; *) MSG_LANG=fr ;; esac
for arg in "$@"; do
    case "$arg" in --lang=en) MSG_LANG=en ;; --lang=fr) MSG_LANG=fr ;; esac
done

# say FRENCH ENGLISH: one message, in the language chosen.
say() {
    if [ "$MSG_LANG" = en ]; then echo "$2"; else echo "$1"; fi
}

for arg in "$@"; do
    case "$arg" in
        --dry-run) DRY_RUN=1 ;;
        --kiosk) KIOSK=1 ;;
        --lang=en|--lang=fr) ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        *) say "install.sh : option inconnue $arg (voir --help)" \
               "install.sh: unknown option $arg (see --help)" >&2; exit 2 ;;
    esac
done

run() {
    if [ "$DRY_RUN" = 1 ]; then
        echo "+ $*"
    else
        "$@"
    fi
}

if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
    say "install.sh : lancez-le avec sudo (ou --dry-run pour voir ce qu'il fait)" \
        "install.sh: run it with sudo (or --dry-run to see what it does)" >&2
    exit 1
fi
if [ "$(uname -m)" != aarch64 ]; then
    # onnxruntime has Linux ARM wheels for 64-bit only.
    say "install.sh : attention : $(uname -m) n'est pas aarch64 ; prenez Raspberry Pi OS 64 bits" \
        "install.sh: warning: $(uname -m) is not aarch64; use the 64-bit Raspberry Pi OS" >&2
fi

say "== paquets du système" "== system packages"
run apt-get update -q
run apt-get install -y -q --no-install-recommends \
    python3-venv python3-pip python3-picamera2 python3-numpy curl sqlite3

say "== utilisateur du service $SERVICE_USER" "== service user $SERVICE_USER"
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    run useradd --system --home-dir /var/lib/belote-table --create-home \
        --shell /usr/sbin/nologin --groups dialout,video "$SERVICE_USER"
fi

say "== application dans $PREFIX" "== application in $PREFIX"
run mkdir -p "$PREFIX/app"
run cp -a "$SRC/." "$PREFIX/app/"
# The reader's lab (rendering, training, evaluation) is not for the table: the
# runtime never imports it, and without it no training code or data reaches the Pi.
# The float classifier is what training starts from; the reader runs the 8-bit one.
run rm -rf "$PREFIX/app/.venv" "$PREFIX/app/.git" "$PREFIX/app/vision/lab" \
    "$PREFIX/app/vision/models/index_classifier_fp32.onnx"
run python3 -m venv --system-site-packages "$PREFIX/venv"
run "$PREFIX/venv/bin/pip" install -q --upgrade pip
run "$PREFIX/venv/bin/pip" install -q -c "$PREFIX/app/hardware/constraints-pi.txt" \
    "$PREFIX/app[firmware]"
# picamera2 must still import with the numpy the venv ends up with.
run "$PREFIX/venv/bin/python" -c \
    "import numpy, picamera2; assert numpy.__version__.startswith('1.'), numpy.__version__"
# The runtime imports without the lab, and the lab did not come along.
run "$PREFIX/venv/bin/python" -c \
    "import importlib.util, vision.reader, cli.outputs, club.app, web; assert importlib.util.find_spec('vision.lab') is None, 'vision.lab installed'"

say "== nom udev /dev/belote-display pour le Pico de l'afficheur des scores" \
    "== udev name /dev/belote-display for the score display's Pico"
run install -m 644 "$SRC/hardware/99-belote-display.rules" /etc/udev/rules.d/
run udevadm control --reload-rules
run udevadm trigger --subsystem-match=tty

say "== service systemd belote-table" "== systemd service belote-table"
if [ ! -e /etc/default/belote-table ]; then
    run install -m 644 "$SRC/hardware/belote-table.env" /etc/default/belote-table
fi
run install -m 644 "$SRC/hardware/belote-table.service" /etc/systemd/system/
run systemctl daemon-reload
run systemctl enable belote-table
# Restart, not just start: installing over a running table must put the new code
# to work now (the open game is replayed from the store; nothing is lost).
run systemctl restart belote-table

if [ "$KIOSK" = 1 ]; then
    say "== écran du club pour $KIOSK_USER" "== club screen for $KIOSK_USER"
    home="$(getent passwd "$KIOSK_USER" | cut -d: -f6 || true)"
    home="${home:-/home/$KIOSK_USER}"
    run install -D -m 644 -o "$KIOSK_USER" "$SRC/hardware/kiosk/belote-kiosk.desktop" \
        "$home/.config/autostart/belote-kiosk.desktop"
    # No screen blanking on the club screen.
    if command -v raspi-config >/dev/null 2>&1; then
        run raspi-config nonint do_blanking 1
    fi
fi

say "== fini : http://$(hostname).local:8000/  (journalctl -u belote-table -f pour le journal)" \
    "== done: http://$(hostname).local:8000/  (journalctl -u belote-table -f for the log)"
say "   programmez l'afficheur une fois : $PREFIX/venv/bin/belote-table display flash" \
    "   flash the display once: $PREFIX/venv/bin/belote-table display flash"
