"""The engine's two builds side by side: random play, and ``hard``'s decisions.

    .venv/bin/python benchmarks/engine_builds.py --seconds 5 --decisions 24 --rounds 2
    .venv/bin/python benchmarks/engine_builds.py --skip-random --iterations 1000,2500

The pure build is the working tree's sources (``GOTOWN_PURE=1``), the compiled one the copy
``scripts/build-engine`` makes (built first when it is out of date; ``GOTOWN_BUILD_DIR`` as
there), where the engine and the bots' search are compiled. Every measurement runs
in a fresh process per build, the builds alternated ``--rounds`` times, so that both meet the
same load; compare the ratios, the absolute figures depend on the machine and its load.

- random play: actions/s of uniformly random games (``gotown bench``'s loop), and the same loop
  on RLCard's UNO core in the same process when rlcard is installed (the ``bench`` extra);
- decisions: the CPU time of ``hard``'s decisions (the same moves in both builds) at the same
  positions, reached by seeded random play; with
  ``--iterations`` the compiled build is also timed at other iteration budgets, to see what
  budget it affords in the pure build's median time.
"""

from __future__ import annotations

import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import click

ROOT = Path(__file__).resolve().parents[1]
COMPILED_TREE = Path(os.environ.get("GOTOWN_BUILD_DIR") or ROOT / "build" / "compiled-engine")


def random_play(players: int, seconds: float) -> dict[str, Any]:
    """Random play with the engine this process loaded (and UNO's core, when installed)."""
    import gotown.engine
    from gotown.tournament.bench import play_random_games, rlcard_uno_actions_per_s

    ours = play_random_games(players, seconds).actions_per_s
    uno = rlcard_uno_actions_per_s(players, seconds)
    return {"compiled": gotown.engine.COMPILED, "actions_per_s": ours, "uno_actions_per_s": uno}


def decision_times(players: int, decisions: int, iterations: int | None) -> dict[str, Any]:
    """Seconds per ``hard`` decision at ``decisions`` positions reached by seeded random play."""
    import gotown.bots
    import gotown.engine
    from gotown.bots import bot_from_spec
    from gotown.engine import Game

    spec = "hard" if iterations is None else f"hard:iterations={iterations}"
    rng = random.Random(7)
    times: list[float] = []
    seed = 0
    while len(times) < decisions:
        game = Game.new(players=players, seed=seed)
        seed += 1
        for _ in range(rng.randrange(5, 40)):
            if game.is_over:
                break
            legal = game.legal_actions()
            game.apply_unchecked(legal[rng.randrange(len(legal))])
        if game.is_over or len(game.legal_actions()) < 2:
            continue
        bot = bot_from_spec(spec, seed)
        view = game.view(game.active)
        start = time.process_time()  # (CPU time: the share of a busy machine's core varies)
        bot.choose(view, game.legal_actions())
        times.append(time.process_time() - start)
    return {"compiled": gotown.engine.COMPILED and gotown.bots.COMPILED, "times": times}


def _child(build: str, task: list[str]) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k not in ("GOTOWN_PURE", "PYTHONPATH")}
    if build == "pure":
        env["GOTOWN_PURE"] = "1"
    else:
        env["PYTHONPATH"] = str(COMPILED_TREE)
    done = subprocess.run(
        ["nice", "-n", "5", sys.executable, __file__, "child", *task],
        env=env,
        cwd=ROOT / "benchmarks",  # (not the root: its sources would come first on sys.path)
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise click.ClickException(f"the {build} run failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    if result["compiled"] != (build == "compiled"):
        raise click.ClickException(f"the {build} run loaded the other build")
    return result


@click.group(invoke_without_command=True)
@click.option("--seconds", type=float, default=5.0, show_default=True,
              help="Seconds of random play per player count, build and round.")  # fmt: skip
@click.option("--decisions", type=int, default=24, show_default=True,
              help="hard's decisions timed per build and round (two players).")  # fmt: skip
@click.option("--rounds", type=int, default=2, show_default=True)
@click.option("--iterations", default="", help="Also time the compiled build at these "
              "iteration budgets, comma-separated (e.g. 1500,2500).")  # fmt: skip
@click.option("--skip-random", is_flag=True, help="Only the decisions.")
@click.option("--skip-decisions", is_flag=True, help="Only random play.")
@click.pass_context
def main(
    ctx: click.Context,
    seconds: float,
    decisions: int,
    rounds: int,
    iterations: str,
    skip_random: bool,
    skip_decisions: bool,
) -> None:
    """The pure and the compiled engine, alternated in the same run."""
    if ctx.invoked_subcommand is not None:
        return
    built = subprocess.run(["bash", str(ROOT / "scripts" / "build-engine")], cwd=ROOT)
    if built.returncode:
        raise click.ClickException("no compiled engine to compare (scripts/build-engine)")
    builds = ("pure", "compiled")
    if not skip_random:
        for players in (2, 3, 4):
            runs: dict[str, list[dict[str, Any]]] = {b: [] for b in builds}
            for _ in range(rounds):
                for build in builds:
                    task = ["random", str(players), str(seconds)]
                    runs[build].append(_child(build, task))
            line = [f"random play, {players} players:"]
            for build in builds:
                ours = statistics.median(r["actions_per_s"] for r in runs[build])
                text = f"{build} {ours:,.0f} actions/s"
                unos = [r["uno_actions_per_s"] for r in runs[build] if r["uno_actions_per_s"]]
                if unos:
                    ratios = [r["actions_per_s"] / r["uno_actions_per_s"] for r in runs[build]]
                    text += f" ({statistics.median(ratios):.2f}x UNO)"
                line.append(text)
            paired = [
                c["actions_per_s"] / p["actions_per_s"]
                for p, c in zip(runs["pure"], runs["compiled"], strict=True)
            ]
            line.append(f"compiled/pure {statistics.median(paired):.2f}x (median of {rounds})")
            click.echo(" ".join(line[:1]) + " " + ", ".join(line[1:]))
    if not skip_decisions:
        budgets: list[int | None] = [None] + [int(n) for n in iterations.split(",") if n]
        times: dict[tuple[str, int | None], list[float]] = {}
        for _ in range(rounds):
            for build in builds:
                for budget in budgets if build == "compiled" else [None]:
                    task = ["hard", "2", str(decisions), str(budget or 0)]
                    times.setdefault((build, budget), []).extend(_child(build, task)["times"])
        base = statistics.median(times[("pure", None)])
        for (build, budget), found in times.items():
            median = statistics.median(found)
            label = f"hard{'' if budget is None else f':iterations={budget}'}"
            click.echo(
                f"{label} ({build}), 2 players: median decision {median * 1e3:.0f} ms over "
                f"{len(found)} decisions ({base / median:.2f}x the pure build's speed)"
            )


@main.command(hidden=True)
@click.argument("task")
@click.argument("args", nargs=-1)
def child(task: str, args: tuple[str, ...]) -> None:
    if task == "random":
        result = random_play(int(args[0]), float(args[1]))
    else:
        result = decision_times(int(args[0]), int(args[1]), int(args[2]) or None)
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
