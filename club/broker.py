"""A Mosquitto broker with the club's settings, for the demo, the tests and
the benchmark (a club runs Debian's own ``mosquitto`` service with the files
``write_config`` writes; README).

No anonymous access: every table has its own user and password in a password
file hashed by ``mosquitto_passwd``, and the access list of
``common.topics.acl`` lets table N write only its own topics.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from common.topics import CLUB_USER, acl, table_user

MOSQUITTO = "/usr/sbin/mosquitto"
MOSQUITTO_PASSWD = "/usr/bin/mosquitto_passwd"


class BrokerError(RuntimeError):
    """Mosquitto is missing or would not start."""


def find_mosquitto() -> str | None:
    """The broker's program, or None when Debian's ``mosquitto`` is not installed."""
    for path in (MOSQUITTO, shutil.which("mosquitto")):
        if path and os.access(path, os.X_OK):
            return path
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_files(folder: Path, club: str, tables: list[int],
                passwords: dict[str, str]) -> tuple[Path, Path]:
    """Write the hashed ``passwords`` file and the ``acl`` in ``folder``; return
    both. ``passwords`` maps user names (``club``, ``table1``...) to passwords."""
    passwd = find_passwd()
    folder.mkdir(parents=True, exist_ok=True)
    pw_file = folder / "passwords"
    pw_file.write_text("".join(f"{user}:{pw}\n" for user, pw in passwords.items()),
                       encoding="utf-8")
    pw_file.chmod(0o600)
    # -U hashes the plain file in place (one run for every user).
    done = subprocess.run([passwd, "-U", str(pw_file)], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        raise BrokerError(f"mosquitto_passwd: {done.stderr.strip() or done.stdout.strip()}")
    acl_file = folder / "acl"
    acl_file.write_text(acl(club, tables), encoding="utf-8")
    acl_file.chmod(0o600)
    return pw_file, acl_file


def service_settings(pw_file: Path, acl_file: Path, port: int, host: str) -> list[str]:
    """The club's settings for a Mosquitto that already has its own (Debian's
    service: its persistence and logs stay as they are)."""
    return [
        f"listener {port} {host}",
        "allow_anonymous false",
        f"password_file {pw_file}",
        f"acl_file {acl_file}",
        # A table cut off for an evening must not fill the broker's memory:
        # what is dropped is sent again from the last acknowledged event.
        "max_queued_messages 10000",
    ]


def give_to_service(*paths: Path) -> None:
    """Debian's mosquitto reads its files as the 'mosquitto' user: when we are
    root and that user exists, the files are its own (still private)."""
    if os.geteuid() != 0:
        return
    try:
        import pwd

        user = pwd.getpwnam("mosquitto")
    except KeyError:
        return
    for path in paths:
        os.chown(path, user.pw_uid, user.pw_gid)


def write_config(folder: Path, club: str, tables: list[int], port: int,
                 passwords: dict[str, str], host: str = "127.0.0.1",
                 persistence: bool = True, extra: list[str] | None = None) -> Path:
    """A whole broker of its own in ``folder`` (demo, tests, benchmark):
    ``mosquitto.conf`` with the club's settings, its persistence file and log
    there too; ``extra`` lines end the settings (a bridge)."""
    pw_file, acl_file = write_files(folder, club, tables, passwords)
    conf = folder / "mosquitto.conf"
    lines = service_settings(pw_file, acl_file, port, host) + [
        f"persistence {'true' if persistence else 'false'}",
        f"persistence_location {folder}/",
        "log_type error",
        "log_type warning",
        "log_type notice",
        f"log_dest file {folder / 'mosquitto.log'}",
    ]
    if os.geteuid() == 0:
        # As root mosquitto would switch to the 'mosquitto' user, who cannot read
        # a private temporary folder.
        lines.append("user root")
    lines += extra or []
    conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return conf


def find_passwd() -> str:
    for path in (MOSQUITTO_PASSWD, shutil.which("mosquitto_passwd")):
        if path and os.access(path, os.X_OK):
            return path
    raise BrokerError("mosquitto_passwd is missing: install Debian's mosquitto "
                      "('sudo apt-get install -y mosquitto', or 'make mosquitto' as root)")


def make_passwords(tables: list[int]) -> dict[str, str]:
    """A fresh random password for the club server and each table."""
    users = [CLUB_USER] + [table_user(n) for n in tables]
    return {u: secrets.token_urlsafe(12) for u in users}


class Broker:
    """One ``mosquitto`` process on ``127.0.0.1:port`` with the club's files in
    ``folder``. ``kill()`` and ``start()`` again stand in for a broker crash and
    restart (same port, same persistence file)."""

    def __init__(self, folder: Path, club: str, tables: list[int], port: int | None = None,
                 passwords: dict[str, str] | None = None,
                 extra: list[str] | None = None) -> None:
        program = find_mosquitto()
        if program is None:
            raise BrokerError("mosquitto is missing: install Debian's mosquitto "
                              "('sudo apt-get install -y mosquitto', or 'make mosquitto' "
                              "as root)")
        self.program = program
        self.folder = Path(folder)
        self.club = club
        self.tables = list(tables)
        self.port = port or free_port()
        self.passwords = passwords or make_passwords(self.tables)
        self.conf = write_config(self.folder, club, self.tables, self.port, self.passwords,
                                 extra=extra)
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float = 10.0) -> Broker:
        if self.running:
            return self
        self._proc = subprocess.Popen([self.program, "-c", str(self.conf)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                err = self._proc.stderr.read().decode(errors="replace") if self._proc.stderr \
                    else ""
                log = self.folder / "mosquitto.log"
                if log.exists():
                    err += log.read_text(errors="replace")[-800:]
                raise BrokerError(f"mosquitto stopped at start (exit {self._proc.returncode}):"
                                  f" {err.strip()}")
            with contextlib.suppress(OSError), socket.create_connection(
                    ("127.0.0.1", self.port), timeout=0.2):
                return self
            time.sleep(0.05)
        self.kill()
        raise BrokerError(f"mosquitto did not listen on port {self.port} within {timeout} s")

    def kill(self) -> None:
        """Stop the broker at once (SIGKILL), as a crash or a power cut would."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """Stop the broker cleanly (SIGTERM: it saves its persistence file)."""
        self._end(signal.SIGTERM)

    def restart(self) -> None:
        self.kill()
        self.start()

    def _end(self, sig: int) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if proc.stderr:
            proc.stderr.close()

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
