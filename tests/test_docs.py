"""The docs a newcomer reads stay short and readable (issue 73): the README tells a club
what it needs in at most 20,000 characters, starting from `make demo` and `make test`;
no Markdown line of the README, docs/, hardware/ or the test data runs past 400
characters."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def test_the_readme_is_at_most_20000_characters_and_starts_from_demo_and_test() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text) <= 20_000, len(text)
    head = text[:1500]
    assert "make demo" in head and "make test" in head


def test_no_markdown_line_of_the_newcomers_docs_is_over_400_characters() -> None:
    docs = [README, *(ROOT / "docs").glob("*.md"), *(ROOT / "hardware").glob("*.md"),
            *(ROOT / "tests" / "data").rglob("*.md")]
    assert len(docs) > 5
    long = [f"{p.relative_to(ROOT)}:{n}: {len(line)}" for p in docs
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > 400]
    assert not long, long


def test_the_readme_links_lead_to_files_in_the_checkout() -> None:
    import re

    text = README.read_text(encoding="utf-8")
    links = [t for t in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in t]
    assert links
    assert [t for t in links if not (ROOT / t).exists()] == []
