"""Rule sets: named presets of plain settings, every setting overridable.

``ffb`` follows the Fédération Française de Belote rules of 27.01.2016 to the
letter; the other presets cover the other rule texts (points faits + demandés,
classic belote with a turned card, clubs' house rules).

>>> r = Rules.from_preset("ffb", {"target": 2000})
>>> r.target, r.scoring, r.clockwise
(2000, 'points-faits', False)
>>> Rules.from_preset("ffb", {"taget": 2000})
Traceback (most recent call last):
...
scorer.rules.UnknownSettingError: unknown setting 'taget' (known: ...)
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Final

from scorer.errors import ScorerError


class UnknownSettingError(ScorerError):
    """A preset or a setting that does not exist, or a value it cannot take."""


# The allowed values of each enumerated setting, so that a typo is caught by name.
CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "game": ("contree", "classic"),
    "scoring": ("points-faits", "points-faits-demandes", "contract", "contract-only"),
    "contre_scoring": ("table", "multiply"),
    "belote": ("announced", "auto"),
    "renonce_penalty": ("hand-lost", "flat-160", "flat-162", "contract", "cancel"),
    "classic_taker_wins": ("more", "half"),
}

# The range of each number setting (inclusive), and its step: a target of 0 or
# 10^23, or a minimum bid over the maximum, is a typo, not a way to play.
RANGES: Final[dict[str, tuple[int, int, int]]] = {
    "target": (10, 100_000, 1),
    "min_bid": (80, 160, 10),       # FFB 4.2.2: 80 to 160 by tens
    "max_bid": (80, 160, 10),
    "unannounced_capot": (0, 1000, 1),
    "dedans_points": (0, 1000, 1),
    "capot_points": (0, 1000, 1),
    "hands": (0, 100, 1),           # 0: no fixed number of hands
    "minutes": (0, 24 * 60, 1),     # 0: no time limit; a club evening is hours, not days
}


@dataclass(frozen=True, slots=True)
class Rules:
    """Every setting the engine reads. Defaults are the FFB's."""

    # "contree" (FFB) or "classic" (turned card, take or pass).
    game: str = "contree"
    # Points a team must reach to win the game (FFB 10.4).
    target: int = 1000
    # Play and speech go counterclockwise (FFB 3.4, 5.1) unless set.
    clockwise: bool = False
    # FFB 10.2: the organiser's choice of counting method ("points-faits",
    # "points-faits-demandes"); clubs: "contract" (made: the takers score the
    # contract, the defence its points), "contract-only" (the defence scores nothing).
    scoring: str = "points-faits"
    # "table": contre and surcontre as FFB 10.2 (320/640 ...); "multiply": the
    # contract x2 / x4 (club variant).
    contre_scoring: str = "table"
    # English rendering of FFB 10.1.1: the takers must also score more than the defence.
    made_needs_more: bool = False
    # FFB 10.2 note 1: in points faits + demandés, a contre adds 160 instead of 320/640.
    contre_160: bool = False
    # FFB 11: Sans Atout and Tout Atout bids allowed.
    sans_tout_atout: bool = False
    # FFB 7: belote counts only when announced; "auto" counts K+Q of trump by themselves.
    belote: str = "announced"
    # House rule: a player who cannot overtrump must still trump lower ("pisser").
    must_undertrump: bool = False
    # FFB 5.2.3: partner master, free discard. False: must trump even then (house rule).
    partner_master_free: bool = True
    # What a proven renonce does to the hand (scorer.scoring._renonce_score): the
    # FFB text is silent; "hand-lost" values the lost hand by its 10.2 table,
    # "flat-160" gives 160 whatever the contract.
    renonce_penalty: str = "hand-lost"
    # House rule: a capot made without being bid scores this flat (0: its points, 252).
    unannounced_capot: int = 0
    # FFB 10.3: hand scores rounded to the nearest ten (85 -> 90, 84 -> 80).
    rounding: bool = True
    # FFB 11.3: Tout Atout points brought back to 162 (x 162/258) for judging and scoring.
    tout_atout_convert: bool = True
    # Contrée bids range (FFB 4.2.2).
    min_bid: int = 80
    max_bid: int = 160
    # Classic belote: a fall ("dedans") gives the defence this many points
    # (0: the defence scores only its own points, as the other classic text says).
    dedans_points: int = 162
    # Classic belote: a capot scores this (252 = 162 + 90).
    capot_points: int = 252
    # Classic belote: takers need "more" than the defence (81-81 a litige held over),
    # or "half": at least 82 of the 162 (the other classic text).
    classic_taker_wins: str = "more"
    litige_held_over: bool = True
    # Game length besides the target: a fixed number of hands (0: none), after
    # which the higher total wins (equal totals: another hand, as FFB 10.4).
    hands: int = 0
    # A time limit in minutes (0: none). The engine has no clock: the table
    # service ends the game (GameEnded, reason "time") once a hand finishes past it.
    minutes: int = 0

    @classmethod
    def from_preset(cls, name: str | None = "ffb", overrides: dict[str, Any] | None = None
                    ) -> Rules:
        """A preset with ``overrides`` on top; unknown names are rejected."""
        key = name or "ffb"
        if key not in PRESETS:
            raise UnknownSettingError("rules.unknown_preset", value=key, known=", ".join(PRESETS))
        settings = dict(PRESETS[key])
        settings.update(overrides or {})
        return cls.from_settings(settings)

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Rules:
        """Build from plain settings, checking each name, type and choice."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        defaults = cls()
        clean: dict[str, Any] = {}
        if not isinstance(settings, dict):
            raise UnknownSettingError("rules.settings_kind", kind=type(settings).__name__)
        for name, value in settings.items():
            if not isinstance(name, str) or name not in fields:
                shown = repr(name) if len(repr(name)) < 40 else repr(name)[:40] + "..."
                raise UnknownSettingError("rules.unknown_setting", name=shown,
                                          known=", ".join(sorted(fields)))
            clean[name] = _coerce(name, value, getattr(defaults, name))
        rules = cls(**clean)
        if rules.min_bid > rules.max_bid:
            raise UnknownSettingError("rules.min_over_max", places=("setting 'min_bid'",),
                                      setting="min_bid", low=rules.min_bid,
                                      high=rules.max_bid)
        return rules

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _coerce(name: str, value: Any, default: Any) -> Any:
    """Accept a value of the default's type, or its text form (``--set target=1500``)."""
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "yes", "1", "on"):
            return True
        if isinstance(value, str) and value.lower() in ("false", "no", "0", "off"):
            return False
        from scorer.validate import _short

        raise UnknownSettingError("rules.not_bool", places=(f"setting {name!r}",),
                                  setting=name, value=_short(value))
    if isinstance(default, int):
        from scorer.validate import InvalidInputError, whole_number

        low, high, step = RANGES.get(name, (0, 10 ** 6, 1))
        try:
            out = whole_number(value, f"setting {name!r}", low, high)
        except InvalidInputError as exc:
            error = UnknownSettingError.wrap(exc)
            error.values["setting"] = name
            raise error from None
        if out % step:
            raise UnknownSettingError("rules.not_multiple", places=(f"setting {name!r}",),
                                      setting=name, value=out, step=step)
        return out
    if not isinstance(value, str) or value not in CHOICES.get(name, (value,)):
        from scorer.validate import _short

        raise UnknownSettingError("rules.not_choice", places=(f"setting {name!r}",),
                                  setting=name, value=_short(value),
                                  choices=", ".join(CHOICES.get(name, ())))
    return value


