"""What a notice says, in the reader's language: the three notices' titles and bodies, and the
e-mail's few words, from the page's strings (``static/i18n/<lang>.json``, keys ``notify_*``)."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gotown.texts import LANGUAGES

STRINGS = Path(__file__).resolve().parents[1] / "static" / "i18n"


class Kind(enum.StrEnum):
    YOUR_TURN = "your-turn"
    REMINDER = "reminder"
    """A quarter of the seat's time for its turn is left."""
    ENDED = "ended"


@dataclass(frozen=True)
class Notice:
    """One notice to one seat. The caller fills in what its kind names."""

    kind: Kind
    table: str
    """The table's name, as its players know it."""
    url: str
    """The table's page for this seat (its private link)."""
    tag: str
    """One per table and seat: a newer notice with the same tag replaces an older one."""
    player: str = ""
    """YOUR_TURN: the player whose move it was."""
    time_left: float = 0.0
    """REMINDER: seconds left to play."""
    winner: str | None = None
    """ENDED: the winner's name; None when the game ended with no winner."""
    you_won: bool = False
    """ENDED: the reader is the winner."""


def language(lang: str) -> str:
    """One of the table's languages for a reader's ``lang`` (``fr-CH`` is ``fr``), English
    for an unknown one."""
    base = lang.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else "en"


@cache
def strings(lang: str) -> dict[str, str]:
    """The ``notify_*`` strings of one of :data:`LANGUAGES`."""
    data: dict[str, str] = json.loads((STRINGS / f"{lang}.json").read_text("utf-8"))
    return {key: text for key, text in data.items() if key.startswith("notify_")}


def word(lang: str, key: str, **values: object) -> str:
    """The string ``notify_<key>`` in ``lang`` (English when unknown), its placeholders
    filled in."""
    return strings(language(lang))[f"notify_{key}"].format(**values)


def format_time_left(seconds: float, lang: str) -> str:
    """``2 d 5 h``, ``3 h 20 min``, ``45 min``: at most two units, rounded down, never 0."""
    minutes = max(1, int(seconds // 60))
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    parts = [(days, "days"), (hours, "hours"), (minutes, "minutes")]
    while parts[0][0] == 0:
        parts.pop(0)
    return " ".join(word(lang, key, n=n) for n, key in parts[:2] if n)


def notice_text(notice: Notice, lang: str) -> tuple[str, str]:
    """The notice's (title, body) in ``lang``, English when it is not one of ours."""
    table = notice.table
    if notice.kind is Kind.YOUR_TURN:
        return (
            word(lang, "turn_title", table=table),
            word(lang, "turn_body", table=table, player=notice.player),
        )
    if notice.kind is Kind.REMINDER:
        left = format_time_left(notice.time_left, lang)
        return (
            word(lang, "reminder_title", table=table),
            word(lang, "reminder_body", table=table, time_left=left),
        )
    title = word(lang, "ended_title", table=table)
    if notice.you_won:
        return title, word(lang, "ended_won_body", table=table)
    if notice.winner is None:
        return title, word(lang, "ended_draw_body", table=table)
    return title, word(lang, "ended_body", table=table, winner=notice.winner)
