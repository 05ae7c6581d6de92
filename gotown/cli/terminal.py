"""``gotown play``: the game in the terminal."""

from __future__ import annotations

import os
import sys

import click

from ..texts import LANGUAGES
from .options import FiniteFloatRange, parse_rule_options


@click.command()
@click.option("--players", type=click.IntRange(2, 4), default=None,
              help="Seats at the table, 2 to 4 (default: 2, or one per person and bot "
                   "given).")  # fmt: skip
@click.option("--people", type=click.IntRange(1, 4), default=1, show_default=True,
              help="People at this keyboard (hot-seat): each one's hand is hidden behind a "
                   "'hand the keyboard to ...' screen between turns.")  # fmt: skip
@click.option("--bots", default="", metavar="LEVEL,...",
              help="The bots' levels (random, easy, medium, hard, expert, or a bot spec as in "
                   "`gotown tournament`), one per bot seat; the last fills the rest "
                   "(default medium).")  # fmt: skip
@click.option(
    "--name",
    "names",
    default="",
    metavar="NAME[,NAME...]",
    help="Your name (with --people, each person's, in seat order).",
)
@click.option(
    "--seed",
    type=click.IntRange(0),
    default=None,
    help="Deal this game from a seed (default: a random one).",
)
@click.option("--short", is_flag=True, help="The official short game: 4 floors win (R23).")
@click.option("--option", "rule_option_texts", metavar="NAME=VALUE", multiple=True,
              help="An R23 rule option, VALUE read as JSON when it parses: win_floors=4, "
                   "dog_placement=any, milkshake_blocks_refill=false. Repeatable.")  # fmt: skip
@click.option(
    "--speed",
    type=FiniteFloatRange(0),
    default=0.8,
    show_default=True,
    help="Seconds each bot action stays on screen before the next.",
)
@click.option(
    "--save",
    "save_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the game's record (the engine's JSON) to this file when it ends.",
)
@click.option("--replay", "replay_path", type=click.Path(exists=True, dir_okay=False),
              default=None, help="Step through a saved record instead of playing.")  # fmt: skip
@click.option("--review", "show_review", is_flag=True,
              help="With --replay: the strong bot's review (each seat's chance over the game, "
                   "the turning points; `v` shows it again).")  # fmt: skip
@click.option("--review-seat", type=click.IntRange(0, 3), default=None,
              help="With --replay: review the game for this seat (from 0), its mistakes "
                   "named with the better move.")  # fmt: skip
@click.option("--connect", "url", default=None, metavar="URL",
              help="Take a seat at a game of a running `gotown serve`: its invitation link "
                   "(/j/CODE) or your seat link (/g/GAME#t=TOKEN).")  # fmt: skip
@click.option("--plain", is_flag=True,
              help="Line by line: print the state, read an action from standard input "
                   "(for screen readers, scripts, and terminals where full-screen apps "
                   "fail).")  # fmt: skip
@click.option("--lang", type=click.Choice(LANGUAGES), default=None,
              help="The rules screen's language (default: the locale's, LANG, when the web "
                   "table speaks it; else English).")  # fmt: skip
def play(
    players: int | None,
    people: int,
    bots: str,
    names: str,
    seed: int | None,
    short: bool,
    rule_option_texts: tuple[str, ...],
    speed: float,
    save_path: str | None,
    replay_path: str | None,
    show_review: bool,
    review_seat: int | None,
    url: str | None,
    plain: bool,
    lang: str | None,
) -> None:
    """Play GoTown in the terminal: against a medium bot at once, with no options.

    Keys: pick cards (click, or Tab and Enter) and choose one of the actions they allow, or
    type a move in the notation (3+6, 5@1, dog#0, bone#1@1, end) after `/`; `?` rules,
    `h` hint, `d` discard pile, `r` rematch at the end, `q` quit. Exits 2 on bad options.
    """
    if lang:
        os.environ["GOTOWN_LANG"] = lang  # what the rules screen reads (tui.words)
    from ..engine import GoTownError, Options

    given = parse_rule_options(rule_option_texts)
    if short:
        if given.get("win_floors", 4) != 4:
            raise click.BadParameter("--short is win_floors=4 (R23)", param_hint="--option")
        given["win_floors"] = 4
    try:
        options = Options.from_json(given)
    except GoTownError as error:
        raise click.BadParameter(str(error), param_hint="--option") from None
    person_names = tuple(name.strip() for name in names.split(",")) if names else ()
    if len(person_names) > people:
        raise click.BadParameter(f"{len(person_names)} names for {people} people",
                                 param_hint="--name")  # fmt: skip
    if url is not None:
        from ..tui.client import LinkError
        from ..tui.remote import run_remote

        if replay_path:
            raise click.BadParameter("--connect plays, --replay shows a record: one of them",
                                     param_hint="--connect")  # fmt: skip
        try:
            code = run_remote(url, name=person_names[0] if person_names else "Terminal",
                              plain=plain)  # fmt: skip
        except LinkError as error:
            raise click.BadParameter(str(error), param_hint="--connect") from None
        sys.exit(code)
    if (show_review or review_seat is not None) and replay_path is None:
        raise click.BadParameter("a review is of a saved game: give --replay FILE too",
                                 param_hint="--review")  # fmt: skip
    if replay_path is not None:
        from ..tui.replay import run_replay

        try:
            run_replay(replay_path, plain=plain, show_review=show_review, review_seat=review_seat)
        except (OSError, ValueError) as error:
            raise click.BadParameter(str(error), param_hint="--replay") from None
        return
    from ..tui.session import Setup

    if save_path and not os.path.isdir(os.path.dirname(os.path.abspath(save_path))):
        raise click.BadParameter(f"{save_path}: its folder does not exist", param_hint="--save")
    bot_specs = tuple(spec.strip() for spec in bots.split(",") if spec.strip())
    count = players if players is not None else max(2, people + len(bot_specs))
    try:
        setup = Setup(players=count, people=people, bots=bot_specs, names=person_names,
                      seed=seed, options=options)  # fmt: skip
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    if plain:
        from ..tui.plain import play_plain

        if people > 1:
            raise click.BadParameter("--plain seats one person: a hot-seat game needs the "
                                     "full screen", param_hint="--people")  # fmt: skip
        sys.exit(play_plain(setup, save=save_path))
    from ..tui.play import PlayApp
    from ..tui.session import LocalSession

    PlayApp(LocalSession(setup), speed=speed, save=save_path).run()
