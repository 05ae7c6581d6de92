"""OpenSpiel's own ISMCTS against our ``hard``, two players, seats rotated.

OpenSpiel's ``ISMCTSBot`` (its implementation, as it ships: a random-rollout evaluator, one
rollout a leaf, UCT constant ``--uct-c``) plays ``python_gotown`` (:mod:`gotown.rl.openspiel`)
with as many simulations a decision as ``hard`` has iterations
(:data:`gotown.bots.HARD_ITERATIONS`), against ``hard`` itself; game ``i`` is dealt from seed
``i`` and OpenSpiel's bot sits in seat ``i % 2``. It prints ``hard``'s win rate with its 95%
(Wilson) interval, games without a winner (turn limit), and each side's median and 95th
percentile time a decision.

    .venv/bin/python benchmarks/openspiel_vs_hard.py --games 500 --workers 2 \
        --results openspiel-vs-hard.jsonl

Each game records the engine build it ran on (pure Python or compiled by mypyc,
``PYTHONPATH=build/compiled-engine``, :mod:`gotown.engine._build`): the rules and so the
results are the same, the times are not, and they are printed per build. The games are not
replayed move for move from their seed: OpenSpiel's ``ISMCTSBot`` deals its determinizations
with a ``pyspiel.UniformProbabilitySampler`` of its own, not seeded from its ``random_state``,
so a game's index fixes its deal and seats only (``hard`` is deterministic from its seed).

``--iterations`` changes both sides' budget at once (a quick look: ``--iterations 100``).
With ``--results``, each game's result is appended to that file (a JSON line) as it ends, and a
rerun plays only the games the file lacks: a long run can stop and go on. A file holds the
games of one setting (iterations, UCT constant, turn limit); another setting is refused.
"""

from __future__ import annotations

import json
import statistics
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import click
from rich.progress import Progress


@dataclass(frozen=True)
class Result:
    winner: str | None  # "hard", "openspiel" or None
    hard_times: tuple[float, ...]
    openspiel_times: tuple[float, ...]
    build: str = "pure"  # the engine the game ran on (``gotown.engine.COMPILED``): times differ


def play(index: int, iterations: int, uct_c: float, turn_limit: int) -> Result:
    """Game ``index``: dealt from seed ``index``, OpenSpiel's bot in seat ``index % 2``."""
    import time

    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from gotown.bots import bot_from_spec, hashed_seed
    from gotown.engine import COMPILED
    from gotown.rl import engine_to_action
    from gotown.rl.openspiel import SEED_BYTES

    game = pyspiel.load_game("python_gotown", {"players": 2, "turn_limit": turn_limit})
    rng = np.random.RandomState(index)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    theirs = ismcts.ISMCTSBot(game, evaluator, uct_c, max_simulations=iterations, random_state=rng)
    ours = bot_from_spec(f"hard:iterations={iterations}", hashed_seed(f"vs-openspiel {index}"))
    their_seat = index % 2
    state = game.new_initial_state()
    for byte in index.to_bytes(SEED_BYTES, "big"):
        state.apply_action(byte)
    times: dict[int, list[float]] = {0: [], 1: []}
    while not state.is_terminal():
        seat = state.current_player()
        started = time.perf_counter()
        if seat == their_seat:
            action = theirs.step(state)
        else:
            engine = state.engine
            choice = ours.choose(engine.view(seat), engine.legal_actions())
            action = engine_to_action(choice, 2, engine.options, seat=seat)
        times[seat].append(time.perf_counter() - started)
        state.apply_action(action)
    outcome = state.engine.outcome()
    winner = None
    if outcome is not None and outcome.winner is not None:
        winner = "openspiel" if outcome.winner == their_seat else "hard"
    build = "compiled" if COMPILED else "pure"
    return Result(winner, tuple(times[1 - their_seat]), tuple(times[their_seat]), build)