PRESETS: Final[dict[str, dict[str, Any]]] = {
    # Règles officielles de la belote contrée, FFB, 27.01.2016.
    "ffb": {},
    # The same with Sans Atout / Tout Atout bids (FFB 11).
    "ffb-sata": {"sans_tout_atout": True},
    # FFB 10.2, second method: points faits + points demandés.
    "ffb-pfd": {"scoring": "points-faits-demandes"},
    # FFB 10.2 note 1 (tournaments): a contre adds 160 rather than 320 in pfd.
    "ffb-pfd-note1": {"scoring": "points-faits-demandes", "contre_160": True},
    # The English rendering's departures (10.1.1: more points than the defence too).
    "ffb-en": {"made_needs_more": True},
    # Classic belote with a turned card (summary of the official rules): a player who
    # must trump and cannot go higher plays a lower trump; 162 to the defence on a fall.
    "classic": {"game": "classic", "belote": "auto", "rounding": False,
                "must_undertrump": True},
    # Classic belote, the other text: at least 82 points, a fall leaves the defence
    # its own points; play clockwise with --set clockwise=true.
    "classic-82": {"game": "classic", "belote": "auto", "rounding": False,
                   "must_undertrump": True, "classic_taker_wins": "half", "dedans_points": 0},
    # The club's summary of contrée: the takers score their contract, 160 on a fall,
    # 320/640 on a contre, unannounced capot 250, a renonce gives the contract to the
    # others, games to 2000.
    "club": {"scoring": "contract", "unannounced_capot": 250, "target": 2000,
             "renonce_penalty": "contract"},
    # The same club's variants: contre x2 / x4 the contract, the defence scores nothing
    # on a made contract, must undertrump, games to 1500.
    "club-variant": {"scoring": "contract-only", "contre_scoring": "multiply",
                     "unannounced_capot": 250, "target": 1500, "must_undertrump": True,
                     "renonce_penalty": "contract"},
}
