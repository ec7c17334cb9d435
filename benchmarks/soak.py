"""A whole evening under faults: tables, the club server and the broker as the
processes they are at a club, played faster, with faults at random times.

Each table is a process of its own (a Pi at the club): the real table start
(``companion.pipeline.open_table``: recovery, storage faults), the real table
service on its own SQLite store, the real club link (``link_service``) to a
real Mosquitto, and the rules simulator playing one game after another at the
table's pace (an event every ``--event-s`` seconds of the evening, ``--speed``
times faster). Table 1 also films through its camera loop
(``companion.pipeline.keep_camera``, the real card reader on a looped video
through OpenCV). The club server is ``belote-table club`` in its own process.

Faults, at seeded random times (``--seed``), each on a random table:

* ``kill_table``: a table killed with SIGKILL and started again;
* ``kill_club``: the club server killed with SIGKILL and started again;
* ``broker_restart``: Mosquitto killed and started again;
* ``disk_full``: a table's disk full for a minute (its store on a tmpfs of
  its own, filled to the last byte; root only, else skipped and said);
* ``camera_unplugged``: table 1's camera gone for a while, then back;
* ``wrong_correction``: a table's organiser corrects a card wrongly and
  undoes it.

At the end the tables stop playing, the club is given time to catch up, and
everything is counted: the events each table stored; those it acknowledged
and lost (0 wanted); those stored twice or out of place (0 wanted); the
club's record of each table against the table's own (equal wanted); each
process's memory after warm-up and at the end (under 10 % growth wanted).

    .venv/bin/python benchmarks/soak.py [--tables 8] [--minutes 4] [--speed 60]

The default run plays a 4-hour evening (an event every 7.5 s at each table)
in four and a half minutes plus the set-up; ``--minutes`` and ``--speed`` make
it longer or denser. Prints the figures and writes benchmarks/soak.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import queue
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CLUB = "soak"
PIN = "246813"
HANDS = 10          # hands per game (a game of a concours round)
TABLE_DISK = "64m"  # each table's tmpfs
WARM_UP = 0.15      # the share of the run before memory is first measured


# -- one table (a process of its own) ----------------------------------------------------


def _plan(seed: int, table: int, game: int) -> list[Any]:
    from scorer.simulate import simulate_game

    return simulate_game(seed * 100_003 + table * 1_000 + game, hands=HANDS)


def _strip(events: list[Any]) -> tuple[list[Any], Any]:
    """A game's events without the wrong corrections and their undos; and a
    correction left without its undo (killed in between), or None."""
    from scorer.events import CardCorrected, EntryUndone

    out, dangling = [], None
    undone = {e.index for e in events if isinstance(e, EntryUndone)}
    for i, e in enumerate(events):
        if isinstance(e, EntryUndone):
            continue
        if isinstance(e, CardCorrected):
            if i not in undone:
                dangling = i
            continue
        out.append(e)
    return out, dangling


class _Camera:
    """A camera filming the table: the looped film through OpenCV, paced at
    ``fps``, gone while the file ``plug`` is missing (unplugged)."""

    def __init__(self, video: Path, plug: Path, fps: float = 4.0) -> None:
        from vision.sources import DeviceSource, SourceError

        if not plug.exists():
            raise SourceError("camera %(index)s: OpenCV cannot open it (a Raspberry Pi camera "
                              "module needs PiCameraSource)", index=repr(str(video)))
        self.video, self.plug, self.gap = video, plug, 1.0 / fps
        self.source = DeviceSource(str(video))
        self.next_at = time.monotonic()

    def __iter__(self) -> _Camera:
        return self

    def __next__(self) -> tuple[float, Any]:
        from vision.sources import DeviceSource, SourceError

        time.sleep(max(0.0, self.next_at - time.monotonic()))
        self.next_at = max(self.next_at + self.gap, time.monotonic())
        if not self.plug.exists():
            raise SourceError("camera %(index)s: no frame (unplugged?)",
                              index=repr(str(self.video)))
        try:
            return next(self.source)
        except SourceError:  # the film's end: it plays again
            self.source.close()
            self.source = DeviceSource(str(self.video))
            return next(self.source)

    def close(self) -> None:
        self.source.close()


def table_worker(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--table", type=int, required=True)
    p.add_argument("--url", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--pace", type=float, required=True)
    p.add_argument("--camera", default=None)
    args = p.parse_args(argv)

    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr,
                        format=f"table {args.table} %(levelname)s %(message)s")
    from companion.club_link import link_service
    from companion.pipeline import keep_camera, open_table
    from companion.service import TableService
    from companion.store import StoreFaultError
    from scorer.cards import CARD_CODES
    from scorer.events import CardCorrected, EntryUndone

    TableService.RETRY_S = 1.0
    out_lock = threading.Lock()

    def say(line: str) -> None:
        with out_lock:
            print(line, flush=True)

    store, service = open_table(Path(args.db), "ffb", say=lambda _line: None, start=False)
    close_link = link_service(service, args.db, args.url, args.table, args.password, CLUB)
    commands: queue.Queue[str] = queue.Queue()

    def read_commands() -> None:
        for line in sys.stdin:
            commands.put(line.strip())
        commands.put("stop")

    threading.Thread(target=read_commands, daemon=True).start()

    def watch() -> None:
        sub = service.bus.subscribe(maxsize=10_000)
        camera, fault = None, None
        for msg in sub:
            if msg.topic != "status":
                continue
            if msg.data.get("camera") != camera:
                camera = msg.data.get("camera")
                say(f"camera {camera}")
            storage = msg.data.get("storage") or {}
            if storage.get("fault") != fault:
                fault = storage.get("fault")
                say(f"storage {fault} {storage.get('unsaved')}")

    threading.Thread(target=watch, daemon=True).start()
    stop_camera = threading.Event()
    camera_thread = None
    if args.camera:
        from vision.reader import CardReader

        video = Path(args.camera)
        plug = video.with_name("plugged")
        reader = CardReader(threads=1)
        camera_thread = threading.Thread(target=keep_camera, args=(
            service, lambda: _Camera(video, plug), reader, None, 0.3),
            kwargs={"say": lambda _line: None, "stop": stop_camera, "max_retry_s": 2.0},
            daemon=True)
        camera_thread.start()

    rng = random.Random(args.seed * 31 + args.table)
    playing = True
    # The open game's plan and the next planned event (read from the store when
    # the game changes: at start, after a restart, at a new game).
    current: dict[str, Any] = {"game": None, "plan": [], "next": 0}
    say("ready")

    def submit(event: Any) -> None:
        stored = service.submit(event, source="simulator")
        flag = "u" if service.storage()["unsaved"] else "s"
        say(f"ack {stored.game_id} {stored.seq} {flag}")

    def wrong_correction() -> None:
        state = service.state_json()
        tricks = state.get("tricks") or []
        if state.get("phase") != "play" or not tricks:
            say("correction skipped")
            return
        seen = {c for t in tricks for c in t["cards"] if c}
        seen |= {c["card"] for c in state["current_trick"]["cards"] if c.get("card")}
        trick = len(tricks)
        for seat in tricks[-1]["seats"]:
            for card in rng.sample(list(CARD_CODES), len(CARD_CODES)):
                if card in seen:
                    continue
                try:
                    stored = service.submit(CardCorrected(seat=seat, trick=trick, new=card),
                                            source="web", author="soak")
                except ValueError:
                    continue
                say(f"ack {stored.game_id} {stored.seq} c")
                undo = service.submit(EntryUndone(index=stored.seq), source="web",
                                      author="soak")
                say(f"ack {undo.game_id} {undo.seq} c")
                return
        say("correction skipped")

    while True:
        try:
            command = commands.get(timeout=args.pace * rng.uniform(0.5, 1.5))
        except queue.Empty:
            command = ""
        if command == "stop":
            break
        if command == "pause":
            playing = False
            say("paused")
        if command == "correct":
            wrong_correction()
        if not playing:
            continue
        try:
            finished = (current["game"] == service.game_id
                        and current["next"] >= len(current["plan"]))
            if service.game_id is None or finished or service.state_json()["phase"] == "over":
                game = len(store.games()) + 1
                service.start_game(_plan(args.seed, args.table, game)[0], source="simulator")
                say(f"ack {service.game_id} 0 s")
                continue
            game_id = service.game_id
            if current["game"] != game_id:
                plan = _plan(args.seed, args.table, game_id)
                done, dangling = _strip([s.event for s in service.events()])
                if dangling is not None:  # killed between a wrong correction and its undo
                    undo = service.submit(EntryUndone(index=dangling), source="web",
                                          author="soak")
                    say(f"ack {undo.game_id} {undo.seq} c")
                if done != plan[:len(done)]:
                    say(f"mismatch {game_id} {len(done)}")
                    return 1
                current.update(game=game_id, plan=plan, next=len(done))
            if current["next"] < len(current["plan"]):
                submit(current["plan"][current["next"]])
                current["next"] += 1
        except StoreFaultError:
            continue  # a new game waits for the disk: the page says so
    stop_camera.set()
    if camera_thread is not None:
        camera_thread.join(timeout=10)
    service.close()
    close_link()
    store.close()
    say(f"stopped {service.storage()['unsaved']}")
    return 0


# -- the evening (the parent) ---------------------------------------------------------


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class Table:
    """A table process, started again after a kill; what it acknowledged."""

    def __init__(self, n: int, folder: Path, url: str, password: str, seed: int, pace: float,
                 camera: Path | None) -> None:
        self.n, self.folder, self.url, self.password = n, folder, url, password
        self.seed, self.pace, self.camera = seed, pace, camera
        self.db = folder / "table.db"
        self.acked: dict[tuple[int, int], str] = {}
        self.lines: list[str] = []
        self.proc: subprocess.Popen[str] | None = None
        self.ready = threading.Event()
        self.starts = 0

    def start(self) -> None:
        cmd = [sys.executable, "-u", str(Path(__file__).resolve()), "--table-worker",
               "--db", str(self.db), "--table", str(self.n), "--url", self.url,
               "--password", self.password, "--seed", str(self.seed),
               "--pace", str(self.pace)]
        if self.camera is not None:
            cmd += ["--camera", str(self.camera)]
        self.ready.clear()
        with open(self.folder.parent / f"table{self.n}.log", "a") as log:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=log, text=True, cwd=ROOT,
                                         env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.starts += 1
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.strip()
            if line.startswith("ack "):
                _, game, seq, flag = line.split()
                self.acked[(int(game), int(seq))] = flag
            else:
                self.lines.append(f"{time.monotonic():.1f} {line}")
                if line == "ready":
                    self.ready.set()

    def send(self, command: str) -> None:
        if self.proc is not None and self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.write(command + "\n")
                self.proc.stdin.flush()

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        self.send("stop")
        try:
            return self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class Club:
    """``belote-table club`` in its own process."""

    def __init__(self, folder: Path, url: str, password: str, tables: int) -> None:
        self.db = folder / "club.db"
        self.pw = folder / "club.pw"
        self.pw.write_text(password + "\n")
        self.url, self.tables = url, tables
        self.proc: subprocess.Popen[str] | None = None
        self.log = open(folder / "club.log", "a")  # noqa: SIM115 - open for the whole run
        self.starts = 0

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-u", "-m", "cli.main", "club", "--db", str(self.db),
             "--broker", self.url, "--club", CLUB, "--tables", str(self.tables),
             "--password-file", str(self.pw), "--port", "0", "--host", "127.0.0.1",
             "--pin", PIN],
            stdout=subprocess.PIPE, stderr=self.log, text=True, cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        self.starts += 1
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        for line in self.proc.stdout:
            self.log.write(line)
            if "http://" in line or time.monotonic() > deadline:
                break
        threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()

    def _drain(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.log.write(line)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def table_record(db: Path) -> list[tuple[Any, ...]]:
    """A table's store as the club must hold it: (seq, game, game_seq, data)."""
    # Not read-only: a table stopped cleanly leaves no -shm, which a reader makes.
    conn = sqlite3.connect(db, timeout=10)
    try:
        return [tuple(r) for r in conn.execute(
            "SELECT rowid, game_id, seq, data FROM events ORDER BY rowid")]
    finally:
        conn.close()


