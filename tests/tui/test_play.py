"""The full-screen table, driven through Textual's pilot as a person would."""

from __future__ import annotations

import json

import pytest

from gotown.engine import Options, Record, View
from gotown.tui import words
from gotown.tui.play import PlayApp
from gotown.tui.table import LocalTable, Setup
from gotown.tui.widgets import ActionList, HandOverScreen, TextScreen

from .helpers import screen_text, wait_until

pytestmark = pytest.mark.anyio
SIZE = (80, 24)


async def test_a_whole_game_against_bots_by_keyboard(tmp_path):
    """The person plays the first action offered each turn (Enter in the action list) until
    the game ends; the end shows who won, every hand (R22), and the record is saved."""
    save = tmp_path / "game.json"
    table = LocalTable(Setup(players=3, bots=("easy", "medium"), seed=11))
    shown: set[int | None] = set()  # the seats whose view the screen asked for before the end
    view_of = table.view

    def watched(seat: int | None) -> View:
        if not table.is_over:
            shown.add(seat)
        return view_of(seat)

    table.view = watched  # type: ignore[method-assign]
    app = PlayApp(table, speed=0.0, save=str(save))
    async with app.run_test(size=SIZE) as pilot:
        while not table.is_over:
            await wait_until(pilot, lambda: table.is_over or table.active == 0)
            if table.is_over:
                break
            app.query_one(ActionList).focus()
            before = table.game.version
            await pilot.press("enter")
            await wait_until(pilot, lambda before=before: table.game.version > before)
        await pilot.pause()
        outcome = table.game.outcome()
        assert outcome is not None and outcome.winner is not None
        text = screen_text(app)
        assert words.outcome_text(table.view(0), table.names).split(",")[0] in text
        assert "Press r for a rematch" in text
    record = Record.from_json(json.loads(save.read_text()))
    assert record.replay().outcome() == outcome
    assert shown == {0}  # R22: never a bot's hand, until the game was over


async def test_hot_seat_hand_over_hides_every_hand():
    """Between two people's turns the screen shows no card of either hand, only whose turn it
    is; the person's key shows their own hand and never the other's."""
    table = LocalTable(Setup(players=2, people=2, names=("Ann", "Bob"), seed=4))
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2):
            await pilot.pause()
            first = table.active
            assert isinstance(app.screen, HandOverScreen)
            text = screen_text(app)
            assert f"Hand the keyboard to {table.names[first]}" in text
            assert not any(ch.isdigit() for ch in text)  # no number card, no count
            for seat in (0, 1):
                for code in table.view(seat).hand or ():
                    assert words.card_label(code) not in text.replace("Hand the", "")
            await pilot.press("d")  # any key, even one that is a command elsewhere
            await pilot.pause()
            assert not isinstance(app.screen, HandOverScreen | TextScreen)
            assert app.current_view().seat == first
            hand = " ".join(str(button.label) for button in app.query("CardButton").results())
            assert sorted(hand.split()) == sorted(
                words.card_label(c) for c in table.view(first).hand or ()
            )
            app.query_one("#command").focus()
            await pilot.press("e", "n", "d", "enter")
            await pilot.pause()
            assert table.active != first


