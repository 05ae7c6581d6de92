"""The ``gotown`` command: the one place that composes the engine, bots, server and tools.

Heavy imports happen inside the subcommand that needs them, so ``gotown --help`` is instant.
"""

from __future__ import annotations

import click

from .admin import admin
from .engine_tools import bench, scenarios
from .study import analyze, review
from .terminal import play
from .tournaments import tournament
from .web import serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="gotown")
def main() -> None:
    """GoTown, the card game: play it, test it, measure it."""


for command in (admin, analyze, bench, play, review, scenarios, serve, tournament):
    main.add_command(command)
