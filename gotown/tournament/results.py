"""A tournament's results file: every game as it finishes, with a fingerprint of the code that
played it, so that a tournament stopped part-way can go on (``gotown tournament --resume``) and
never mixes two versions of a bot (:mod:`.tournament` plays the games)."""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TypeGuard

from . import tournament
from .tournament import ENDINGS, GameResult, TournamentResult, rule_options, seatings

#: Bumped when what a game's result means or how it is written changes.
RESULTS_FORMAT = 5
#: What each format changed (said when a file of an older one is refused).
FORMAT_CHANGES = {
    3: "seat orders rotate over entries in blocks, bot seeds are one-way hashes",
    4: "a deadlocked game ends at once and each game says why it ended",
    5: "the rules end a stalemate when its turn ends (R20b), the game's ending says stalemate",
}


@functools.cache
def code_fingerprint() -> str:
    """A digest of the code that decides a game's result: the rules, the bots, the tournament
    (which decides the seat orders and the seeds) and this module (how results are written).

    Results stored under one fingerprint are only ever continued under the same one, so a
    tournament played in parts never mixes two versions of a bot. It is read once per process
    (the code that process runs): a source file edited while a long tournament plays does not
    relabel the games that the loaded code is still playing. Only the code counts, not its
    comments and docstrings (:func:`code_digest`): mending the text of a module leaves a
    half-played tournament free to go on.
    """
    import gotown.bots
    import gotown.engine

    digest = hashlib.sha256(f"results format {RESULTS_FORMAT}".encode())
    for package in (gotown.engine, gotown.bots):
        assert package.__file__ is not None
        for path in sorted(Path(package.__file__).parent.glob("*.py")):
            digest.update(f"{package.__name__}/{path.name}\0".encode())
            digest.update(code_digest(path.read_bytes()))
    for module in (tournament.__name__, __name__):  # the seats and seeds; the file's format
        digest.update(f"{module}\0".encode())
    digest.update(code_digest(Path(tournament.__file__).read_bytes()))
    digest.update(code_digest(Path(__file__).read_bytes()))
    return digest.hexdigest()[:16]