async def test_an_illegal_typed_move_is_refused_with_its_rule_and_changes_nothing():
    table = LocalTable(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = table.view(0).hand or ()
        missing = next(c for c in ("jackhammer", "wrecking-ball", "thief") if c not in hand)
        before = table.game.to_position()
        app.query_one("#command").focus()
        await pilot.press(*f"{missing}@1", "enter")
        await pilot.pause()
        text = screen_text(app)
        assert f"Refused: you hold no {missing} card (R1" in text
        assert table.game.to_position() == before
        await pilot.press(*"9+9", "enter")  # not even a move
        await pilot.pause()
        assert "Refused: cannot read '9+9' as an action" in screen_text(app)
        assert table.game.to_position() == before
        assert app.focused is app.query_one("#command")  # still there, to type it again
        await pilot.press(*"end", "enter")
        await pilot.pause()
        assert table.game.actions[-1].type == "end-turn"
        assert app.focused is app.query_one(ActionList)  # keys are keys again, not letters


async def test_picking_cards_offers_the_actions_they_allow():
    table = LocalTable(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = table.view(0).hand or ()
        index = next(i for i, c in enumerate(hand) if c in words.NUMBERS or c == "?")
        await pilot.click(f"#card-{index}")
        await pilot.pause()
        shown = [str(o.prompt).split()[0] for o in app.query_one(ActionList).options]
        expected = [
            str(a)
            for a in table.legal(0)
            if a.type == "end-turn" or hand[index] in (a.cards or (a.card,))
        ]
        assert shown == expected
        assert f"[{words.card_label(hand[index])}]" in screen_text(app)


async def test_rematch_deals_a_new_game_after_the_end():
    table = LocalTable(Setup(seed=1, bots=("random",), options=Options(turn_limit=1)))
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: table.is_over or table.active == 0)
        if not table.is_over:
            app.query_one("#command").focus()
            await pilot.press(*"end", "enter")
            await pilot.pause()
        assert table.is_over
        assert "no winner" in screen_text(app)
        app.query_one(ActionList).focus()
        await pilot.press("r")
        await pilot.pause()
        assert app.table is not table
        assert app.table.seed != table.seed  # a new deal, the same table
        assert app.table.setup.options == table.setup.options


async def test_replay_steps_through_a_saved_record(tmp_path):
    from gotown.tui.replay import ReplayApp, replay_games

    table = LocalTable(Setup(seed=9, bots=("easy",), options=Options(first_player=1)))
    while not table.is_over:
        seat = table.active
        table.play(seat, table.bot_choice(seat) if seat else table.legal(0)[0])
    path = tmp_path / "game.json"
    table.save(str(path))
    games = replay_games(str(path))
    assert len(games) == len(table.game.actions) + 1
    app = ReplayApp(games)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert "step 0 of" in screen_text(app)
        await pilot.press("right", "right", "left")
        await pilot.pause()
        assert app.step == 1
        assert f"step 1 of {len(games) - 1}" in screen_text(app)
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "Seat 0 won" in text  # the record names no one: seats by number
        assert "Hand:" not in text  # a spectator's view: no hand (R22)...
        assert "Hands at the end: Seat 0: " in text  # ...until the game is over


async def test_hint_and_discard_pile_on_request():
    table = LocalTable(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("h")
        await wait_until(pilot, lambda: "Hint: " in screen_text(app))
        message = " ".join(app.query_one("#message").render().plain.split())
        moves = message.split("chance to win after each: ")[1].split(", ")
        offered = {str(a) for a in table.legal(0)}
        assert moves and all(m.split(" (")[0] in offered and m.endswith("%)") for m in moves)
        first = next(a for a in table.legal(0) if str(a) == moves[0].split(" (")[0])
        said = words.describe_action(first, table.view(0), table.names)
        assert message.startswith(f"Hint: {said}.")
        await pilot.press("d")
        await pilot.pause()
        assert "Discard pile (0 cards)" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert "Discard pile (0 cards)" not in screen_text(app)


async def test_a_mouse_click_on_an_action_plays_it(monkeypatch):
    """Without colour (NO_COLOR) a picked card still shows, in brackets; a click on an offered
    action plays it."""
    monkeypatch.setenv("NO_COLOR", "1")
    table = LocalTable(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        assert app.no_color
        await pilot.pause()
        await pilot.click("#card-0")
        await pilot.pause()
        assert f"[{words.card_label(table.view(0).hand[0])}]" in screen_text(app)
        await pilot.click("#card-0")
        await pilot.pause()
        offered = app.query_one(ActionList)
        last = offered.option_count - 1
        assert str(offered.get_option_at_index(last).prompt).startswith("end ")
        before = table.game.version
        await pilot.click(ActionList, offset=(3, last))
        await wait_until(pilot, lambda: table.game.version > before)
        assert table.game.actions[before:][0].type == "end-turn"


async def test_the_screen_answers_while_a_bot_takes_its_turn():
    """The bot's turn runs in a worker: keys work meanwhile, and its action comes after."""
    table = LocalTable(Setup(seed=2, options=Options(first_player=1)))
    app = PlayApp(table, speed=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        version = table.game.version
        await pilot.press("d")
        await pilot.pause()
        assert "Discard pile (" in screen_text(app)
        assert table.game.version == version and table.active == 1  # the bot still waits
        await pilot.press("escape")
        await wait_until(pilot, lambda: table.game.version > version)


async def test_hot_seat_shows_no_hand_while_the_bots_play():
    table = LocalTable(Setup(players=3, people=2, bots=("random",), seed=6,
                             options=Options(first_player=1)))  # fmt: skip
    app = PlayApp(table, speed=5.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space")  # seat 1 takes the keyboard
        await pilot.pause()
        assert app.current_view().seat == 1
        app.query_one("#command").focus()
        await pilot.press(*"end", "enter")
        await pilot.pause()
        assert table.active == 2  # the bot's turn, played slowly
        assert app.current_view().hand is None
        assert "Hand:" not in screen_text(app)


def test_r2_pair_colours():
    from gotown.tui.widgets import card_text

    styles = {code: str(card_text(code).style) for code in "12345678"}
    for low in "1234":
        assert styles[low] == styles[str(9 - int(low))]
    assert len({styles[low] for low in "1234"}) == 4


async def test_a_stuck_game_is_said_to_be_so():
    """Two full hands that make no floor and play nothing (R5, R21) draw nothing (R7b): after
    two rounds of ended turns the screen says the game may never end, as the web table does."""
    from gotown.engine import CODES, COPIES, Game

    hands = [["1"] * 4 + ["2"] * 4, ["3"] * 4 + ["4"] * 4]
    draw = [c for c, n in zip(CODES, COPIES, strict=True) for _ in range(n)]
    for card in hands[0] + hands[1]:
        draw.remove(card)
    position = Game.new(players=2, seed=1, options={"first_player": 0}).to_position()
    position.update(hands=hands, draw=draw)
    table = LocalTable(Setup(seed=1))
    table.game = Game.from_position(position)
    app = PlayApp(table, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        for round_ in range(3):
            await wait_until(pilot, lambda: table.active == 0)
            await pilot.pause()
            said = "Nobody has played or drawn a card for" in screen_text(app)
            assert said == (round_ == 2)
            app.query_one("#command").focus()
            before = table.game.version
            await pilot.press(*"end", "enter")
            await wait_until(pilot, lambda before=before: table.game.version > before + 1)