def _times(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {statistics.median(ordered) * 1000:.0f} ms, 95th percentile {p95 * 1000:.0f} ms"


#: What a results file records of its setting: a rerun must match it.
SETTING = ("iterations", "uct_c", "turn_limit")
WINNERS = ("hard", "openspiel", None)
BUILDS = ("pure", "compiled")


def load_results(path: Path, setting: dict[str, Any]) -> dict[int, Result]:
    """The games already in ``path`` by index (none if it does not exist). A last line cut short
    (a run stopped while writing) is dropped from the file; any other line that is not a game
    of ``setting`` raises click.ClickException naming the line."""
    if not path.exists():
        return {}
    text = path.read_text()
    lines = text.split("\n")
    if lines[-1]:  # no newline at the end: the last write was cut short
        path.write_text("".join(line + "\n" for line in lines[:-1]))
    done: dict[int, Result] = {}
    for number, line in enumerate(lines[:-1], start=1):
        try:
            data = json.loads(line)
            index = data["game"]
            result = Result(
                data["winner"],
                tuple(data["hard_times"]),
                tuple(data["openspiel_times"]),
                data.get("build", "pure"),
            )
            valid = (
                type(index) is int
                and index >= 0
                and result.winner in WINNERS
                and result.build in BUILDS
            )
        except (ValueError, KeyError, TypeError):
            valid = False
        if not valid:
            raise click.ClickException(f"{path} line {number} is not a game's result: {line!r}")
        theirs = {name: data.get(name) for name in SETTING}
        if theirs != setting:
            raise click.ClickException(
                f"{path} holds games of another setting ({theirs}, line {number}), not "
                f"{setting}: name another file"
            )
        done[index] = result
    return done


def _record(index: int, setting: dict[str, Any], result: Result) -> str:
    return json.dumps({"game": index, **setting, **asdict(result)}) + "\n"


@click.command()
@click.option("--games", type=click.IntRange(min=1), default=500, show_default=True)
@click.option("--iterations", type=click.IntRange(min=1), default=None,
              help="Both sides' budget (default: hard's iterations).")  # fmt: skip
@click.option("--uct-c", type=float, default=2.0, show_default=True,
              help="ISMCTSBot's exploration constant.")  # fmt: skip
@click.option("--turn-limit", type=click.IntRange(min=1), default=300, show_default=True)
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--results", "results_path", type=click.Path(dir_okay=False, path_type=Path),
              default=None,
              help="Append each game here; a rerun plays only the missing ones.")  # fmt: skip
def main(
    games: int,
    iterations: int | None,
    uct_c: float,
    turn_limit: int,
    workers: int,
    results_path: Path | None,
) -> None:
    """Play OpenSpiel's ISMCTSBot against hard and print the result."""
    from gotown.bots import HARD_ITERATIONS
    from gotown.tournament.tournament import wilson

    budget = iterations or HARD_ITERATIONS
    setting = {"iterations": budget, "uct_c": uct_c, "turn_limit": turn_limit}
    done = load_results(results_path, setting) if results_path else {}
    missing = [i for i in range(games) if i not in done]
    if done:
        click.echo(f"{games - len(missing)} of {games} games already in {results_path}")
    with ProcessPoolExecutor(workers) as pool, Progress() as progress:
        task = progress.add_task("games", total=games, completed=games - len(missing))
        futures = {pool.submit(play, i, budget, uct_c, turn_limit): i for i in missing}
        for future in as_completed(futures):
            index = futures[future]
            done[index] = future.result()
            if results_path:
                with results_path.open("a") as handle:
                    handle.write(_record(index, setting, done[index]))
            progress.advance(task)
    results = [done[i] for i in range(games)]
    wins = sum(r.winner == "hard" for r in results)
    losses = sum(r.winner == "openspiel" for r in results)
    low, high = wilson(wins, len(results))
    click.echo(
        f"{len(results)} games, {budget} iterations a decision each side: hard won {wins} "
        f"({wins / len(results):.1%}, 95% {low:.1%} to {high:.1%}), OpenSpiel's ISMCTS won "
        f"{losses}, {len(results) - wins - losses} without a winner"
    )
    for build in BUILDS:  # the results do not depend on the build, the times do
        games_of = [r for r in results if r.build == build]
        if games_of:
            hard = _times([t for r in games_of for t in r.hard_times])
            theirs = _times([t for r in games_of for t in r.openspiel_times])
            click.echo(
                f"{len(games_of)} games on the {build} engine: hard {hard}, "
                f"OpenSpiel ISMCTS {theirs} a decision"
            )


if __name__ == "__main__":
    main()