def code_digest(source: bytes) -> bytes:
    """What a module's source does, without its comments and docstrings: its syntax tree with
    every docstring left out (the parser drops comments; names and constants stay), written
    out the same way by every Python version (:func:`_shape`)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            value = first.value if isinstance(first, ast.Expr) else None
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                node.body = node.body[1:] or [ast.Pass()]
    return hashlib.sha256(repr(_shape(tree)).encode()).digest()


def _shape(node: object) -> object:
    """A syntax tree as nested tuples of node names and fields, leaving out empty ones:
    ``ast.dump`` writes the same tree differently from one Python version to the next (3.12
    adds empty ``type_params``, 3.13 leaves empty fields out), and a fingerprint must not move
    with the interpreter."""
    if isinstance(node, ast.AST):
        fields = [(name, _shape(getattr(node, name, None))) for name in node._fields]
        return (
            type(node).__name__,
            *[(name, v) for name, v in fields if v is not None and v != []],
        )
    if isinstance(node, list):
        return [_shape(item) for item in node]
    return node


def _result_json(result: GameResult) -> dict[str, Any]:
    data = asdict(result)
    # think times in ms to 0.1 µs: a rule bot's decision takes a few µs, and a resumed
    # tournament must report (and plot) the times it would have without the pause
    data["times"] = [[round(1000.0 * t, 4) for t in ts] for ts in result.times]
    return data


def results_json(
    specs: Sequence[str],
    seed: int,
    turn_limit: int,
    results: Sequence[GameResult],
    summary: TournamentResult | None = None,
    seconds: float = 0.0,
    options: Mapping[str, Any] | None = None,
) -> str:
    """The JSON text of a tournament: the summary (when it is finished) and every game.

    Each game takes one line, so that a file of a thousand games stays readable and small.
    Without a summary it is a checkpoint (``"complete": false``, ``seconds`` of play so far)
    that :func:`load_results` can continue from.
    """
    head: dict[str, Any] = summary.summary_json() if summary else {"seconds": seconds}
    head.update(
        format=RESULTS_FORMAT,
        lineup=list(specs),
        seed=seed,
        turn_limit=turn_limit,
        options=rule_options(options),
        fingerprint=code_fingerprint(),
        complete=summary is not None,
    )
    lines = ",\n".join(
        "  " + json.dumps(_result_json(r), separators=(",", ":"))
        for r in sorted(results, key=lambda r: r.index)
    )
    text = json.dumps(head, indent=1)
    return f'{text[:-2]},\n "results": [\n{lines}\n ]\n}}\n'


def load_results(
    data: Any,
    specs: Sequence[str],
    seed: int,
    turn_limit: int,
    options: Mapping[str, Any] | None = None,
) -> tuple[list[GameResult], float]:
    """The games of a tournament written by :func:`results_json`, and the seconds they took,
    after checking that they were played with this line-up (of bot specs), seed, turn limit,
    rule options and code, and that every game is well formed: its index a new game number,
    its seats the order :func:`seatings` gives that game, its winner none or an entry, its
    ending one of :data:`ENDINGS` that agrees with the winner, one think time, decision count
    and list of times per entry.

    Raises ``ValueError`` naming the first thing that differs (and the game and field).
    """
    if not isinstance(data, dict) or not isinstance(data.get("results"), list):
        raise ValueError("not a tournament's results (no list of games)")
    written = data.get("format")
    if written != RESULTS_FORMAT:
        if written is None:  # the files before format 3 said none
            shown, since = f"older than {min(FORMAT_CHANGES)}", 0
        else:  # (repr: a format "4" written as text is not format 4)
            shown, since = repr(written), written if _is_count(written) else 0
        changes = (
            "; ".join(c for n, c in FORMAT_CHANGES.items() if n > since) or "the file's is newer"
        )
        raise ValueError(
            f"the file is in results format {shown}, this version plays format "
            f"{RESULTS_FORMAT} ({changes}): its games cannot be continued; start a new --json "
            "file"
        )
    expected = {
        "lineup": list(specs),
        "seed": seed,
        "turn_limit": turn_limit,
        "options": rule_options(options),
        "fingerprint": code_fingerprint(),
    }
    for key, value in expected.items():
        if data.get(key) != value:
            if key == "options":
                saved = data.get(key)
                with contextlib.suppress(ValueError, TypeError, AttributeError):
                    if isinstance(saved, dict) and rule_options(saved) == value:
                        continue  # the same options, written otherwise (a default spelled out)
                raise ValueError(_options_difference(saved, value))
            if key == "fingerprint":
                raise ValueError(
                    "the games were played by other code (the rules, the bots or the "
                    f"tournament changed): fingerprint {data.get(key)!r}, now {value!r}"
                )
            raise ValueError(f"the games were played with {key} {data.get(key)!r}, not {value!r}")
    seconds = data.get("seconds", 0.0)
    if not _is_seconds(seconds):
        raise ValueError(f"seconds {seconds!r} is not a number of seconds")
    orders = seatings(len(specs))
    results: list[GameResult] = []
    seen: set[int] = set()
    for position, raw in enumerate(data["results"]):
        result = _game_result(raw, position, len(specs))
        if result.index in seen:
            raise ValueError(f"game {result.index} appears twice")
        seen.add(result.index)
        if result.turns > turn_limit:
            raise ValueError(
                f"game {result.index} is malformed: {result.turns} turns, more than the turn "
                f"limit of {turn_limit}"
            )
        if result.seats != orders[result.index % len(orders)]:
            raise ValueError(
                f"game {result.index} does not belong to this tournament: seats "
                f"{list(result.seats)}, not {list(orders[result.index % len(orders)])}"
            )
        results.append(result)
    return results, float(seconds)


def _options_difference(saved: Any, now: dict[str, Any]) -> str:
    """Why the saved options are not ``now``, naming the first option that differs."""
    if not isinstance(saved, dict):
        return f"the file's options {saved!r} are not an object of R23 options"

    def shown(options: dict[str, Any], name: str) -> str:
        if name in options:
            return f"option {name}={json.dumps(options[name])}"
        return f"the default {name}"

    missing = object()
    name = next(n for n in sorted({*saved, *now}) if saved.get(n, missing) != now.get(n, missing))
    return f"the games were played with {shown(saved, name)}, not {shown(now, name)}"


def _is_count(value: object) -> TypeGuard[int]:
    """A whole number from 0 (JSON's ``true`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_seconds(value: object) -> TypeGuard[float]:
    """A finite number from 0 (a whole number too large for a float is not one)."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value)) and value >= 0
    except OverflowError:
        return False


def _game_result(raw: Any, position: int, players: int) -> GameResult:
    """One game of a results file, checked field by field (``ValueError`` naming both)."""
    if not isinstance(raw, dict):
        raise ValueError(f"game number {position + 1} in the file is not an object: {raw!r}")
    index = raw.get("index")
    if not _is_count(index):
        raise ValueError(f"game number {position + 1} in the file: index {index!r} is not a game")

    def field(name: str, is_valid: Callable[[Any], bool], what: str) -> Any:
        if name not in raw:
            raise ValueError(f"game {index} is malformed: it has no {name!r}")
        if not is_valid(raw[name]):
            shown = repr(raw[name])  # not the thousands of times a game may hold
            shown = shown if len(shown) <= 60 else f"{shown[:57]}..."
            raise ValueError(f"game {index} is malformed: {name} {shown} is not {what}")
        return raw[name]

    def per_entry(is_item: Callable[[Any], bool]) -> Callable[[Any], bool]:
        return lambda v: isinstance(v, list) and len(v) == players and all(map(is_item, v))

    entries = list(range(players))
    seats = field("seats", lambda v: per_entry(_is_count)(v) and sorted(v) == entries,
                  f"an order of the {players} entries")  # fmt: skip
    winner = field("winner", lambda v: v is None or (_is_count(v) and v < players),
                   f"null or an entry (0 to {players - 1})")  # fmt: skip
    won = winner is not None
    ending = field("ending", lambda v: v in ENDINGS and (v == "win") == won,
                   '"win" (the game has a winner)' if won else
                   '"stalemate" or "turn-limit" (the game has no winner)')  # fmt: skip
    turns = field("turns", _is_count, "a count")
    actions = field("actions", _is_count, "a count")
    think = field("think", per_entry(_is_seconds), f"{players} numbers of seconds, one per entry")
    decisions = field("decisions", per_entry(_is_count), f"{players} counts, one per entry")

    def is_times(value: Any) -> bool:
        is_list = per_entry(lambda ts: isinstance(ts, list) and all(map(_is_seconds, ts)))
        return is_list(value) and [len(ts) for ts in value] == decisions

    times = field("times", is_times, f"{players} lists of think times, one per entry and one "
                  "time per decision")  # fmt: skip
    return GameResult(
        index=index,
        seats=tuple(seats),
        winner=winner,
        ending=ending,
        turns=turns,
        actions=actions,
        think=tuple(float(t) for t in think),
        decisions=tuple(decisions),
        times=tuple(tuple(float(t) / 1000.0 for t in ts) for ts in times),
    )
