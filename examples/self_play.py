"""Self-play: a MaskablePPO policy (sb3-contrib, PyTorch on the CPU) trained against earlier
copies of itself.

Each round saves the policy as a new generation (``gen-0.zip`` is the untrained one) and
trains the next ``--steps-per-round`` steps of ``GoTown-v0`` (:mod:`gotown.rl.gymnasium`)
against the generations so far: each of the ``--envs`` games side by side seats the latest
with probability ``--latest``, else one of the earlier ones at random (playing only the latest
tends to forget how to beat the older ones). A generation is an opponent like any bot, by its
spec ``ppo:path=DIR/gen-K.zip`` (``import gotown.rl`` adds the level), and plays its most
likely legal action. At the end the last generation meets the first and the bots of
``--eval-against`` in the tournament, seats rotated.

    .venv/bin/python examples/self_play.py --rounds 4 --steps-per-round 2048 --out-dir selfplay

takes about a minute on a free core. Needs the rl extra (``GOTOWN_EXTRAS=rl
scripts/bootstrap``, docs/rl.md).
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import click


def pick_opponents(
    generations: list[Path], games: int, latest: float, rng: random.Random
) -> list[str]:
    """One opponent spec per game: the latest generation with probability ``latest``, else an
    earlier one, uniformly."""
    picks = []
    for _ in range(games):
        earlier = generations[:-1]
        chosen = generations[-1] if not earlier or rng.random() < latest else rng.choice(earlier)
        picks.append(f"ppo:path={chosen}")
    return picks


def games_against(opponents: list[str], players: int, seed: int) -> Any:
    """The games side by side, one opponent spec each (every other seat plays it)."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from gotown.rl.gymnasium import GoTownEnv

    makers = [
        lambda spec=spec: Monitor(GoTownEnv(players=players, opponents=[spec], illegal="raise"))
        for spec in opponents
    ]
    games = DummyVecEnv(makers)
    games.seed(seed)
    return games


@click.command()
@click.option("--rounds", type=click.IntRange(min=1), default=4, show_default=True,
              help="Generations to train after the first.")  # fmt: skip
@click.option("--steps-per-round", type=click.IntRange(min=1), default=2048, show_default=True)
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--envs", type=click.IntRange(min=1), default=4, show_default=True,
              help="Games played side by side.")  # fmt: skip
@click.option("--latest", type=click.FloatRange(0, 1), default=0.5, show_default=True,
              help="How often a game seats the latest generation "
              "(else an earlier one).")  # fmt: skip
@click.option("--n-steps", type=click.IntRange(min=2), default=256, show_default=True,
              help="PPO's steps per update, per game played side by side.")  # fmt: skip
@click.option("--batch-size", type=click.IntRange(min=2), default=256, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out-dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("selfplay"), show_default=True,
              help="Where the generations are saved (gen-0.zip, gen-1.zip, ...).")  # fmt: skip
@click.option("--eval-games", type=click.IntRange(min=0), default=40, show_default=True,
              help="Tournament games of the last generation against the first and each of "
              "--eval-against (0: none).")  # fmt: skip
@click.option("--eval-against", multiple=True, default=("random", "easy"), show_default=True,
              help="Bots to evaluate against (repeatable).")  # fmt: skip
def main(
    rounds: int,
    steps_per_round: int,
    players: int,
    envs: int,
    latest: float,
    n_steps: int,
    batch_size: int,
    seed: int,
    out_dir: Path,
    eval_games: int,
    eval_against: tuple[str, ...],
) -> None:
    """Train MaskablePPO against earlier copies of itself, then measure the last copy."""
    import torch
    from sb3_contrib import MaskablePPO

    import gotown.rl  # noqa: F401  (adds the ppo bot level: a generation is an opponent)

    torch.set_num_threads(1)  # a small network: one thread is fastest
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    started = time.monotonic()
    model = MaskablePPO(
        "MlpPolicy",
        games_against(["random"] * envs, players, seed),  # (its spaces: gen-0 is not saved yet)
        n_steps=n_steps,
        batch_size=batch_size,
        gamma=0.995,
        ent_coef=0.01,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    generations = [out_dir / "gen-0.zip"]
    model.save(generations[0])
    for round_ in range(1, rounds + 1):
        opponents = pick_opponents(generations, envs, latest, rng)
        model.set_env(games_against(opponents, players, seed + round_))
        model.ep_info_buffer = None  # (learn starts a new one: this round's games)
        model.learn(total_timesteps=steps_per_round, reset_num_timesteps=False)
        won = [episode["r"] > 0 for episode in model.ep_info_buffer]
        generations.append(out_dir / f"gen-{round_}.zip")
        model.save(generations[-1])
        names = sorted({spec.rsplit("/", 1)[-1].removesuffix(".zip") for spec in opponents})
        rate = f"{sum(won) / len(won):.0%} of its last {len(won)} games" if won else "no game"
        click.echo(
            f"round {round_}: against {', '.join(names)}: won {rate}; saved {generations[-1]}"
        )
    click.echo(f"{model.num_timesteps:,} steps in {time.monotonic() - started:.0f} s")
    if eval_games:
        evaluate(
            generations[-1],
            [f"ppo:path={generations[0]}", *eval_against],
            eval_games,
            players,
            seed,
        )


def evaluate(path: Path, against: list[str], games: int, players: int, seed: int) -> None:
    """Print the last generation's win rate (95% interval) against each, seats rotated."""
    from gotown.tournament.tournament import run_tournament

    me = f"ppo:path={path}"
    for other in against:
        result = run_tournament([me] + [other] * (players - 1), games, seed=seed, workers=1)
        mine = result.entries[0]
        click.echo(
            f"{path.stem} vs {other}: won {mine.wins} of {mine.games} ({mine.win_rate:.1%}, 95% "
            f"{mine.ci_low:.1%}-{mine.ci_high:.1%})"
        )


if __name__ == "__main__":
    main()
