"""What follows the table service, and the running table that starts it.

``start_outputs`` starts the web page (given the service: the web app never
builds its own) and the score display's driver (a Pico, or the display
emulator). ``run_table`` is ``belote-table run`` once its options are read:
the store and service (``companion.pipeline.open_table``), the outputs, then
the frame source through the pipeline (``companion.pipeline.run_source``).

This is the one module below the commands that imports ``web``: it sits above
the web page, which sits above the service and the pipeline (docs/INTERFACES.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.service import TableService
    from vision.calibration import Calibration


def start_outputs(service: TableService, port: int | None, host: str = "127.0.0.1",
                  display: str | None = None, emulator: bool = False,
                  say: Callable[[str], None] = print,
                  search_display: bool = False) -> list[Callable[[], None]]:
    """Start what follows the service, when those parts are installed: the web
    page on ``port`` (None: no web page) and the display driver on ``display``
    (a serial port; with ``emulator`` the display emulator's pty, unless a Pico
    is plugged in; with ``search_display`` and no port the driver looks for the
    Pico by itself, and keeps looking). Returns the functions that stop them,
    in the order to call."""
    closers: list[Callable[[], None]] = []
    if port is not None:
        try:
            import web
            create_app, serve = web.create_app, web.serve
        except (ImportError, AttributeError):
            say("web page: not installed, skipped")
        else:
            server = serve(create_app(service), host=host, port=port)
            say(f"web page: {server.url}")
            closers.append(server.close)
    if emulator or display or search_display:
        try:
            from companion.display import DisplayDriver, find_port
        except ImportError:
            say("score display: driver not installed, skipped")
            return closers
        if emulator and not display:
            # A real Pico plugged in beats the emulator.
            found = find_port()
            if found is not None:
                say(f"score display: Pico on {found}")
                display, emulator = found, False
        if emulator:
            try:
                from companion.display_emulator import Emulator
            except ImportError:
                say("score display emulator: not installed, skipped")
                return closers
            emu = Emulator()
            display = emu.start()
            say(f"score display emulator on {display}")

        def on_status(status: dict[str, Any]) -> None:
            service.set_status(display=status.get("link"))

        driver = DisplayDriver(service.bus, port=display, on_status=on_status).start()
        closers.insert(0, driver.stop)
        if emulator:
            closers.append(emu.stop)
    return closers


def run_table(db: Path, rules: str, open_source: Callable[[], Any], model: str | None,
              calibration: Calibration | None, settle: float, port: int | None,
              host: str = "127.0.0.1", display: str | None = None,
              search_display: bool = True, say: Callable[[str], None] = print,
              fail: Callable[[str], None] = print) -> int:
    """Run the table on the store ``db`` from the frames of ``open_source()``
    until they end or Ctrl-C; the web page on ``port`` (None: none) and the
    score display on ``display`` (None: found by its USB id when
    ``search_display``). A source or model that cannot be opened is told to
    ``fail`` and gives exit status 2, with the outputs stopped and the store
    closed; 0 otherwise, once the score is said."""
    from companion.pipeline import open_table, run_source
    from vision.reader import CardReader

    store, service = open_table(db, rules, say=say)
    closers = start_outputs(service, port, host, display=display,
                            search_display=search_display, say=say)
    try:
        source = open_source()
        reader = CardReader(model)
    except (ValueError, FileNotFoundError) as exc:  # SourceError is a ValueError
        fail(str(exc))
        for close in closers:
            close()
        store.close()
        return 2
    try:
        run_source(service, source, reader, calibration, settle, say=say)
    finally:
        for close in closers:
            close()
        store.close()
    state = service.state_json()
    say(f"score: NS {state['scores']['NS']} - EW {state['scores']['EW']}")
    return 0
