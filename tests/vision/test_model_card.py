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
