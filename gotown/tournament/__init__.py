"""Bots measured against each other: tournaments over all cores with win rates, ratings and
think times (:mod:`.tournament`), their results file that lets a long one be played in parts
(:mod:`.results`), the table and plot people read (:mod:`.standings`), and the two-player duels
of the benchmark scripts (:mod:`.duel`).

:mod:`.runner` (tasks over all cores or a Ray cluster) lives here because the tournament came
first; the design study (:mod:`gotown.study`) uses it, with the tournament's dealing and
seating, and this package imports nothing of the study. :mod:`.bench` (``gotown bench``, the
engine's speed at random play) is here because it, too, measures play rather than the rules'
design, and its users are the measuring tools (``gotown bench``, ``benchmarks/``), never the
study.
"""
