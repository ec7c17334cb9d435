"""The numbers in hardware/'s documents are recomputed here, so that an edit of one
of them (a pin moved in the firmware, a price changed, another lens) cannot leave the
rest wrong: the wiring table and drawing against firmware/main.py and the Pico's
pinout, the camera mount's field-of-view arithmetic, the bill of materials' totals."""

from __future__ import annotations

import ast
import math
import re
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HW = ROOT / "hardware"

# Raspberry Pi Pico datasheet, pinout: physical pin -> name.
PICO_PINOUT = {
    1: "GP0", 2: "GP1", 3: "GND", 4: "GP2", 5: "GP3", 6: "GP4", 7: "GP5", 8: "GND",
    9: "GP6", 10: "GP7", 11: "GP8", 12: "GP9", 13: "GND", 14: "GP10", 15: "GP11",
    16: "GP12", 17: "GP13", 18: "GND", 19: "GP14", 20: "GP15", 21: "GP16", 22: "GP17",
    23: "GND", 24: "GP18", 25: "GP19", 26: "GP20", 27: "GP21", 28: "GND", 29: "GP22",
    30: "RUN", 31: "GP26", 32: "GP27", 33: "AGND", 34: "GP28", 35: "ADC_VREF",
    36: "3V3(OUT)", 37: "3V3_EN", 38: "GND", 39: "VSYS", 40: "VBUS",
}


