"""Fixtures shared by every part's tests. Each part keeps its own in tests/<part>/."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The real card photographs (../shared/data), which the tests use as they are."""
    path = SHARED / "data"
    if not path.is_dir():
        pytest.fail(f"missing {path}: the tests need the shared data beside the checkout")
    return path


@pytest.fixture
def artifacts() -> Path:
    """Where tests leave screenshots and images for a person to look at (git-ignored)."""
    path = ROOT / "tests" / "artifacts"
    path.mkdir(parents=True, exist_ok=True)
    return path
