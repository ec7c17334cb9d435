"""The speed benchmark says which processor and 8-bit instructions its figures came from."""

from benchmarks.vision import cpu

XEON = """processor\t: 0
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu sse2 avx avx2 avx512f avx512_vnni avx_vnni
processor\t: 1
model name\t: Intel(R) Xeon(R) Processor
flags\t\t: fpu sse2 avx avx2 avx512f avx512_vnni avx_vnni
"""
EPYC = """model name\t: AMD EPYC Processor
flags\t\t: fpu sse2 avx avx2 fma
"""
PI5 = """processor\t: 0
BogoMIPS\t: 108.00
Features\t: fp asimd evtstrm aes pmull crc32 atomics asimdrdm lrcpc dcpop asimddp
"""


def test_vnni_is_named_before_avx2():
    found = cpu(XEON)
    assert found["cpu"] == "Intel(R) Xeon(R) Processor"
    assert found["int8_instructions"] == "avx512_vnni"


def test_avx2_alone_is_told_apart():
    found = cpu(EPYC)
    assert found["cpu"] == "AMD EPYC Processor"
    assert found["int8_instructions"] == "avx2"


def test_arm_dot_product_is_read_from_features():
    assert cpu(PI5)["int8_instructions"] == "asimddp"


def test_no_cpuinfo_still_answers():
    found = cpu("")
    assert found["int8_instructions"] == "none known"
    assert found["cpu"]


def test_a_frame_s_time_is_split_between_the_two_models(tmp_path):
    """One frame: the classifier's and the detector's share of it, each under the whole
    frame, and the patches the classifier read."""
    from benchmarks.vision import run

    got = run(frames=1, repeats=1, out=tmp_path / "vision.json")
    for threads in (1, 2):
        whole = got[f"ms_per_frame_{threads}t_mean"]
        parts = [got[f"ms_per_frame_{threads}t_{m}"] for m in ("classifier", "detector")]
        assert all(0 < p < whole for p in parts) and sum(parts) < whole
        assert got[f"patches_per_frame_{threads}t"] >= 8  # 8 cards, each read once at least
    assert (tmp_path / "vision.json").is_file()
