"""Texts that more than one front end shows, as data: the rules pages in the eight languages of
the web table (written for this project from RULES.md, with every card by its name in the
rulebook of that language). The web table serves them at ``/rules/LANG``; the terminal shows
them as text. Imports nothing of the project."""

from __future__ import annotations

from importlib.resources import files

#: The languages of the web table, the rules pages and the terminal's rules screen.
LANGUAGES = ("en", "fr", "es", "it", "de", "nl", "cs", "pl")


def rules_html(lang: str) -> str:
    """The rules page in ``lang`` (one of :data:`LANGUAGES`), as HTML."""
    if lang not in LANGUAGES:
        raise ValueError(f"no rules page in {lang!r}: {', '.join(LANGUAGES)}")
    return (files(__name__) / "rules" / f"{lang}.html").read_text(encoding="utf-8")
