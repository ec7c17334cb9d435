"""``benchmarks/aarch64.py``'s parts that run on this machine: the comparison of two
sides' reads, the file it writes, its refusals. The emulated run itself (an arm64 root,
minutes under qemu) is the benchmark's, not the tests'."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import aarch64


def read(code: str | None, confidence: float, x: float, y: float = 100.0) -> dict:
    return {"code": code, "confidence": confidence, "guess": None, "center": [x, y],
            "indices": 2}


def side(frames: dict, probabilities: list[list[float]] | None = None) -> dict:
    out = {"versions": {"machine": "x", "python": "3.11", "numpy": "1", "opencv": "4",
                        "onnxruntime": "1", "emulated_cpu": ""}, "frames": frames}
    if probabilities is not None:
        out["patches"] = {"codes": ["7S", "8S"], "classes": ["7S", "8S", "none"],
                          "probabilities": probabilities}
    return out


def test_the_same_cards_within_the_tolerance_are_the_same() -> None:
    here = side({"a.jpg": [read("JH", 0.991, 50), read(None, 0.40, 300)],
                 "b.png": [read("7S", 0.95, 10)]})
    # Listed in another order, a centre a few pixels off, probabilities within 0.02.
    arm = side({"a.jpg": [read(None, 0.415, 302), read("JH", 0.975, 51)],
                "b.png": [read("7S", 0.95, 10)]})
    got = aarch64.compare(here, arm)
    assert (got["frames"], got["cards_compared"], got["same"]) == (2, 3, 3)
    assert got["different"] == []
    assert got["max_probability_difference"] == pytest.approx(0.016)


def test_every_kind_of_difference_is_listed_with_its_reason() -> None:
    here = side({"a.jpg": [read("JH", 0.99, 50), read("QS", 0.90, 200), read("AC", 0.97, 400)],
                 "b.jpg": [read("7S", 0.95, 10)], "c.jpg": [read("8D", 0.9, 10)]})
    arm = side({"a.jpg": [read("JH", 0.96, 50), read("KS", 0.88, 201),
                          read("TD", 0.93, 700)],
                "b.jpg": {"error": "ImageFileError: truncated"}})
    got = aarch64.compare(here, arm)
    why = sorted((d["frame"], d["why"]) for d in got["different"])
    assert why == [("a.jpg", "autre carte"), ("a.jpg", "lue ici seulement"),
                   ("a.jpg", "lue sur ARM seulement"),
                   ("a.jpg", "probabilités à plus de 0.02"),
                   ("b.jpg", "image non lue d'un côté"), ("c.jpg", "image non lue d'un côté")]
    assert got["same"] == 0 and got["cards_compared"] == 4
    # The largest gap is that of a pair: JH 0.99 against 0.96.
    assert got["max_probability_difference"] == pytest.approx(0.03)
    other = next(d for d in got["different"] if d["why"] == "autre carte")
    assert (other["here"]["code"], other["arm"]["code"]) == ("QS", "KS")
    missing = {d["frame"]: d for d in got["different"] if d["frame"] != "a.jpg"}
    assert missing["b.jpg"]["arm"] == "ImageFileError: truncated"
    assert missing["c.jpg"]["arm"] == "image absente"


def test_a_read_pairs_with_the_same_card_before_a_closer_other_one() -> None:
    pairs, only_here, only_arm = aarch64.pair_reads(
        [read("JH", 0.9, 100)], [read("QH", 0.9, 101), read("JH", 0.9, 110)])
    assert [(a["code"], b["code"]) for a, b in pairs] == [("JH", "JH")]
    assert only_here == [] and [r["code"] for r in only_arm] == ["QH"]
    # Further apart than a card's two reads could be: not the same card.
    pairs, only_here, only_arm = aarch64.pair_reads([read("JH", 0.9, 100)],
                                                    [read("JH", 0.9, 100 + 26)])
    assert pairs == [] and len(only_here) == len(only_arm) == 1


def test_the_reference_patches_are_compared_class_by_class() -> None:
    here = side({}, [[0.9, 0.05, 0.05], [0.1, 0.8, 0.1]])
    arm = side({}, [[0.89, 0.06, 0.05], [0.5, 0.4, 0.1]])
    got = aarch64.compare(here, arm)["reference_patches"]
    assert got == {"patches": 2, "same_card": 1, "max_probability_difference": 0.4,
                   "within_tolerance": False}


def test_the_real_reader_read_twice_agrees_with_itself(tmp_path: Path) -> None:
    """The worker both sides run, on a real photo and the reference patches: its output
    compares as the same with itself, and the file's shape is the one ``main`` writes."""
    photo = aarch64.pick_photos(1)[0]
    (tmp_path / photo.name).write_bytes(photo.read_bytes())
    out = aarch64.read_frames(tmp_path)
    assert out["versions"]["machine"] and out["versions"]["onnxruntime"]
    assert len(out["patches"]["probabilities"]) == len(out["patches"]["codes"]) == 32
    reads = out["frames"][photo.name]
    assert reads and all(set(r) == {"code", "confidence", "guess", "center", "indices"}
                         for r in reads)
    got = aarch64.compare(out, json.loads(json.dumps(out)))
    assert got["cards_compared"] == got["same"] == len(reads)
    assert got["reference_patches"]["same_card"] == 32
    result = {"runs": {"cortex-a76": {"pi": "Raspberry Pi 5",
                                      "versions": {"here": out["versions"],
                                                   "arm": out["versions"]},
                                      "comparison": got}},
              "versions_here": out["versions"]}
    text = aarch64.summary(result)
    assert f"{len(reads)} lectures comparées sur 1 images, {len(reads)} identiques" in text
    assert "patchs de référence : 32 sur 32" in text


