"""How fast the learning interfaces play, beside the same interface around peers' card games.

In one run, each loop plays uniformly random legal actions for ``--seconds`` and counts steps:

- the engine alone (``legal_actions`` and ``apply_unchecked``), the floor under every interface;
- our PettingZoo AEC environment (``agent_iter``, ``last``, ``step``, the action mask read from
  the observation) beside PettingZoo's ``leduc_holdem_v4``, its fastest classic card game, in
  the same loop;
- our Gymnasium environment (opponents ``random``; a step is one ``env.step`` of the learner,
  the opponents' moves inside it, and the table also counts every seat's actions) beside
  RLCard's UNO ``env.step`` (each step one action of some seat);
- our OpenSpiel game in a Python loop (``legal_actions``, ``apply_action``, chance sampled
  from ``chance_outcomes``) beside OpenSpiel's pure-Python ``python_liars_poker``.

Two players throughout. Each pair (ours, the peer) plays in ``--rounds`` turns, one after the
other, and the time counted is the process's CPU time by default (``--clock cpu``): on a shared
machine the wall clock counts the other processes' time too, and their load changes within a
run. Compare the ratios of one run.

    .venv/bin/python benchmarks/rl_speed.py --seconds 10

The peers need ``pip install -e '.[rl,bench]'`` (``pygame-ce`` among them: PettingZoo's classic
games import it); a peer that is missing is reported as such.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import click
from rich.console import Console
from rich.table import Table

#: A loop: given seconds, returns (steps, seconds taken, engine actions or None).
Loop = Callable[[float], tuple[int, float, int | None]]

#: The clock the loops read (``--clock``): the process's CPU time, or the wall clock.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def engine_loop(seconds: float) -> tuple[int, float, int | None]:
    from gotown.engine import Game

    rng = random.Random(0)
    steps = games = 0
    start = clock()
    while clock() - start < seconds:
        game = Game.new(2, games, {"turn_limit": 500})
        while not game.is_over:
            legal = game.legal_actions()
            game.apply_unchecked(legal[rng.randrange(len(legal))])
            steps += 1
        games += 1
    return steps, clock() - start, None


def aec_loop(make_env: Callable[[], object]) -> Loop:
    def loop(seconds: float) -> tuple[int, float, int | None]:
        env = make_env()
        rng = random.Random(0)
        steps = episodes = 0
        start = clock()
        while clock() - start < seconds:
            env.reset(seed=None if episodes else 0)  # type: ignore[attr-defined]
            for _agent in env.agent_iter():  # type: ignore[attr-defined]
                observation, _, termination, truncation, _ = env.last()  # type: ignore[attr-defined]
                if termination or truncation:
                    env.step(None)  # type: ignore[attr-defined]
                    continue
                legal = observation["action_mask"].nonzero()[0].tolist()
                env.step(legal[rng.randrange(len(legal))])  # type: ignore[attr-defined]
                steps += 1
            episodes += 1
        return steps, clock() - start, None

    return loop


def gotown_aec(seconds: float) -> tuple[int, float, int | None]:
    from gotown.rl.pettingzoo import env

    return aec_loop(lambda: env(players=2))(seconds)


def leduc_aec(seconds: float) -> tuple[int, float, int | None]:
    from pettingzoo.classic import leduc_holdem_v4

    return aec_loop(leduc_holdem_v4.env)(seconds)


def gotown_gymnasium(seconds: float) -> tuple[int, float, int | None]:
    import gymnasium

    import gotown.rl  # noqa: F401  (registers GoTown-v0)

    env = gymnasium.make("GoTown-v0", players=2, opponents=["random"]).unwrapped
    rng = random.Random(0)
    steps = actions = episodes = 0
    start = clock()
    while clock() - start < seconds:
        _, info = env.reset(seed=None if episodes else 0)  # seeded once, as RLCard's env
        before = env.game.version
        done = False
        while not done:
            legal = info["action_mask"].nonzero()[0].tolist()
            _, _, terminated, truncated, info = env.step(legal[rng.randrange(len(legal))])
            steps += 1
            done = terminated or truncated
        actions += env.game.version - before
        episodes += 1
    return steps, clock() - start, actions


def uno_env_step(seconds: float) -> tuple[int, float, int | None]:
    import rlcard

    env = rlcard.make("uno", config={"seed": 0})
    rng = random.Random(0)
    steps = 0
    start = clock()
    while clock() - start < seconds:
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _ = env.step(legal[rng.randrange(len(legal))])
            steps += 1
    return steps, clock() - start, steps


def openspiel_loop(name: str, params: dict[str, object]) -> Loop:
    def loop(seconds: float) -> tuple[int, float, int | None]:
        import pyspiel

        if name == "python_gotown":
            import gotown.rl.openspiel  # noqa: F401  (registers python_gotown)
        else:
            from open_spiel.python import games  # noqa: F401  (registers python_liars_poker)

        game = pyspiel.load_game(name, params)
        rng = random.Random(0)
        steps = 0
        start = clock()
        while clock() - start < seconds:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, weights = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, weights)[0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[rng.randrange(len(legal))])
                steps += 1
        return steps, clock() - start, None

    return loop


#: (interface, ours, peer name, peer): None for the engine, which has no peer here.
ROWS: list[tuple[str, Loop, str | None, Loop | None]] = [
    ("engine, random play", engine_loop, None, None),
    ("PettingZoo AEC", gotown_aec, "leduc_holdem_v4", leduc_aec),
    ("Gymnasium env.step", gotown_gymnasium, "RLCard UNO env.step", uno_env_step),
    (
        "OpenSpiel, Python loop",
        openspiel_loop("python_gotown", {"players": 2}),
        "python_liars_poker",
        openspiel_loop("python_liars_poker", {}),
    ),
]


Tally = list[float]  # steps, seconds, actions (-1: not counted)


def measure(loop: Loop, seconds: float, tally: Tally) -> str | None:
    """Play ``loop`` for ``seconds`` and add what it did to ``tally``; or say why it cannot."""
    try:
        steps, taken, actions = loop(seconds)
    except ImportError as error:
        return f"not installed ({error.name})"
    tally[0] += steps
    tally[1] += taken
    tally[2] = -1 if actions is None else tally[2] + actions
    return None


def rate(tally: Tally, problem: str | None) -> tuple[float, float | None] | str:
    """Steps per second (and engine actions per second, if counted), or why not."""
    if problem is not None:
        return problem
    steps, taken, actions = tally
    return steps / taken, None if actions < 0 else actions / taken


@click.command()
@click.option("--seconds", type=click.FloatRange(min=0.1), default=3.0, show_default=True,
              help="Time each loop plays, in all its rounds.")  # fmt: skip
@click.option("--rounds", type=click.IntRange(min=1), default=3, show_default=True,
              help="Turns each pair takes, ours then the peer's.")  # fmt: skip
@click.option("--clock", "clock_name", type=click.Choice(sorted(CLOCKS)), default="cpu",
              show_default=True, help="CPU time of this process, or the wall clock.")  # fmt: skip
def main(seconds: float, rounds: int, clock_name: str) -> None:
    """Print steps/s of random legal play through each interface, ours beside its peer's."""
    global clock
    clock = CLOCKS[clock_name]
    title = f"Random legal play, 2 players, {seconds:g} s a loop in {rounds} rounds"
    table = Table(title=f"{title} (steps per {clock_name} second)")
    for column in ("interface", "GoTown", "peer", "peer steps/s", "GoTown / peer"):
        table.add_column(column, justify="left" if column in ("interface", "peer") else "right")
    for interface, ours, peer_name, peer in ROWS:
        tallies: list[Tally] = [[0, 0.0, 0], [0, 0.0, 0]]
        problems: list[str | None] = [None, None]
        for _ in range(rounds):
            for side, loop in enumerate((ours, peer)):
                if loop is not None and problems[side] is None:
                    problems[side] = measure(loop, seconds / rounds, tallies[side])
        mine = rate(tallies[0], problems[0])
        cells = [interface, _rate(mine)]
        if peer is None or peer_name is None:
            cells += ["", "", ""]
        else:
            theirs = rate(tallies[1], problems[1])
            ratio = (
                f"{mine[0] / theirs[0]:.2f}"
                if isinstance(mine, tuple) and isinstance(theirs, tuple)
                else ""
            )
            cells += [peer_name, _rate(theirs), ratio]
        table.add_row(*cells)
    Console(width=120).print(table)


def _rate(result: tuple[float, float | None] | str) -> str:
    if isinstance(result, str):
        return result
    steps, actions = result
    text = f"{steps:,.0f}"
    if actions is not None and abs(actions - steps) > 1:
        text += f" ({actions:,.0f} actions)"
    return text


if __name__ == "__main__":
    main()
