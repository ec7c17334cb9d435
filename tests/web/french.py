"""Finding English words left on a French page.

English vocabulary is taken from the pages' own English: every word of the
catalog's English texts (``messages.pot``) and of the rules engine's and entry
checks' messages, less the words that are French as well (they appear in the
French catalog's texts) and a short list of names and codes that are the same
in both languages. A word of the page found in that vocabulary is English left
behind.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path

from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿŒœ]+(?:'[A-Za-zÀ-ÖØ-öø-ÿ]+)?")
# English words that are not in any catalog text but come out of code.
EXTRA_ENGLISH = [
    "the", "and", "of", "to", "is", "not", "wins", "won", "win", "game", "games", "hand",
    "hands", "trick", "tricks", "card", "cards", "seat", "seats", "played", "plays", "play",
    "out", "turn", "bid", "bids", "taker", "trump", "value", "double", "team", "teams",
    "player", "players", "score", "scores", "camera", "display", "searching", "connecting",
    "virtual", "table", "none", "unknown", "missing", "expected", "got", "already", "over",
    "started", "start", "undo", "undone", "entry", "entries", "corrected", "correction",
    "read", "this", "that", "with", "from", "for", "by", "on", "at", "in", "it", "its",
    "their", "own", "only", "must", "cannot", "no", "yes", "true", "false", "north", "south",
    "east", "west", "pass", "take", "sans", "atout", "all", "hearts", "spades", "diamonds",
    "clubs", "dealer", "target", "rules", "settings", "counted", "lost", "error", "manual",
    "paused", "ended", "organiser", "draw", "time", "limit", "minutes",
]
# Words spelled the same in both languages, names and codes.
SAME_IN_BOTH = [
    "belote", "rebelote", "contre", "surcontre", "capot", "contrée", "contré", "surcontré",
    "renonce", "litige", "dix", "der", "ffb", "ns", "eo", "pin", "csv", "json", "svg", "pdf",
    "sqlite", "api", "ok", "fr", "en", "id", "x", "z", "h", "points", "total", "totals",
    "minute", "minutes", "note", "club", "normal", "simple",
]


def _texts(path: Path) -> tuple[list[str], list[str]]:
    with path.open("rb") as f:
        catalog = read_po(f)
    ids, strs = [], []
    for m in catalog:
        if not m.id:
            continue
        ids.extend(m.id if isinstance(m.id, tuple) else [m.id])
        if m.string:
            strs.extend(m.string if isinstance(m.string, tuple) else [m.string])
    return ids, strs


def _words(texts: list[str]) -> set[str]:
    out: set[str] = set()
    for text in texts:
        # Placeholders are names, not words.
        text = re.sub(r"%\(\w+\)s", " ", text)
        out.update(w.lower() for w in WORD.findall(text))
    return out


@cache
def english_vocabulary() -> frozenset[str]:
    ids, _ = _texts(ROOT / "web/translations/messages.pot")
    _, french = _texts(ROOT / "web/translations/fr/LC_MESSAGES/messages.po")
    english = _words(ids) | set(EXTRA_ENGLISH)
    return frozenset(w for w in english - _words(french) - set(SAME_IN_BOTH) if len(w) > 1)


def visible_text(page: str) -> str:
    """What a visitor reads on an HTML page: its text, the values of the
    attributes people see (placeholder, title, aria-label, alt, value of
    buttons), and the words the page's script draws with (the ``#words`` JSON)."""
    words = re.search(r'<script type="application/json" id="words">(.*?)</script>', page, re.S)
    drawn: list[str] = []
    if words:
        def walk(value: object) -> None:
            if isinstance(value, str):
                drawn.append(value)
            elif isinstance(value, dict):
                for v in value.values():
                    walk(v)
            elif isinstance(value, list):
                for v in value:
                    walk(v)
        walk(json.loads(html.unescape(words.group(1))))
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    attrs = re.findall(r'\b(?:placeholder|title|aria-label|alt)="([^"]*)"', body)
    text = re.sub(r"<[^>]+>", " ", body)
    return html.unescape(" ".join([text, *attrs, *drawn]))


def english_words(text: str, allow: tuple[str, ...] = ()) -> list[str]:
    """The English words in ``text`` (names in ``allow`` excepted), in order."""
    vocabulary = english_vocabulary()
    allowed = {a.lower() for a in allow}
    # %(name)s placeholders of the #words templates are not shown as such.
    text = re.sub(r"%\(\w+\)s", " ", text)
    return [w for w in WORD.findall(text) if w.lower() in vocabulary
            and w.lower() not in allowed]
