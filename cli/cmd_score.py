"""``belote-table score FILE...|-``: score hand records (docs/design.md) and print
one JSON result per line, in the order of the files.

Every file is read and scored before anything is printed, so that a malformed
record leaves stdout empty: the message goes to stderr with the file, the place
and the reason, and the exit status is 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from companion.i18n import N_, _, located, os_reason, reason
from scorer.record import InvalidRecordError, score_record
from scorer.rules import PRESETS, Rules, UnknownSettingError
from scorer.validate import InvalidInputError, read_json

# Why a record's score is not given (scorer.record's ``score_reason`` codes), said
# beside the code in the result's ``message``.
SCORE_REASONS = {
    "deal.score_depends": N_("the score depends on cards not read: name them to score the "
                             "hand"),
    "deal.capped": N_("too many ways to fill in the cards not read: name some of them to "
                      "score the hand"),
    "deal.no_legal_completion": N_("no cards fit those not read without a renonce: name "
                                   "them to score the hand"),
}
# A hand record is a few kilobytes; a file much larger is not one.
MAX_FILE_BYTES = 4 * 1024 * 1024


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="belote-table score",
        description=_("Score hand records (JSON, docs/design.md format); '-' reads stdin."))
    p.add_argument("files", nargs="+", metavar=_("FILE"), help=_("hand record files, or -"))
    p.add_argument("--rules", metavar=_("PRESET"), choices=list(PRESETS),
                   help=_("rule preset instead of the record's (%(presets)s)")
                   % {"presets": ", ".join(PRESETS)})
    p.add_argument("--set", dest="settings", action="append", default=[],
                   metavar=_("KEY=VALUE"), help=_("override one setting (repeatable)"))
    return p


def _overrides(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UnknownSettingError(_("--set %(pair)r: expected KEY=VALUE") % {"pair": pair})
        out[key.strip()] = value.strip()
    # Names and values are checked here, once, rather than per record.
    Rules.from_settings(out)
    return out


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        overrides = _overrides(args.settings)
    except UnknownSettingError as exc:
        print(located("belote-table score", reason(exc)), file=sys.stderr)
        return 2
    lines: list[str] = []
    for name in args.files:
        label = "<stdin>" if name == "-" else name
        try:
            if name == "-":
                data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
            else:
                with open(name, "rb") as f:
                    data = f.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            print(_("%(file)s: cannot read: %(reason)s") % {"file": label,
                                                           "reason": os_reason(exc)},
                  file=sys.stderr)
            return 2
        if len(data) > MAX_FILE_BYTES:
            print(_("%(file)s: larger than %(mb)s MB: not a hand record")
                  % {"file": label, "mb": MAX_FILE_BYTES // (1024 * 1024)}, file=sys.stderr)
            return 2
        try:
            # UTF-8, or UTF-16/32 with their byte order; depth and numbers bounded.
            record = read_json(data, "JSON")
        except InvalidInputError as exc:
            print(located(label, reason(exc.reason)), file=sys.stderr)
            return 2
        try:
            result = score_record(record, args.rules, overrides)
        except InvalidRecordError as exc:
            print(located(label, reason(exc)), file=sys.stderr)
            return 2
        why = result.get("score_reason")
        if why is not None and why["code"] in SCORE_REASONS:
            why["message"] = _(SCORE_REASONS[why["code"]])
        lines.append(json.dumps(result, ensure_ascii=False))
    for line in lines:
        print(line)
    return 0