def _table(text: str, header_start: str) -> list[list[str]]:
    """The body rows of the markdown table whose header row starts with ``header_start``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def _main_constants() -> dict[str, Any]:
    tree = ast.parse((ROOT / "firmware" / "main.py").read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in ("NS_PINS", "EW_PINS", "LED_PIN"):
                out[target.id] = ast.literal_eval(node.value)
    return out


def test_wiring_pin_table_matches_the_firmware_and_the_pico_pinout():
    rows = _table((HW / "wiring.md").read_text(), "| from |")
    by_what = {}
    for what, physical, name, _to in rows:
        if physical.isdigit():
            assert PICO_PINOUT[int(physical)] == name, (what, physical, name)
        by_what[what] = name
    pins = _main_constants()
    ns_clk, ns_dio = pins["NS_PINS"]
    ew_clk, ew_dio = pins["EW_PINS"]
    assert by_what["NS display CLK"] == f"GP{ns_clk}"
    assert by_what["NS display DIO"] == f"GP{ns_dio}"
    assert by_what["EW display CLK"] == f"GP{ew_clk}"
    assert by_what["EW display DIO"] == f"GP{ew_dio}"
    assert by_what["alert LED"] == f"GP{pins['LED_PIN']}"
    assert by_what["displays power"] == "3V3(OUT)"  # 3.3 V logic: see the text
    assert by_what["displays ground"] == "GND" and by_what["LED cathode"] == "GND"


def test_wiring_drawing_names_the_same_pins():
    text = (HW / "wiring.md").read_text()
    drawing = text[text.index("## Drawing"):text.index("## The box")]
    labels = re.findall(r"\| pin (\d+)\s+(\S+)", drawing)
    assert len(labels) == 8  # four signals, LED, LED ground, 3V3, ground
    for physical, name in labels:
        assert PICO_PINOUT[int(physical)] == name, (physical, name)
    table = {(p, n) for _w, p, n, _t in _table(text, "| from |") if p.isdigit()}
    assert set(labels) == table


def test_led_current_in_the_wiring_notes():
    text = (HW / "wiring.md").read_text()
    m = re.search(r"\(3\.3 V - ([\d.]+) V\) / (\d+) ohm = about (\d+) mA", text)
    assert m, "LED current line"
    forward, ohms, said = float(m[1]), int(m[2]), int(m[3])
    assert round((3.3 - forward) / ohms * 1000) == said
    assert f"resistor {ohms} ohm" in (HW / "bom.md").read_text()


LENSES = {"standard": (66, 41), "wide": (102, 67)}  # Camera Module 3 datasheet, degrees
SENSOR_HEIGHT_MM = 3.63
NEEDED_M = 0.80 + 2 * 0.05  # the table and a 5 cm margin each side


def _tan_half(degrees: float) -> float:
    return math.tan(math.radians(degrees / 2))


def test_camera_mount_lens_table_agrees_with_the_sensor():
    rows = _table((HW / "camera-mount.md").read_text(), "| lens | focal length |")
    assert len(rows) == 2
    for lens, focal, horizontal, vertical in rows:
        name = lens.split()[0]
        assert (int(horizontal.rstrip("°")), int(vertical.rstrip("°"))) == LENSES[name]
        f_mm = float(focal.split()[0])
        from_sensor = math.degrees(2 * math.atan(SENSOR_HEIGHT_MM / 2 / f_mm))
        assert abs(from_sensor - LENSES[name][1]) < 1.0, (lens, from_sensor)


def test_camera_mount_heights_are_the_field_of_view_arithmetic():
    text = (HW / "camera-mount.md").read_text()
    assert "needed           90 cm" in text
    rows = _table(text, "| lens | tan(θv / 2) |")
    assert len(rows) == 2
    for lens, tan_text, height_text, covered_text in rows:
        name = lens.split(",")[0]
        horizontal, vertical = LENSES[name]
        tan = _tan_half(vertical)
        assert float(tan_text.split("=")[1]) == pytest.approx(tan, abs=0.0005)
        height = NEEDED_M / (2 * tan)
        assert float(height_text.strip("*").split()[0]) == pytest.approx(height, abs=0.005)
        wide, tall = (float(v) for v in covered_text.replace(" m", "").split(" x "))
        assert wide == pytest.approx(2 * height * _tan_half(horizontal), abs=0.005)
        assert tall == pytest.approx(NEEDED_M, abs=0.005)
    # The recommendation and the BOM say the same heights.
    assert "**Standard lens at 1.20 m**" in text
    bom = (HW / "bom.md").read_text()
    assert "1.20 m above the table" in bom


def test_camera_mount_pixels_per_card():
    rows = _table((HW / "camera-mount.md").read_text(), "| stream (16:9)")
    assert len(rows) == 3
    for stream, per_mm_text, card_text, index_text in rows:
        size = re.match(r"(\d+) x (\d+)", stream)
        assert size, stream
        width, height = int(size[1]), int(size[2])
        assert width * 9 == height * 16
        per_mm = height / (NEEDED_M * 1000)
        assert float(per_mm_text) == pytest.approx(per_mm, abs=0.005)
        card_w, card_h = (int(v) for v in card_text.replace(" px", "").split(" x "))
        assert (card_w, card_h) == (round(56 * per_mm), round(87 * per_mm)), stream
        assert int(index_text.split()[0]) == round(7 * per_mm)


def test_bill_of_materials_totals_add_up():
    text = (HW / "bom.md").read_text()
    cost: dict[int, float] = {}
    lines = [line for line in text.splitlines() if re.match(r"^\| \d+b? \|", line)]
    for line in lines:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        number, _part, part_number, qty, unit = cells[:5]
        assert part_number, line
        if number.endswith("b"):
            continue  # an alternative, in brackets: not counted
        cost[int(number)] = int(qty) * float(unit)
    assert sorted(cost) == list(range(1, 20))
    totals = _table(text, "| group | total |")
    groups = {}
    for group, total in totals:
        m = re.search(r"(\d+) to (\d+)", group)
        if m:
            first, last = int(m[1]), int(m[2])
            groups[(first, last)] = float(total)
    assert set(groups) == {(1, 7), (9, 15), (16, 19)}
    for (first, last), total in groups.items():
        assert sum(cost[i] for i in range(first, last + 1)) == pytest.approx(total), (first, last)
    grand = re.search(r"about (\d+) EUR", totals[-1][1])
    assert grand and int(grand[1]) == round(sum(groups.values()))
