"""Whether a Raspberry Pi's ARM cores read the cards as this machine does.

The 8-bit classifier runs other kernels on ARM than on x86 (an AVX2 overflow was found
on x86 before: ``vision.classify.check_reads``). This runs the runtime reader on arm64
under emulation and compares every read with this machine's:

* an arm64 Debian bookworm root (``debootstrap --arch=arm64 --variant=minbase``, from
  the Debian mirror this machine's apt uses), run through Debian's
  ``qemu-user-static`` (binfmt_misc and ``chroot``; without binfmt_misc, an existing
  root's Python is run through ``qemu-aarch64-static -L ROOT``), made when missing;
* in it a venv with the aarch64 wheels of onnxruntime, numpy and
  opencv-python-headless from PyPI, at the versions a Pi gets
  (``hardware/constraints-pi.txt`` and ``pyproject.toml``, as ``hardware/install.sh``
  installs them; ``--versions here``: this machine's versions);
* the checkout's runtime reader copied into it (``vision/`` without the lab and the
  float classifier, ``scorer/``, this file), and this copy read on both sides (this
  machine's venv here), on the same files: the real photos' held-out ``test`` part
  (``tests/data/real-cards/scenes``, or the folder ``--real-cards`` names) and frames
  rendered on this machine by the lab (``vision.lab.evaluate``: scenes and games in
  play, seeds 12061, 12062 and 12071) saved as PNG;
* the emulated CPU is a Pi 5's (``--cpu cortex-a76``, the default) or a Pi 4's
  (``cortex-a72``: no dot product instructions, other int8 kernels).

Two reads of a frame are paired by place; a pair is the same when it names the same
card (or both leave it unknown) with probabilities within 0.02. The 32 reference
patches of ``vision/models/index_check.png`` are compared too (the classifier's
calibrated probabilities of every class). Speed under emulation means nothing: none is
measured.

Prints a French summary and writes ``benchmarks/aarch64.json``. Run as root:

    sudo .venv/bin/python benchmarks/aarch64.py [--root DIR] [--photos 20] [--frames 20]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_ROOT = ROOT / ".cache" / "arm64-root"
DEFAULT_OUT = ROOT / "benchmarks" / "aarch64.json"
#: Where the copy of the reader, the frames and the venv lie inside the arm64 root.
GUEST = "/opt/belote-check"
SUITE = "bookworm"
TOLERANCE = 0.02
#: Two reads of one card lie this close (pixels between their centres) on both sides.
PAIR_DISTANCE = 25.0
#: The rendered frames: scenes (French, English decks) and games in play at the mount.
RENDER_SEEDS = {"scenes-fr": 12061, "scenes-en": 12062, "games": 12071}
PACKAGES = ("numpy", "opencv-python-headless", "onnxruntime")
#: The Pis the emulated CPU can stand for.
CPUS = {"cortex-a76": "Raspberry Pi 5", "cortex-a72": "Raspberry Pi 4"}
QEMU = "/usr/bin/qemu-aarch64-static"
BINFMT = Path("/proc/sys/fs/binfmt_misc")


class Refused(Exception):
    """Why the benchmark cannot run here, in French (printed as is, nothing written)."""


# --------------------------------------------------------------------------------------
# The comparison (this machine only; tested in tests/vision/test_aarch64_bench.py)

def _distance(a: dict[str, Any], b: dict[str, Any]) -> float:
    (ax, ay), (bx, by) = a["center"], b["center"]
    return math.hypot(ax - bx, ay - by)


def pair_reads(here: list[dict[str, Any]], arm: list[dict[str, Any]],
               distance: float = PAIR_DISTANCE
               ) -> tuple[list[tuple[dict[str, Any], dict[str, Any]]], list[dict[str, Any]],
                          list[dict[str, Any]]]:
    """The reads of one frame paired by place: the closest first, a read naming the same
    card before one that does not, none further apart than ``distance`` pixels. Returns
    the pairs, the reads found here alone and those found on ARM alone."""
    candidates = sorted(
        ((a["code"] != b["code"], _distance(a, b), i, j)
         for i, a in enumerate(here) for j, b in enumerate(arm)
         if _distance(a, b) <= distance))
    used_here: set[int] = set()
    used_arm: set[int] = set()
    pairs = []
    for _, _, i, j in candidates:
        if i not in used_here and j not in used_arm:
            used_here.add(i)
            used_arm.add(j)
            pairs.append((here[i], arm[j]))
    return (pairs, [r for i, r in enumerate(here) if i not in used_here],
            [r for j, r in enumerate(arm) if j not in used_arm])


def _frame_said(reads: Any) -> str:
    if reads is None:
        return "image absente"
    if isinstance(reads, dict):
        return str(reads.get("error", "?"))
    return f"{len(reads)} lectures"


def _card(read: dict[str, Any] | None) -> dict[str, Any] | None:
    if read is None:
        return None
    return {"code": read["code"], "probability": round(read["confidence"], 5),
            "center": read["center"]}


def compare(here: dict[str, Any], arm: dict[str, Any],
            tolerance: float = TOLERANCE) -> dict[str, Any]:
    """Every read of ``here`` against ``arm`` (two workers' outputs: ``frames`` maps a
    frame's name to its reads, or to ``{"error": ...}``; ``patches``, the reference
    patches' probabilities). A read is the same when the other side has one at its place
    naming the same card (``None``: a card left unknown) with a probability within
    ``tolerance``; anything else is listed under ``different``, saying why."""
    different: list[dict[str, Any]] = []
    compared = same = 0
    max_diff = 0.0
    frames_here, frames_arm = here["frames"], arm["frames"]
    for name in sorted(set(frames_here) | set(frames_arm)):
        one, two = frames_here.get(name), frames_arm.get(name)
        if not isinstance(one, list) or not isinstance(two, list):
            different.append({"frame": name, "why": "image non lue d'un côté",
                              "here": _frame_said(one), "arm": _frame_said(two)})
            continue
        pairs, only_here, only_arm = pair_reads(one, two)
        for a, b in pairs:
            compared += 1
            diff = abs(a["confidence"] - b["confidence"])
            max_diff = max(max_diff, diff)
            if a["code"] != b["code"]:
                why = "autre carte"
            elif diff > tolerance:
                why = f"probabilités à plus de {tolerance}"
            else:
                same += 1
                continue
            different.append({"frame": name, "why": why, "here": _card(a), "arm": _card(b),
                              "probability_difference": round(diff, 5)})
        for r in only_here:
            compared += 1
            different.append({"frame": name, "why": "lue ici seulement", "here": _card(r),
                              "arm": None})
        for r in only_arm:
            compared += 1
            different.append({"frame": name, "why": "lue sur ARM seulement", "here": None,
                              "arm": _card(r)})
    result: dict[str, Any] = {
        "frames": len(set(frames_here) | set(frames_arm)), "cards_compared": compared,
        "same": same, "different": different,
        "max_probability_difference": round(max_diff, 6), "tolerance": tolerance}
    if "patches" in here and "patches" in arm:
        result["reference_patches"] = compare_patches(here["patches"], arm["patches"],
                                                      tolerance)
    return result


def compare_patches(here: dict[str, Any], arm: dict[str, Any],
                    tolerance: float = TOLERANCE) -> dict[str, Any]:
    """The reference patches' probabilities (every class of each) on both sides: how
    many name the same card, the largest difference of any class's probability."""
    if here["classes"] != arm["classes"] or len(here["probabilities"]) != len(
            arm["probabilities"]):
        return {"patches": len(here["probabilities"]), "same_card": 0,
                "max_probability_difference": None, "within_tolerance": False,
                "error": "pas les mêmes classes ou patchs des deux côtés"}
    same_card, max_diff = 0, 0.0
    for a, b in zip(here["probabilities"], arm["probabilities"], strict=True):
        same_card += a.index(max(a)) == b.index(max(b))
        max_diff = max(max_diff, *(abs(x - y) for x, y in zip(a, b, strict=True)))
    return {"patches": len(here["probabilities"]), "same_card": same_card,
            "max_probability_difference": round(max_diff, 6),
            "within_tolerance": max_diff <= tolerance}


def summary(result: dict[str, Any]) -> str:
    """The French summary of a result (what ``main`` prints)."""
    lines = []
    for cpu, run in result["runs"].items():
        c = run["comparison"]
        where = f"{cpu} ({CPUS.get(cpu, 'ARM')})"
        lines.append(
            f"{where} : {c['cards_compared']} lectures comparées sur {c['frames']} images, "
            f"{c['same']} identiques, {len(c['different'])} différentes ; écart de "
            f"probabilité maximal {c['max_probability_difference']:.4f} "
            f"(tolérance {c['tolerance']}).")
        p = c.get("reference_patches")
        if p:
            gap = p["max_probability_difference"]
            lines.append(f"  patchs de référence : {p['same_card']} sur {p['patches']} "
                         f"nommés pareil, écart maximal "
                         f"{'?' if gap is None else f'{gap:.4f}'}.")
        for d in c["different"][:10]:
            lines.append(f"  {d['frame']} : {d['why']} (ici {_said(d['here'])}, "
                         f"ARM {_said(d['arm'])})")
        if len(c["different"]) > 10:
            lines.append(f"  ... et {len(c['different']) - 10} autres (voir le fichier)")
        v = run["versions"]["arm"]
        lines.append(f"  ARM : Python {v['python']}, numpy {v['numpy']}, OpenCV "
                     f"{v['opencv']}, onnxruntime {v['onnxruntime']}")
    v = result["versions_here"]
    lines.append(f"Ici ({v['machine']}) : Python {v['python']}, numpy {v['numpy']}, OpenCV "
                 f"{v['opencv']}, onnxruntime {v['onnxruntime']}")
    return "\n".join(lines)


def _said(card: Any) -> str:
    if card is None:
        return "rien"
    if isinstance(card, dict):
        return f"{card['code'] or 'inconnue'} à {card['probability']}"
    return str(card)


# --------------------------------------------------------------------------------------
# The worker: reads a folder of frames with the reader beside it (both sides run it)

def versions() -> dict[str, str]:
    """The versions the reader runs with, and the machine."""
    import cv2
    import numpy
    import onnxruntime

    out = {"machine": platform.machine(), "python": platform.python_version(),
           "numpy": numpy.__version__, "opencv": cv2.__version__,
           "onnxruntime": onnxruntime.__version__,
           "emulated_cpu": os.environ.get("QEMU_CPU", "")}
    if platform.machine() == "aarch64":
        out["cpu_features"] = arm_features()
    return out


#: The ARM instructions the int8 kernels choose by (Linux's AT_HWCAP, AT_HWCAP2 bits).
HWCAP = {"asimddp": (16, 20), "sve": (16, 22), "i8mm": (26, 13), "bf16": (26, 14)}


def arm_features(auxv: bytes | None = None) -> str:
    """Which of :data:`HWCAP` the kernel (or qemu) says this ARM CPU has, from
    ``/proc/self/auxv`` (pairs of 64-bit words: type, value)."""
    import struct

    if auxv is None:
        try:
            auxv = Path("/proc/self/auxv").read_bytes()
        except OSError:
            return "?"
    words = dict(struct.iter_unpack("<QQ", auxv[:len(auxv) // 16 * 16]))
    have = [name for name, (kind, bit) in HWCAP.items() if words.get(kind, 0) >> bit & 1]
    return " ".join(have) or "none of " + " ".join(HWCAP)


def read_frames(folder: Path) -> dict[str, Any]:
    """Every frame of ``folder`` read by the reader beside this file (``still=True``, as
    ``vision read``; one thread), unknown cards included, and the reference patches'
    calibrated probabilities."""
    import cv2
    import numpy as np

    from vision.classify import CHECK_FILE
    from vision.reader import CardReader, load_image

    reader = CardReader(threads=1, still=True)
    frames: dict[str, Any] = {}
    paths = sorted(p for p in folder.iterdir() if p.suffix in (".jpg", ".png"))
    for k, path in enumerate(paths, 1):
        print(f"  {platform.machine()} : {k}/{len(paths)} {path.name}", file=sys.stderr,
              flush=True)
        try:
            reads = reader.read(load_image(path))
        except (ValueError, OSError, RuntimeError) as e:
            frames[path.name] = {"error": f"{type(e).__name__}: {e}"}
            continue
        frames[path.name] = [
            {"code": d.code, "confidence": float(d.confidence), "guess": d.guess,
             "center": [float(d.center[0]), float(d.center[1])], "indices": d.indices}
            for d in reads]
    classifier = reader.classifier
    check = classifier.model_path.with_name(CHECK_FILE)
    codes = json.loads(check.with_suffix(".json").read_text())["codes"]
    size = int(classifier.meta["crop"])
    strip = cv2.imread(str(check), cv2.IMREAD_COLOR)
    patches = np.ascontiguousarray(
        strip.reshape(size, len(codes), size, 3).transpose(1, 0, 2, 3))
    probabilities = classifier.probabilities(patches)
    return {"versions": versions(), "frames": frames,
            "patches": {"codes": codes, "classes": list(classifier.classes),
                        "probabilities": [[float(x) for x in row] for row in probabilities]}}


# --------------------------------------------------------------------------------------
# The arm64 root

def debian_mirror(sources: Sequence[Path] | None = None) -> str:
    """The Debian mirror this machine's apt uses for the main archive (one-line
    ``sources.list`` entries or deb822 ``.sources`` files), else deb.debian.org."""
    if sources is None:
        apt = Path("/etc/apt")
        sources = [apt / "sources.list", *sorted((apt / "sources.list.d").glob("*.list")),
                   *sorted((apt / "sources.list.d").glob("*.sources"))]
    for path in sources:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
                suites = fields.get("Suites", "").split()
                if "deb" in fields.get("Types", "").split() and SUITE in suites \
                        and fields.get("Enabled", "yes") != "no":
                    return str(fields["URIs"].split()[0])
        else:
            for line in text.splitlines():
                parts = re.sub(r"\[[^]]*\]", "", line).split()
                if len(parts) >= 3 and parts[0] == "deb" and parts[2] == SUITE:
                    return parts[1]
    return "http://deb.debian.org/debian"


def _run(cmd: Sequence[str], **kw: Any) -> subprocess.CompletedProcess[str]:
    print("+ " + " ".join(str(c) for c in cmd), file=sys.stderr, flush=True)
    return subprocess.run([str(c) for c in cmd], text=True, **kw)


def need_root(euid: int | None = None) -> None:
    """Refuses (in French) unless run as root: debootstrap, chroot and binfmt_misc need it."""
    if (os.geteuid() if euid is None else euid) != 0:
        raise Refused("aarch64 : il faut être root (debootstrap, chroot et binfmt_misc "
                      "l'exigent) : sudo .venv/bin/python benchmarks/aarch64.py")


def host_tools() -> None:
    """qemu-user-static, binfmt-support and debootstrap, installed by apt when missing."""
    if Path(QEMU).is_file() and shutil.which("debootstrap") and shutil.which("update-binfmts"):
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = _run(["apt-get", "install", "-y", "qemu-user-static", "binfmt-support",
                 "debootstrap"], env=env)
    if done.returncode != 0 or not Path(QEMU).is_file():
        raise Refused("aarch64 : impossible d'installer qemu-user-static, binfmt-support et "
                      "debootstrap (apt-get install a échoué)")


def binfmt_ready() -> bool:
    """Whether the kernel runs arm64 programs through qemu (binfmt_misc), registering it
    when it can (mounting binfmt_misc, ``update-binfmts --enable qemu-aarch64``)."""
    entry = BINFMT / "qemu-aarch64"

    def enabled() -> bool:
        try:
            return entry.read_text().splitlines()[0].strip() == "enabled"
        except (OSError, IndexError):
            return False

    if enabled():
        return True
    if not (BINFMT / "register").exists():
        subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT)],
                       capture_output=True)
    if shutil.which("update-binfmts"):
        subprocess.run(["update-binfmts", "--enable", "qemu-aarch64"], capture_output=True)
    return enabled()


class Arm:
    """Runs the root's programs: by ``chroot`` where binfmt_misc runs arm64 programs,
    else each one explicitly through ``qemu-aarch64-static -L ROOT``."""

    def __init__(self, root: Path, chroot: bool, cpu: str) -> None:
        self.root, self.chroot, self.cpu = root, chroot, cpu

    def path(self, guest: str) -> str:
        """A path inside the root as the root's programs see it."""
        return guest if self.chroot else str(self.root / guest.lstrip("/"))

    def command(self, program: str, args: Sequence[str]) -> list[str]:
        if self.chroot:
            return ["chroot", str(self.root), program, *args]
        real = self.root / program.lstrip("/")
        if program.endswith("/venv/bin/python3"):
            # The venv's python is a link to /usr/bin/python3, which the kernel would
            # resolve to this machine's: run the root's and give it the venv's packages.
            real = self.root / "usr" / "bin" / "python3"
        return [QEMU, "-L", str(self.root), "-cpu", self.cpu, str(real), *args]

    def env(self) -> dict[str, str]:
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
               "HOME": "/root", "LANG": "C.UTF-8", "QEMU_CPU": self.cpu,
               "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        if not self.chroot:
            site = sorted((self.root / GUEST.lstrip("/") / "venv" / "lib").glob(
                "python3*/site-packages"))
            if site:
                env["PYTHONPATH"] = str(site[0])
        return env

    def run(self, program: str, *args: str, capture: bool = False
            ) -> subprocess.CompletedProcess[str]:
        with self.proc():
            return _run(self.command(program, args), env=self.env(), capture_output=capture)

    @contextlib.contextmanager
    def proc(self) -> Iterator[None]:
        """/proc mounted in the root while a chrooted program runs (pip and onnxruntime
        read it), unmounted after."""
        target = self.root / "proc"
        mounted = False
        if self.chroot and target.is_dir() and not os.path.ismount(target):
            mounted = subprocess.run(["mount", "-t", "proc", "proc", str(target)],
                                     capture_output=True).returncode == 0
        try:
            yield
        finally:
            if mounted:
                subprocess.run(["umount", "-l", str(target)], capture_output=True)


def hide_host_cpus(root: Path) -> None:
    """Empty CPU lists in the root's /sys: onnxruntime's cpuinfo then finds no CPU list
    and takes the emulated CPU's features from the auxiliary vector (qemu's ``-cpu``),
    through chroot or ``-L`` alike; under ``-L`` it would otherwise read this machine's
    /sys and x86 /proc/cpuinfo, and crash."""
    cpus = root / "sys" / "devices" / "system" / "cpu"
    if os.path.ismount(root / "sys"):
        return
    cpus.mkdir(parents=True, exist_ok=True)
    for name in ("kernel_max", "possible", "present"):
        (cpus / name).write_text("")


def make_root(root: Path, mirror: str, chroot: bool) -> None:
    """The arm64 Debian root, made by debootstrap when it has no Python yet."""
    if (root / "usr" / "bin" / "python3").exists():
        return
    if not chroot:
        raise Refused(
            "aarch64 : binfmt_misc n'est pas disponible ici : debootstrap ne peut pas finir "
            f"une racine arm64 sans lui. Activez-le (mount -t binfmt_misc binfmt_misc "
            f"{BINFMT} ; update-binfmts --enable qemu-aarch64) ou donnez avec --root une "
            "racine arm64 déjà faite")
    root.parent.mkdir(parents=True, exist_ok=True)
    done = _run(["debootstrap", "--arch=arm64", "--variant=minbase",
                 "--include=python3,python3-venv,python3-pip,ca-certificates", SUITE,
                 str(root), mirror])
    if done.returncode != 0:
        raise Refused(f"aarch64 : debootstrap a échoué (code {done.returncode}) ; "
                      f"la racine {root} est incomplète : effacez-la avant de relancer")


def check_arm_runs(arm: Arm) -> str:
    """The root's ``uname -m`` as its programs see it; refuses in French when arm64
    programs do not run here."""
    try:
        done = arm.run("/bin/uname", "-m", capture=True)
    except OSError as e:
        done = subprocess.CompletedProcess([], 1, "", str(e))
    machine = (done.stdout or "").strip()
    if done.returncode != 0 or machine != "aarch64":
        raise Refused("aarch64 : les programmes arm64 ne s'exécutent pas ici (qemu-user-static "
                      f"et binfmt_misc) : {(done.stderr or machine).strip()[:300]}")
    return machine


def requirements(how: str) -> tuple[list[str], Path | None]:
    """What pip installs in the root: the three packages at the versions pyproject.toml
    allows, with the Pi's constraints (``how`` "pi") or at this machine's versions
    ("here")."""
    import tomllib
    from importlib import metadata

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = []
    for name in PACKAGES:
        spec = next((d for d in deps if re.match(rf"{re.escape(name)}\b(?!-)", d)), name)
        if how == "here":
            spec = f"{name}=={metadata.version(name)}"
        wanted.append(spec.replace(" ", ""))
    constraints = ROOT / "hardware" / "constraints-pi.txt"
    return wanted, (constraints if how == "pi" and constraints.is_file() else None)


def make_venv(arm: Arm, how: str) -> None:
    """The root's venv with the aarch64 wheels (pip from PyPI). Without binfmt_misc a
    program cannot start another arm64 one (venv's ensurepip does): the root's own pip
    then installs them into the venv's site-packages."""
    venv = f"{GUEST}/venv"
    (arm.root / GUEST.lstrip("/")).mkdir(parents=True, exist_ok=True)
    if not (arm.root / venv.lstrip("/") / "bin" / "python3").exists():
        made = arm.run("/usr/bin/python3", "-m", "venv",
                       *(() if arm.chroot else ("--without-pip",)), arm.path(venv))
        if made.returncode != 0:
            raise Refused("aarch64 : la venv arm64 n'a pas pu être créée")
    wanted, constraints = requirements(how)
    args = ["-m", "pip", "install", "-q", "--only-binary", ":all:", *wanted]
    if constraints is not None:
        inside = f"{GUEST}/constraints-pi.txt"
        shutil.copyfile(constraints, arm.root / inside.lstrip("/"))
        args += ["-c", arm.path(inside)]
    # pip in the root trusts what this machine trusts (a proxy's own authority, say).
    bundle = Path("/etc/ssl/certs/ca-certificates.crt")
    if bundle.is_file():
        inside = f"{GUEST}/host-ca-certificates.crt"
        shutil.copyfile(bundle, arm.root / inside.lstrip("/"))
        args += ["--cert", arm.path(inside)]
    python = f"{venv}/bin/python3"
    if not arm.chroot:
        site = next((arm.root / venv.lstrip("/") / "lib").glob("python3*/site-packages"))
        if all((site / name).is_dir() for name in ("numpy", "cv2", "onnxruntime")):
            return  # --target cannot tell what is there: installed once
        python = "/usr/bin/python3"
        args += ["--break-system-packages", "--target", str(site)]
    if arm.run(python, *args).returncode != 0:
        raise Refused("aarch64 : pip n'a pas pu installer les roues aarch64 de "
                      + ", ".join(PACKAGES))


def copy_reader(target: Path) -> None:
    """The runtime reader as a Pi gets it (``hardware/install.sh``): vision/ without the
    lab nor the float classifier, scorer/, and this file to run it."""
    if target.exists():
        shutil.rmtree(target)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "lab", "index_classifier_fp32.onnx")
    shutil.copytree(ROOT / "vision", target / "vision", ignore=ignore)
    shutil.copytree(ROOT / "scorer", target / "scorer", ignore=ignore)
    (target / "benchmarks").mkdir()
    shutil.copyfile(Path(__file__), target / "benchmarks" / "aarch64.py")


