"""Tools that study games: tournaments between bots (:mod:`gotown.analysis.tournament`) and
simulations that answer design questions (:mod:`gotown.analysis.simulation`).

>>> from gotown.analysis import simulate
>>> games = simulate(players=2, bots=["random"], games=1000, seed=1)  # doctest: +SKIP
"""

from .simulation import Configuration, run, simulate

__all__ = ["Configuration", "run", "simulate"]
