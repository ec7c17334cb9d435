"""The Pi set-up files in hardware/ agree with each other and with the code:
the install script (dry run), the systemd unit, its settings (parsed by the real
``belote-table run`` parser), the udev rule (the driver's USB id and name) and the
numpy < 2 constraints (inside pyproject's ranges)."""

from __future__ import annotations

import configparser
import os
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from cli import cmd_run
from companion.display import PICO_PID, PICO_VID, UDEV_NAME

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"


def _install(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(HW / "install.sh"), *args], capture_output=True,
                          text=True, timeout=30)


def test_install_script_dry_run_makes_a_system_site_venv_with_the_pi_constraints():
    run = _install("--dry-run")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "+ python3 -m venv --system-site-packages /opt/belote-table/venv" in out
    assert "install -q -c /opt/belote-table/app/hardware/constraints-pi.txt" in out
    assert "python3-picamera2" in out
    assert f"install -m 644 {HW}/belote-table.service /etc/systemd/system/" in out
    assert f"install -m 644 {HW}/99-belote-display.rules /etc/udev/rules.d/" in out
    assert "systemctl enable belote-table" in out
    # Installing over a running table restarts it, so the new code runs now.
    assert "systemctl restart belote-table" in out
    assert "autostart" not in out
    # Neither the lab nor the float classifier (training's starting point) reach the Pi.
    assert "/opt/belote-table/app/vision/lab" in out
    assert "/opt/belote-table/app/vision/models/index_classifier_fp32.onnx" in out
    # venv before pip, pip before the service (re)starts
    assert out.index("venv --system") < out.index("constraints-pi") < out.index(
        "systemctl restart")


def test_install_script_kiosk_option_and_bad_option():
    assert "belote-kiosk.desktop" in _install("--dry-run", "--kiosk").stdout
    bad = _install("--dry-run", "--kisok")
    assert bad.returncode == 2 and "option inconnue --kisok" in bad.stderr


def test_install_script_speaks_french_unless_english_is_asked_for():
    french = _install("--dry-run")
    assert "== paquets du système" in french.stdout and "== fini : http://" in french.stdout
    assert "== system packages" not in french.stdout
    english = _install("--dry-run", "--lang=en")
    assert "== system packages" in english.stdout and "== done: http://" in english.stdout
    assert "paquets" not in english.stdout
    env = {**os.environ, "LANG": "en_GB.UTF-8"}
    by_locale = subprocess.run(["bash", str(HW / "install.sh"), "--dry-run", "--kisok"],
                               capture_output=True, text=True, timeout=30, env=env)
    assert by_locale.returncode == 2 and "unknown option --kisok" in by_locale.stderr


def test_the_service_speaks_french_on_a_pi_set_up_in_english():
    from companion.i18n import language_from_env

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(HW / "belote-table.service")
    lang = unit["Service"]["Environment"].partition("LANG=")[2]
    # systemd hands the system's locale (en_GB on Raspberry Pi OS) to the unit's own
    # Environment= line, which wins; /etc/default/belote-table may still ask for English.
    assert lang and language_from_env({"LANG": lang}) == "fr"
    text = (HW / "belote-table.service").read_text()
    assert text.index("Environment=LANG") < text.index("EnvironmentFile=")


def test_shell_scripts_parse():
    for script in ("install.sh", "check-pi-deps.sh", "kiosk/belote-kiosk.sh"):
        run = subprocess.run(["bash", "-n", str(HW / script)], capture_output=True, text=True)
        assert run.returncode == 0, f"{script}: {run.stderr}"


def test_systemd_unit_runs_one_process_as_a_user_and_restarts_on_failure(tmp_path):
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read(HW / "belote-table.service")
    service = unit["Service"]
    assert service["User"] not in ("", "root")
    assert service["Restart"] == "on-failure"
    assert service["Type"] == "simple"
    exec_start = shlex.split(service["ExecStart"])
    assert exec_start[:2] == ["/opt/belote-table/venv/bin/belote-table", "run"]
    assert "dialout" in service["SupplementaryGroups"] and "video" in service["SupplementaryGroups"]
    text = (HW / "belote-table.service").read_text()
    assert text.count("ExecStart=") == 1
    if shutil.which("systemd-analyze"):
        # The real check, with the venv's program (absent here) swapped for one that exists.
        copy = tmp_path / "belote-table.service"
        copy.write_text(text.replace("/opt/belote-table/venv/bin/belote-table", "/bin/true"))
        run = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                             text=True, timeout=30)
        assert run.returncode == 0, run.stderr


def test_service_settings_are_accepted_by_belote_table_run():
    env = (HW / "belote-table.env").read_text()
    line = next(x for x in env.splitlines() if x.startswith("BELOTE_TABLE_ARGS="))
    args = shlex.split(shlex.split(line.partition("=")[2])[0])
    parsed = cmd_run.build_parser().parse_args(args)
    assert parsed.picamera and parsed.display == UDEV_NAME
    assert parsed.db.startswith("/var/lib/belote-table/")  # the unit's only writable folder
    assert "ReadWritePaths=/var/lib/belote-table" in (HW / "belote-table.service").read_text()


def test_udev_rule_names_the_drivers_pico():
    rule = next(x for x in (HW / "99-belote-display.rules").read_text().splitlines()
                if x and not x.startswith("#"))
    assert f'ATTRS{{idVendor}}=="{PICO_VID:04x}"' in rule
    assert f'ATTRS{{idProduct}}=="{PICO_PID:04x}"' in rule
    assert f'SYMLINK+="{Path(UDEV_NAME).name}"' in rule
    assert 'SUBSYSTEM=="tty"' in rule


def test_pi_constraints_keep_numpy_1_inside_the_projects_ranges():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = {Requirement(r).name: Requirement(r).specifier for r in project["dependencies"]}
    pins = {}
    for line in (HW / "constraints-pi.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            req = Requirement(line)
            pins[req.name] = req.specifier
    assert "2.0" not in pins["numpy"] and "1.24.2" in pins["numpy"]  # Debian Bookworm's
    assert "4.12.0" not in pins["opencv-python-headless"]  # 4.12 needs numpy 2
    for name, versions in {"numpy": ["1.24.2"], "opencv-python-headless": ["4.11.0.86"],
                           "onnxruntime": ["1.31.1"]}.items():
        both = SpecifierSet(str(wanted[name]) + "," + str(pins[name]))
        assert all(v in both for v in versions), (name, both)