def club_record(db: Path, table: int) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return [tuple(r) for r in conn.execute(
            "SELECT seq, game_id, game_seq, data FROM events WHERE table_no = ? ORDER BY seq",
            (table,))]
    finally:
        conn.close()


def _tail(path: Path, lines: int = 15) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return []


def _write_film(path: Path) -> None:
    import cv2
    import numpy as np

    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 4, (320, 240))
    for i in range(40):
        writer.write(np.full((240, 320, 3), 70 + i % 5, np.uint8))  # the empty green felt
    writer.release()


def _mount_tmpfs(where: Path) -> bool:
    if os.geteuid() != 0:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TABLE_DISK}", "tmpfs",
                           str(where)], capture_output=True, check=False)
    return done.returncode == 0


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * chunk)
    finally:
        os.close(fd)
    return filler


def check_table(t: Table) -> dict[str, Any]:
    """What a table stored against what it acknowledged and what it should have
    played: lost, doubled (or out of place), stored."""
    from companion.store import Store

    lost = doubled = stored = 0
    with Store(t.db) as store:
        games = store.games()
        kept = {(g["id"], s.seq): s.event for g in games for s in store.events(g["id"])}
        for g in games:
            events = [s.event for s in store.events(g["id"])]
            stored += len(events)
            plan = _plan(t.seed, t.n, g["id"])
            done, _dangling = _strip(events)
            same = 0
            while same < min(len(done), len(plan)) and done[same] == plan[same]:
                same += 1
            doubled += len(done) - same
    lost = sum(1 for key in t.acked if key not in kept)
    return {"table": t.n, "stored": stored, "acked": len(t.acked), "lost": lost,
            "doubled": doubled, "games": len(games), "starts": t.starts,
            "acked_unsaved": sum(1 for f in t.acked.values() if f == "u")}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=8)
    p.add_argument("--minutes", type=float, default=4.5, help="real minutes the run lasts")
    p.add_argument("--speed", type=float, default=60.0,
                   help="times faster than a real evening (default: 4 minutes are 4 hours)")
    p.add_argument("--event-s", type=float, default=7.5,
                   help="seconds between two events at a real table (a hand in 5 minutes)")
    p.add_argument("--full-s", type=float, default=60.0, help="seconds the disk stays full")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "soak.json"))
    args = p.parse_args()

    from club.broker import Broker

    rng = random.Random(args.seed)
    run_s = args.minutes * 60
    pace = args.event_s / args.speed
    numbers = list(range(1, args.tables + 1))
    faults_said: list[dict[str, Any]] = []
    t_start = time.monotonic()

    def note(kind: str, **what: Any) -> None:
        faults_said.append({"fault": kind, "at_s": round(time.monotonic() - t_start, 1),
                            **what})
        print(f"{time.monotonic() - t_start:6.1f} s  {kind} {what}", flush=True)

    with tempfile.TemporaryDirectory(prefix="belote-soak-") as tmp:
        folder = Path(tmp)
        mounted: list[Path] = []
        disks: dict[int, bool] = {}
        for n in numbers:
            where = folder / f"t{n}"
            where.mkdir()
            disks[n] = _mount_tmpfs(where)
            if disks[n]:
                mounted.append(where)
        film = folder / "t1" / "film.avi"
        _write_film(film)
        (folder / "t1" / "plugged").touch()
        broker = Broker(folder / "broker", CLUB, numbers).start()
        club = Club(folder, broker.url, broker.passwords["club"], args.tables)
        tables = [Table(n, folder / f"t{n}", broker.url, broker.passwords[f"table{n}"],
                        args.seed, pace, film if n == 1 else None) for n in numbers]
        try:
            club.start()
            for t in tables:
                t.start()
            for t in tables:
                t.ready.wait(120)
            t_start = time.monotonic()
            # The faults, at seeded times in the middle of the evening, one after another.
            kinds = ["kill_table", "kill_club", "broker_restart", "disk_full",
                     "camera_unplugged", "wrong_correction", "wrong_correction"]
            times = sorted(rng.uniform(0.15, 0.6) * run_s for _ in kinds)
            rng.shuffle(kinds)
            plan = list(zip(times, kinds, strict=True))
            print(f"evening: {args.tables} tables, {run_s:.0f} s ({run_s * args.speed / 3600:.1f} "
                  f"h of play), an event every {pace:.3f} s per table", flush=True)
            memory: dict[str, list[tuple[float, float, int]]] = {}
            full_until: dict[int, tuple[float, Path]] = {}
            camera_back: float | None = None
            last_sample = -10.0
            while (now := time.monotonic() - t_start) < run_s:
                if now - last_sample >= 5:
                    last_sample = now
                    procs = {f"table{t.n}": t.proc for t in tables}
                    procs["club"] = club.proc
                    procs["broker"] = broker._proc
                    for name, proc in procs.items():
                        if proc is not None and proc.poll() is None:
                            mb = rss_mb(proc.pid)
                            if mb is not None:
                                memory.setdefault(name, []).append((now, mb, proc.pid))
                while plan and plan[0][0] <= now:
                    _at, kind = plan.pop(0)
                    busy = set(full_until)
                    pick = rng.choice([n for n in numbers if n not in busy])
                    if kind == "kill_table":
                        tables[pick - 1].kill()
                        note(kind, table=pick)
                        tables[pick - 1].start()
                    elif kind == "kill_club":
                        club.kill()
                        note(kind)
                        time.sleep(2)
                        club.start()
                    elif kind == "broker_restart":
                        broker.restart()
                        note(kind)
                    elif kind == "disk_full":
                        if disks[pick]:
                            full_until[pick] = (now + args.full_s, _fill(folder / f"t{pick}"))
                            note(kind, table=pick, seconds=args.full_s)
                        else:
                            note(kind, table=pick, skipped="not root: no tmpfs of its own")
                    elif kind == "camera_unplugged":
                        (folder / "t1" / "plugged").unlink()
                        camera_back = now + 20
                        note(kind, table=1, seconds=20)
                    elif kind == "wrong_correction":
                        tables[pick - 1].send("correct")
                        note(kind, table=pick)
                for n, (until, filler) in list(full_until.items()):
                    if now >= until:
                        filler.unlink()
                        del full_until[n]
                        note("disk_freed", table=n)
                if camera_back is not None and now >= camera_back:
                    (folder / "t1" / "plugged").touch()
                    camera_back = None
                    note("camera_plugged", table=1)
                for t in tables:
                    code = t.proc.poll() if t.proc is not None else None
                    if code is not None:  # not killed by us: systemd starts it again
                        note("table_exited", table=t.n, code=code,
                             said=t.lines[-3:], log=_tail(folder / f"table{t.n}.log"))
                        t.start()
                time.sleep(0.2)
            for n, (_until, filler) in list(full_until.items()):
                filler.unlink()
                note("disk_freed", table=n)
            if camera_back is not None:
                (folder / "t1" / "plugged").touch()
            end_memory = {}
            for t in tables:
                if t.proc is not None and t.proc.poll() is None:
                    end_memory[f"table{t.n}"] = (rss_mb(t.proc.pid), t.proc.pid)
            if club.proc is not None:
                end_memory["club"] = (rss_mb(club.proc.pid), club.proc.pid)
            if broker._proc is not None:
                end_memory["broker"] = (rss_mb(broker._proc.pid), broker._proc.pid)
            # The evening ends: play stops, the club catches up.
            for t in tables:
                t.send("pause")
            time.sleep(3)
            catch_up = time.monotonic()
            club_equal: dict[int, bool] = {}
            while time.monotonic() - catch_up < 180:
                club_equal = {t.n: table_record(t.db) == club_record(club.db, t.n)
                              for t in tables}
                if all(club_equal.values()):
                    break
                time.sleep(2)
            caught_up_s = round(time.monotonic() - catch_up, 1)
            records = {t.n: (len(table_record(t.db)), len(club_record(club.db, t.n)))
                       for t in tables}
            codes = {t.n: t.stop() for t in tables}
            club.stop()
            checks = [check_table(t) for t in tables]
        finally:
            for t in tables:
                if t.proc is not None and t.proc.poll() is None:
                    t.proc.kill()
            club.kill()
            broker.stop()
            for where in mounted:
                subprocess.run(["umount", "-l", str(where)], check=False)
        logs = {t.n: t.lines for t in tables}
        errors = {t.n: [line for line in _tail(folder / f"table{t.n}.log", 400)
                        if "Traceback" in line or "Error" in line][:10] for t in tables}

    def growth(name: str) -> dict[str, Any]:
        samples = memory.get(name, [])
        end_mb, end_pid = end_memory.get(name, (None, None))
        # The last incarnation's first sample after its warm-up (a killed
        # process is measured from its new start, once warm).
        mine = [s for s in samples if s[2] == end_pid]
        warm = WARM_UP * run_s + (mine[0][0] if mine and mine[0][0] > 10 else 0.0)
        later = [s for s in mine if s[0] >= warm] or mine
        if not later or end_mb is None:
            return {"start_mb": None, "end_mb": end_mb}
        start_mb = later[0][1]
        return {"start_mb": round(start_mb, 1), "end_mb": round(end_mb, 1),
                "growth_pct": round(100 * (end_mb - start_mb) / start_mb, 1),
                "measured_from_s": round(later[0][0], 1)}

    mem = {name: growth(name) for name in [*(f"table{n}" for n in numbers), "club", "broker"]}
    lost = sum(c["lost"] for c in checks)
    doubled = sum(c["doubled"] for c in checks)
    stored = sum(c["stored"] for c in checks)
    worst = max((m.get("growth_pct") or 0.0) for m in mem.values())
    camera = [line for line in logs.get(1, []) if " camera " in f" {line} "]
    storage = {n: [line for line in lines if " storage " in f" {line} "]
               for n, lines in logs.items()}
    result = {
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "evening": {"tables": args.tables, "real_s": run_s, "speed": args.speed,
                    "evening_h_asked": round(run_s * args.speed / 3600, 2),
                    # What was played: a table's events at a real table's pace.
                    "evening_h_played": round(stored / args.tables * args.event_s / 3600, 2),
                    "event_every_s": round(pace, 4), "seed": args.seed,
                    "disk_faults_on_tmpfs": all(disks.values())},
        "events_stored": stored, "events_lost": lost, "events_doubled": doubled,
        "club_equal_to_tables": all(club_equal.values()), "club_caught_up_s": caught_up_s,
        "records": {str(n): {"table": a, "club": b} for n, (a, b) in records.items()},
        "tables": checks, "exit_codes": {str(n): c for n, c in codes.items()},
        "memory_mb": mem, "memory_worst_growth_pct": worst,
        # Each process's memory every 30 s: (seconds into the run, MB).
        "memory_series_mb": {name: [[round(t), round(mb, 1)] for t, mb, _pid in samples
                                    if round(t) % 30 < 5]
                             for name, samples in memory.items()},
        "faults": faults_said,
        "camera_statuses": camera[:20], "storage_statuses": {str(n): s[:10]
                                                             for n, s in storage.items() if s},
        "club_starts": club.starts,
        "table_errors": {str(n): e for n, e in errors.items() if e},
    }
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"played the equivalent of {result['evening']['evening_h_played']} h at "
          f"{args.tables} tables")
    print(f"stored {stored} events at {args.tables} tables; lost {lost}, doubled {doubled}; "
          f"club equal to every table: {result['club_equal_to_tables']} "
          f"(caught up in {caught_up_s} s); worst memory growth after warm-up {worst} %")
    for name, m in mem.items():
        print(f"  {name}: {m.get('start_mb')} -> {m.get('end_mb')} MB ({m.get('growth_pct')} %)")
    print(f"wrote {args.out}")
    ok = lost == 0 and doubled == 0 and result["club_equal_to_tables"]
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--table-worker":
        sys.exit(table_worker(sys.argv[2:]))
    sys.exit(main())
