"""Texts that more than one front end shows, as data: the rules in the eight languages of the
web table (written for this project from RULES.md, with every card by its name in the rulebook
of that language), each an HTML article: its headings, paragraphs, lists and worked examples.
The web table serves each in a page of its own at ``/rules/LANG``; the terminal shows it as
text. Imports nothing of the project."""

from __future__ import annotations

from importlib.resources import files

#: The languages of the web table, the rules pages and the terminal's rules screen.
LANGUAGES = ("en", "fr", "es", "it", "de", "nl", "cs", "pl")


def rules_html(lang: str) -> str:
    """The rules in ``lang`` (one of :data:`LANGUAGES`) as an HTML article: the inside of a
    page's ``<main>``, its title the first ``<h1>``."""
    if lang not in LANGUAGES:
        raise ValueError(f"no rules page in {lang!r}: {', '.join(LANGUAGES)}")
    return (files(__name__) / "rules" / f"{lang}.html").read_text(encoding="utf-8")