def test_the_shipped_figures_have_the_shape_the_readme_quotes() -> None:
    shipped = json.loads((Path(aarch64.__file__).with_suffix(".json")).read_text())
    assert shipped["benchmark"] == "aarch64" and shipped["runs"]
    for run in shipped["runs"].values():
        c = run["comparison"]
        assert c["cards_compared"] == c["same"] + sum(
            d["why"] not in ("image non lue d'un côté",) for d in c["different"])
        assert run["versions"]["arm"]["machine"] == "aarch64"
    assert shipped["frames"]["photos"] and shipped["frames"]["rendered"]


def test_not_root_is_refused_in_french() -> None:
    with pytest.raises(aarch64.Refused, match="il faut être root"):
        aarch64.need_root(euid=1000)
    aarch64.need_root(euid=0)


def test_arm64_programs_that_do_not_run_are_refused_in_french(tmp_path: Path) -> None:
    # An empty "root": its uname cannot run, through chroot or qemu.
    arm = aarch64.Arm(tmp_path, chroot=False, cpu="cortex-a76")
    with pytest.raises(aarch64.Refused, match="les programmes arm64 ne s'exécutent pas ici"):
        aarch64.check_arm_runs(arm)


def test_no_root_without_binfmt_is_refused_in_french(tmp_path: Path) -> None:
    with pytest.raises(aarch64.Refused, match="binfmt_misc n'est pas disponible"):
        aarch64.make_root(tmp_path / "root", "http://deb.debian.org/debian", chroot=False)
    assert not (tmp_path / "root").exists()


def test_a_run_as_another_user_writes_nothing(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(aarch64.os, "geteuid", lambda: 1000)
    out = tmp_path / "aarch64.json"
    assert aarch64.main(["--root", str(tmp_path / "root"), "--out", str(out)]) == 2
    assert "il faut être root" in capsys.readouterr().err
    assert not out.exists() and not (tmp_path / "root").exists()


def test_bad_counts_are_refused(tmp_path: Path, capsys) -> None:
    out = tmp_path / "aarch64.json"
    for args in (["--photos", "-1"], ["--photos", "0", "--frames", "0"]):
        with pytest.raises(SystemExit):
            aarch64.main([*args, "--out", str(out)])
        assert "--photos" in capsys.readouterr().err
    assert not out.exists()


def test_the_mirror_is_the_one_apt_uses(tmp_path: Path) -> None:
    one_line = tmp_path / "sources.list"
    one_line.write_text("# deb http://old.example/debian bookworm main\n"
                        "deb [arch=amd64] http://mirror.example/debian bookworm main\n")
    deb822 = tmp_path / "debian.sources"
    deb822.write_text("Types: deb\nURIs: http://security.example/debian-security\n"
                      "Suites: bookworm-security\n\n"
                      "Types: deb\nURIs: http://ftp.example/debian\n"
                      "Suites: bookworm bookworm-updates\nComponents: main\n")
    assert aarch64.debian_mirror([deb822]) == "http://ftp.example/debian"
    assert aarch64.debian_mirror([one_line, deb822]) == "http://mirror.example/debian"
    assert aarch64.debian_mirror([tmp_path / "none"]) == "http://deb.debian.org/debian"


def test_the_copy_is_the_runtime_reader_without_the_lab(tmp_path: Path) -> None:
    aarch64.copy_reader(tmp_path / "app")
    app = tmp_path / "app"
    assert (app / "vision" / "reader.py").is_file()
    assert (app / "vision" / "models" / "index_classifier.onnx").is_file()
    assert (app / "scorer" / "cards.py").is_file()
    assert not (app / "vision" / "lab").exists()
    assert not (app / "vision" / "models" / "index_classifier_fp32.onnx").exists()
    assert (app / "benchmarks" / "aarch64.py").read_text() == Path(
        aarch64.__file__).read_text()


def test_the_arm_features_are_read_from_the_auxiliary_vector() -> None:
    import struct

    # AT_HWCAP with asimddp (bit 20), AT_HWCAP2 with i8mm (bit 13), then AT_NULL.
    auxv = struct.pack("<6Q", 16, 1 << 20 | 1 << 3, 26, 1 << 13, 0, 0)
    assert aarch64.arm_features(auxv) == "asimddp i8mm"
    assert aarch64.arm_features(struct.pack("<4Q", 16, 1 << 3, 0, 0)) == \
        "none of asimddp sve i8mm bf16"


def test_the_reader_compared_is_named_by_commit_and_changed_files(tmp_path: Path) -> None:
    aarch64.copy_reader(tmp_path / "app")
    got = aarch64.reader_copied(tmp_path / "app")
    assert len(got["commit"]) == 40 and len(got["classifier_sha256"]) == 64
    assert all(p.startswith(("vision/", "scorer/")) for p in got["changed_from_commit"])
