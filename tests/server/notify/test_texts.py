"""What a notice says (:mod:`gotown.server.notify.texts`), in the eight languages."""

from __future__ import annotations

import re

import pytest

from gotown.server.notify.texts import Kind, Notice, format_time_left, language, notice_text
from gotown.texts import LANGUAGES

TURN = Notice(Kind.YOUR_TURN, "Chez Ada", "https://t.example/g/1", "g1-s0", player="Bob")


def test_each_notice_in_english() -> None:
    assert notice_text(TURN, "en") == ("Chez Ada: your turn", "Bob has played. It is your turn.")
    reminder = Notice(Kind.REMINDER, "Chez Ada", "u", "t", time_left=2 * 86400 + 3 * 3600 + 59)
    assert notice_text(reminder, "en") == (
        "Chez Ada: your turn is waiting",
        "2 d 3 h left to play your turn.",
    )
    ended = Notice(Kind.ENDED, "Chez Ada", "u", "t", winner="Bob")
    assert notice_text(ended, "en") == ("Chez Ada: game over", "Bob won.")
    assert notice_text(Notice(Kind.ENDED, "T", "u", "t", winner="Ada", you_won=True), "en")[1] == (
        "You won!"
    )
    assert notice_text(Notice(Kind.ENDED, "T", "u", "t"), "en")[1] == (
        "The game ended with no winner."
    )


def test_the_readers_language_and_english_for_an_unknown_one() -> None:
    assert notice_text(TURN, "de") == (
        "Chez Ada: Du bist dran",
        "Bob hat gespielt. Jetzt bist du am Zug.",
    )
    assert notice_text(TURN, "fr-CH")[0] == "Chez Ada : à vous de jouer"
    assert notice_text(TURN, "pt-BR") == notice_text(TURN, "en")
    assert notice_text(TURN, "") == notice_text(TURN, "en")
    assert [language(x) for x in ("PL", "nl_BE", "zz", "cs-CZ")] == ["pl", "nl", "en", "cs"]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_notice_is_filled_in_every_language(lang: str) -> None:
    notices = [
        TURN,
        Notice(Kind.REMINDER, "Chez Ada", "u", "t", time_left=5400),
        Notice(Kind.ENDED, "Chez Ada", "u", "t", winner="Bob"),
        Notice(Kind.ENDED, "Chez Ada", "u", "t", winner="Ada", you_won=True),
        Notice(Kind.ENDED, "Chez Ada", "u", "t"),
    ]
    texts = [notice_text(notice, lang) for notice in notices]
    for title, body in texts:
        assert "Chez Ada" in title and not re.search(r"[{}]", title + body), (lang, title, body)
    assert "Bob" in texts[0][1] and "Bob" in texts[2][1]
    assert re.search(r"1 \w+ 30 \w+", texts[1][1]), texts[1][1]
    assert len({body for _, body in texts}) == len(texts)


def test_the_time_left_in_at_most_two_units_never_zero() -> None:
    assert format_time_left(3 * 86400 + 5 * 3600 + 7 * 60, "en") == "3 d 5 h"
    assert format_time_left(86400 + 59, "en") == "1 d"
    assert format_time_left(3600 * 5 + 60 * 20 + 30, "fr") == "5 h 20 min"
    assert format_time_left(45 * 60, "pl") == "45 min"
    assert format_time_left(0, "en") == "1 min"
    assert format_time_left(2 * 86400, "de") == "2 Tg"
