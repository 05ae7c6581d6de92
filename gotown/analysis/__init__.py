"""Tools that study games: tournaments between bots (:mod:`gotown.analysis.tournament`)."""
