#!/usr/bin/env bash
# Club screen: wait for the table's web page, then show it full screen.
# Started at desktop login by belote-kiosk.desktop (see ../pi-setup.md).
set -u
URL="${BELOTE_KIOSK_URL:-http://localhost:8000/}"
for _ in $(seq 1 120); do
    curl -fsS -o /dev/null "$URL" && break
    sleep 1
done
BROWSER=$(command -v chromium-browser || command -v chromium)
exec "$BROWSER" --kiosk --noerrdialogs --disable-infobars --no-first-run \
    --disable-session-crashed-bubble --check-for-update-interval=31536000 "$URL"
