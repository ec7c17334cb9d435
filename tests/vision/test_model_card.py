"""The model card stays a model card (issue 24, item 6): short, and it names what
the reader runs and where its figures come from."""

from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parents[2] / "vision" / "models"
CARD = MODELS / "README.md"


def test_the_model_card_is_at_most_200_lines_with_the_sections_a_card_needs():
    text = CARD.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    for heading in ("## Intended use", "## Data", "## Reproduce", "## Figures",
                    "## Speed and size", "## Known limits"):
        assert heading in text, heading
    # The real photos' source and licence are credited.
    assert "CC BY 4.0" in text and "cadyzedevelopmenthub" in text


@pytest.mark.parametrize("model", sorted(p.name for p in MODELS.glob("*.onnx")))
def test_every_shipped_model_file_is_named_in_the_card(model):
    assert f"`{model}`" in CARD.read_text(encoding="utf-8")


def test_no_line_of_the_card_runs_over_400_characters():
    long = [n for n, line in enumerate(CARD.read_text(encoding="utf-8").splitlines(), 1)
            if len(line) > 400]
    assert not long, f"lines over 400 characters: {long}"


def test_each_reader_rule_is_listed_with_what_it_adds():
    """The reader's rules, each with its measured figure (right added, wrong prevented);
    the settings a rule names are the model JSON's."""
    import re

    from vision.settings import ReaderSettings

    text = CARD.read_text(encoding="utf-8")
    section = text.split("## Reader rules", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines()
            if line.startswith("| ") and not line.startswith("| rule") and "---" not in line]
    assert len(rows) >= 10
    keys = set(ReaderSettings.__dataclass_fields__)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert re.search(r"[+-]?\d", cells[-2]), row  # its figure
        named = set(re.findall(r"`([a-z_]+)`", cells[1]))
        assert named <= keys, row
