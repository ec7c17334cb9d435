"""benchmarks/club.py on a small club: the store figure counts every event of
every table once, and the club screen's grid holds every table."""

from __future__ import annotations

from pathlib import Path

from benchmarks import club


def test_the_club_benchmark_stores_every_recorded_event_and_draws_every_table(
        tmp_path: Path) -> None:
    recorded = club.record_tables(tmp_path, 3, 1)
    figures = club.bench_store(tmp_path, recorded)
    assert figures["events"] == sum(len(p) for p in recorded.values())
    assert figures["events_per_s"] > 0
    page = club.bench_page(tmp_path, recorded, sizes=(4,))
    assert page[0]["tables"] == 4 and page[0]["grid_ms"] > 0
    assert club.percentile([1.0, 2.0, 3.0, 4.0], 50) in (2.0, 3.0)