def reader_copied(app: Path) -> dict[str, Any]:
    """Which reader was compared: the checkout's commit, the files of vision/ and scorer/
    changed from it when copied, the classifier's SHA-256."""
    import hashlib

    def git(*args: str) -> str:
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.rstrip("\n") if done.returncode == 0 else ""

    changed = git("status", "--porcelain", "--", "vision", "scorer").splitlines()
    model = app / "vision" / "models" / "index_classifier.onnx"
    return {"commit": git("rev-parse", "HEAD").strip(),
            "changed_from_commit": sorted(line[3:] for line in changed
                                          if not line[3:].startswith("vision/lab/")),
            "classifier_sha256": hashlib.sha256(model.read_bytes()).hexdigest()}


# --------------------------------------------------------------------------------------
# The frames

def pick_photos(n: int) -> list[Path]:
    """``n`` of the real photos' held-out ``test`` part (0: all), spread over it."""
    from vision.lab.dataset import real_cards, split_of

    folder = real_cards() / "scenes"
    photos = sorted(p for p in folder.glob("*.jpg") if split_of(p.name) == "test")
    if not photos:
        raise Refused(f"aarch64 : aucune photo de la partie test dans {folder}")
    if 0 < n < len(photos):
        photos = [photos[(k * len(photos)) // n] for k in range(n)]
    return photos


def render_frames(n: int, folder: Path) -> list[str]:
    """``n`` frames rendered here by the lab, saved as PNG in ``folder``: a third scenes
    of French decks, a third of English ones, a third games in play at the camera mount
    (``make_table_set``'s frames, decoded once here)."""
    import tempfile

    import cv2

    from vision.lab.evaluate import make_table_set, synthetic_frames

    names = []
    games = n // 3
    scenes = n - games
    for key, decks, count in (("scenes-fr", "french", (scenes + 1) // 2),
                              ("scenes-en", "english", scenes // 2)):
        for name, frame, _, _ in synthetic_frames(count, RENDER_SEEDS[key], decks):
            out = folder / f"rendered-{Path(name).stem}.png"
            cv2.imwrite(str(out), frame)
            names.append(out.name)
    if games:
        with tempfile.TemporaryDirectory(prefix="bench-aarch64-") as tmp:
            make_table_set(tmp, games, RENDER_SEEDS["games"], "french",
                           card_share=(0.22, 0.30))
            for path in sorted(Path(tmp).glob("*.jpg")):
                out = folder / f"rendered-{path.stem}.png"
                cv2.imwrite(str(out), cv2.imread(str(path), cv2.IMREAD_COLOR))
                names.append(out.name)
    return names


# --------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--root", default=str(DEFAULT_ROOT),
                   help="the arm64 Debian root (made when missing; default %(default)s)")
    p.add_argument("--photos", type=int, default=20,
                   help="real photos of the held-out test part (0: all of them)")
    p.add_argument("--frames", type=int, default=20, help="frames rendered here")
    p.add_argument("--real-cards", metavar="DIR",
                   help="the real photos' folder, as tests/data/real-cards (default: "
                        "$BELOTE_REAL_CARDS, else tests/data/real-cards)")
    p.add_argument("--cpu", nargs="+", default=["cortex-a76"], choices=sorted(CPUS),
                   help="the emulated CPU (cortex-a76: a Pi 5's; cortex-a72: a Pi 4's)")
    p.add_argument("--versions", choices=("pi", "here"), default="pi",
                   help="pi: the versions a Pi gets (hardware/constraints-pi.txt); "
                        "here: this machine's")
    p.add_argument("--no-binfmt", action="store_true",
                   help="run the root's programs through qemu-aarch64-static -L, "
                        "not chroot")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    p.add_argument("--worker", nargs=2, metavar=("FRAMES", "OUT"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        Path(args.worker[1]).write_text(json.dumps(read_frames(Path(args.worker[0]))) + "\n")
        return 0
    if args.photos < 0 or args.frames < 0 or args.photos + args.frames == 0:
        p.error("--photos et --frames : des nombres positifs, pas tous deux nuls")
    if args.real_cards:
        from vision.lab.dataset import use_real_cards

        try:
            use_real_cards(args.real_cards)
        except ValueError as e:
            p.error(str(e))
    try:
        result = measure(args)
    except Refused as e:
        print(str(e), file=sys.stderr)
        return 2
    Path(args.out).write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(summary(result))
    print(f"écrit dans {args.out}")
    return 0


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Makes what is missing, reads every frame on both sides, compares."""
    need_root()
    host_tools()
    root = Path(args.root).resolve()
    chroot = not args.no_binfmt and binfmt_ready()
    mirror = debian_mirror()
    make_root(root, mirror, chroot)
    check_arm_runs(Arm(root, chroot, args.cpu[0]))
    make_venv(Arm(root, chroot, args.cpu[0]), args.versions)
    base = root / GUEST.lstrip("/")
    copy_reader(base / "app")
    reader = reader_copied(base / "app")
    frames = base / "frames"
    if frames.exists():
        shutil.rmtree(frames)
    frames.mkdir(parents=True)
    photos = pick_photos(args.photos) if args.photos else []
    for photo in photos:
        shutil.copyfile(photo, frames / photo.name)
    rendered = render_frames(args.frames, frames) if args.frames else []
    script = base / "app" / "benchmarks" / "aarch64.py"
    hide_host_cpus(root)
    here_out = base / "reads-here.json"
    done = _run([sys.executable, str(script), "--worker", str(frames), str(here_out)])
    if done.returncode != 0:
        raise Refused("aarch64 : le lecteur n'a pas pu lire les images ici")
    here = json.loads(here_out.read_text())
    runs = {}
    for cpu in args.cpu:
        arm = Arm(root, chroot, cpu)
        arm_out = f"{GUEST}/reads-{cpu}.json"
        done = arm.run(f"{GUEST}/venv/bin/python3", arm.path(f"{GUEST}/app/benchmarks/aarch64.py"),
                       "--worker", arm.path(f"{GUEST}/frames"), arm.path(arm_out))
        if done.returncode != 0:
            raise Refused(f"aarch64 : le lecteur n'a pas pu lire les images sur ARM ({cpu})")
        got = json.loads((root / arm_out.lstrip("/")).read_text())
        runs[cpu] = {"pi": CPUS[cpu], "versions": {"here": here["versions"],
                                                    "arm": got["versions"]},
                     "comparison": compare(here, got)}
    qemu = subprocess.run([QEMU, "--version"], capture_output=True, text=True).stdout
    return {
        "benchmark": "aarch64",
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "emulation": {"qemu": qemu.splitlines()[0] if qemu else "", "suite": SUITE,
                      "mirror": mirror, "how": "chroot (binfmt_misc)" if chroot
                      else "qemu-aarch64-static -L", "versions_from": args.versions},
        "frames": {"photos": [p.name for p in photos], "rendered": rendered,
                   "render_seeds": RENDER_SEEDS if rendered else {}},
        "reader": reader,
        "versions_here": here["versions"],
        "runs": runs,
    }


if __name__ == "__main__":
    raise SystemExit(main())
