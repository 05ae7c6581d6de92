"""Train a GoTown player with sb3-contrib's MaskablePPO (PyTorch, on the CPU), then measure it.

The learner plays one seat of ``GoTown-v0`` (:mod:`gotown.rl.gymnasium`) against a bot
(``easy`` by default) in ``--envs`` games side by side, its seat drawn anew each game, with the
illegal actions masked out. It trains for ``--minutes`` (or ``--steps``), saves the model,
writes its learning curve (the win rate of the last games against the training bot, by steps)
and evaluates it with the tournament against ``random``, ``easy`` and ``medium``, seats
rotated. The saved model is a bot level afterwards:
``gotown tournament ppo:path=ppo-gotown.zip medium``.

    .venv/bin/python examples/train_maskable_ppo.py --minutes 30 --out ppo-gotown.zip \\
        --curve ppo-curve.csv --plot ppo-curve.png --eval-games 400

Needs the rl extra (``GOTOWN_EXTRAS=rl scripts/bootstrap``, docs/rl.md).
"""

from __future__ import annotations

import csv
import time
from pathlib import Path
from typing import Any

import click

FILE = click.Path(dir_okay=False, path_type=Path)


def train(
    minutes: float,
    steps: int | None,
    opponent: str,
    players: int,
    seed: int,
    envs: int,
    n_steps: int,
    batch_size: int,
    window: int,
) -> tuple[Any, list[tuple[int, float, float]]]:
    """The trained model and its curve: (steps, seconds, win rate of the last ``window``
    games). The ``envs`` games in step share each forward pass of the network (what costs
    most)."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from gotown.rl.gymnasium import GoTownEnv

    torch.set_num_threads(1)  # a small network: one thread is fastest, and leaves a core free
    env = DummyVecEnv(
        [
            lambda: Monitor(GoTownEnv(players=players, opponents=[opponent], illegal="raise"))
            for _ in range(envs)
        ]
    )
    started = time.monotonic()
    deadline = started + minutes * 60
    results: list[float] = []
    curve: list[tuple[int, float, float]] = []

    class Curve(BaseCallback):  # type: ignore[misc]
        """Records each finished game; stops at the deadline."""

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                if "episode" in info:
                    results.append(1.0 if info["episode"]["r"] > 0 else 0.0)
                    if len(results) % max(1, window // 4) == 0:
                        recent = results[-window:]
                        seconds = round(time.monotonic() - started, 1)
                        curve.append((self.num_timesteps, seconds, sum(recent) / len(recent)))
            return time.monotonic() < deadline

    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=batch_size,
        gamma=0.995,
        ent_coef=0.01,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    model.learn(total_timesteps=steps or 10**12, callback=Curve())
    return model, curve


def evaluate(path: Path, against: tuple[str, ...], games: int, players: int, seed: int) -> None:
    """Print the trained bot's win rate (95% interval) against each bot, seats rotated."""
    from gotown.rl.policy import register_ppo_level
    from gotown.tournament.tournament import run_tournament

    register_ppo_level()
    me = f"ppo:path={path}"
    for other in against:
        lineup = [me] + [other] * (players - 1)
        result = run_tournament(lineup, games, seed=seed, workers=1)
        mine = result.entries[0]
        click.echo(
            f"ppo vs {other}: won {mine.wins} of {mine.games} ({mine.win_rate:.1%}, 95% "
            f"{mine.ci_low:.1%}-{mine.ci_high:.1%}), {mine.median_think_ms:.2f} ms a decision"
        )


@click.command()
@click.option("--minutes", type=click.FloatRange(min=0, min_open=True), default=30.0,
              show_default=True, help="Training time.")  # fmt: skip
@click.option("--steps", type=click.IntRange(min=1), default=None,
              help="Stop after this many steps instead (if sooner).")  # fmt: skip
@click.option("--opponent", default="easy", show_default=True, help="The bot trained against.")
@click.option("--players", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--envs", type=click.IntRange(min=1), default=8, show_default=True,
              help="Games played side by side.")  # fmt: skip
@click.option("--n-steps", type=click.IntRange(min=2), default=256, show_default=True,
              help="PPO's steps per update, per game played side by side.")  # fmt: skip
@click.option("--batch-size", type=click.IntRange(min=2), default=256, show_default=True)
@click.option("--window", type=click.IntRange(min=1), default=200, show_default=True,
              help="Games per point of the learning curve.")  # fmt: skip
@click.option("--out", type=FILE, default=Path("ppo-gotown.zip"), show_default=True,
              help="Where to save the model.")  # fmt: skip
@click.option("--curve", "curve_path", type=FILE, default=None,
              help="Write the learning curve here (CSV: steps, seconds, win_rate).")  # fmt: skip
@click.option("--plot", "plot_path", type=FILE, default=None,
              help="Plot the learning curve here (png, svg, pdf).")  # fmt: skip
@click.option("--eval-games", type=click.IntRange(min=0), default=200, show_default=True,
              help="Tournament games against each of --eval-against (0: none).")  # fmt: skip
@click.option("--eval-against", multiple=True, default=("random", "easy", "medium"),
              show_default=True, help="Bots to evaluate against (repeatable).")  # fmt: skip
def main(
    minutes: float,
    steps: int | None,
    opponent: str,
    players: int,
    seed: int,
    envs: int,
    n_steps: int,
    batch_size: int,
    window: int,
    out: Path,
    curve_path: Path | None,
    plot_path: Path | None,
    eval_games: int,
    eval_against: tuple[str, ...],
) -> None:
    """Train MaskablePPO against a bot, save it, and evaluate it with the tournament."""
    from gotown.bots import parse_bot_spec

    for spec in (opponent, *eval_against):
        try:
            parse_bot_spec(spec)
        except ValueError as error:
            raise click.BadParameter(str(error)) from None
    started = time.monotonic()
    model, curve = train(minutes, steps, opponent, players, seed, envs, n_steps, batch_size, window)
    model.save(out)
    click.echo(
        f"trained {model.num_timesteps:,} steps in {time.monotonic() - started:.0f} s; saved {out}"
    )
    if curve:
        click.echo(f"win rate against {opponent}, last {window} games: {curve[-1][2]:.1%}")
    if curve_path:
        with curve_path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["steps", "seconds", "win_rate"])
            writer.writerows(curve)
    if plot_path:
        plot(curve, opponent, window, plot_path)
    if eval_games:
        evaluate(out, eval_against, eval_games, players, seed)


def plot(curve: list[tuple[int, float, float]], opponent: str, window: int, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7, 4))
    axes.plot([s for s, _, _ in curve], [r for _, _, r in curve])
    axes.axhline(0.5, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xlabel("training steps")
    axes.set_ylabel(f"win rate, last {window} games")
    axes.set_ylim(0, 1)
    minutes = f", {curve[-1][1] / 60:.0f} minutes" if curve else ""
    axes.set_title(f"MaskablePPO against {opponent}{minutes}")
    figure.tight_layout()
    figure.savefig(path)


if __name__ == "__main__":
    main()
