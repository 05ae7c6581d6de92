"""The design study: simulations that answer questions about the rules (:mod:`.simulation`,
one game observed in :mod:`.games`, paired deck changes in :mod:`.decks`), what they say
(:mod:`.findings`) and the report that shows it (:mod:`.report`, :mod:`.plots`, ``templates/``):
``gotown analyze``.

Its games are dealt, seated and run over the cores exactly as in a tournament, so it imports
:mod:`gotown.tournament` (never the reverse). :mod:`.review_plot`, the graph of ``gotown
review``, is here because, like the study, it reads played games to say what decided them, and
the command sits beside ``gotown analyze`` (:mod:`gotown.cli.study`); it imports nothing of the
tournament.

>>> from gotown.study import simulate
>>> games = simulate(players=2, bots=["random"], games=1000, seed=1)  # doctest: +SKIP
"""

from .findings import findings
from .simulation import Configuration, Tables, run, simulate

__all__ = ["Configuration", "Tables", "findings", "run", "simulate"]
