"""Tools that study games: tournaments between bots (:mod:`gotown.analysis.tournament`) and
simulations that answer design questions (:mod:`gotown.analysis.simulation`).

>>> from gotown.analysis import simulate
>>> games = simulate(players=2, bots=["random"], games=1000, seed=1)  # doctest: +SKIP
"""

from .findings import findings
from .simulation import Configuration, Tables, run, simulate

__all__ = ["Configuration", "Tables", "findings", "run", "simulate"]
