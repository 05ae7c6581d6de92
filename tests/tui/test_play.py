"""The full-screen table, driven through Textual's pilot as a person would."""

from __future__ import annotations

import json
import re

import pytest

from gotown.engine import Options, Record, View
from gotown.tui import words
from gotown.tui.play import PlayApp
from gotown.tui.session import LocalSession, Setup
from gotown.tui.widgets import ActionList, HandOverScreen, TextScreen

from .helpers import log_text, message_text, screen_codes, screen_text, session_at, wait_until

pytestmark = pytest.mark.anyio
SIZE = (80, 24)


async def test_a_whole_game_against_bots_by_keyboard(tmp_path):
    """The person plays the first action offered each turn (Enter in the action list) until
    the game ends; the end shows who won, every hand (R22), and the record is saved."""
    save = tmp_path / "game.json"
    session = LocalSession(Setup(players=3, bots=("easy", "medium"), seed=11))
    shown: set[int | None] = set()  # the seats whose view the screen asked for before the end
    view_of = session.view

    def watched(seat: int | None) -> View:
        if not session.is_over:
            shown.add(seat)
        return view_of(seat)

    session.view = watched  # type: ignore[method-assign]
    app = PlayApp(session, speed=0.0, save=str(save))
    async with app.run_test(size=SIZE) as pilot:
        while not session.is_over:
            await wait_until(pilot, lambda: session.is_over or session.active == 0)
            if session.is_over:
                break
            app.query_one(ActionList).focus()
            before = session.game.version
            await pilot.press("enter")
            await wait_until(pilot, lambda before=before: session.game.version > before)
        await pilot.pause()
        outcome = session.game.outcome()
        assert outcome is not None and outcome.winner is not None
        text = screen_text(app)
        assert words.outcome_text(session.view(0), session.names).split(",")[0] in text
        assert "Press r for a rematch" in text
    record = Record.from_json(json.loads(save.read_text()))
    assert record.replay().outcome() == outcome
    assert shown == {0}  # R22: never a bot's hand, until the game was over


async def test_hot_seat_hand_over_hides_every_hand():
    """Between two people's turns the screen shows no card of either hand, only whose turn it
    is; the person's key shows their own hand and never the other's."""
    session = LocalSession(Setup(players=2, people=2, names=("Ann", "Bob"), seed=4))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2):
            await pilot.pause()
            first = session.active
            assert isinstance(app.screen, HandOverScreen)
            text = screen_text(app)
            assert f"Hand the keyboard to {session.names[first]}" in text
            assert not any(ch.isdigit() for ch in text)  # no number card, no count
            for seat in (0, 1):
                for code in session.view(seat).hand or ():
                    assert words.card_label(code) not in text.replace("Hand the", "")
            await pilot.press("d")  # any key, even one that is a command elsewhere
            await pilot.pause()
            assert not isinstance(app.screen, HandOverScreen | TextScreen)
            assert app.current_view().seat == first
            hand = " ".join(str(button.label) for button in app.query("CardButton").results())
            assert sorted(hand.split()) == sorted(
                words.card_label(c) for c in session.view(first).hand or ()
            )
            app.query_one("#command").focus()
            await pilot.press("e", "n", "d", "enter")
            await pilot.pause()
            assert session.active != first


async def test_an_illegal_typed_move_is_refused_with_its_rule_and_changes_nothing():
    session = LocalSession(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = session.view(0).hand or ()
        missing = next(c for c in ("jackhammer", "wrecking-ball", "thief") if c not in hand)
        before = session.game.to_position()
        app.query_one("#command").focus()
        await pilot.press(*f"{missing}@1", "enter")
        await pilot.pause()
        text = screen_text(app)
        assert f"Refused: you hold no {missing} card (R1" in text
        assert session.game.to_position() == before
        await pilot.press(*"9+9", "enter")  # not even a move
        await pilot.pause()
        assert "Refused: cannot read '9+9' as an action" in screen_text(app)
        assert session.game.to_position() == before
        assert app.focused is app.query_one("#command")  # still there, to type it again
        await pilot.press(*"end", "enter")
        await pilot.pause()
        assert session.game.actions[-1].type == "end-turn"
        assert app.focused is app.query_one(ActionList)  # keys are keys again, not letters


async def test_picking_cards_offers_the_actions_they_allow():
    session = LocalSession(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        hand = session.view(0).hand or ()
        index = next(i for i, c in enumerate(hand) if c in words.NUMBERS or c == "?")
        await pilot.click(f"#card-{index}")
        await pilot.pause()
        shown = [str(o.prompt).split()[0] for o in app.query_one(ActionList).options]
        expected = [
            str(a)
            for a in session.legal(0)
            if a.type == "end-turn" or hand[index] in (a.cards or (a.card,))
        ]
        assert shown == expected
        assert f"[{words.card_label(hand[index])}]" in screen_text(app)


async def test_rematch_deals_a_new_game_after_the_end():
    session = LocalSession(Setup(seed=1, bots=("random",), options=Options(turn_limit=1)))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: session.is_over or session.active == 0)
        if not session.is_over:
            app.query_one("#command").focus()
            await pilot.press(*"end", "enter")
            await pilot.pause()
        assert session.is_over
        assert "no winner" in screen_text(app)
        app.query_one(ActionList).focus()
        await pilot.press("r")
        await pilot.pause()
        assert app.session is not session
        assert app.session.seed != session.seed  # a new deal, the same table
        assert app.session.setup.options == session.setup.options


async def test_replay_steps_through_a_saved_record(tmp_path):
    from gotown.tui.replay import ReplayApp, replay_games

    session = LocalSession(Setup(seed=9, bots=("easy",), options=Options(first_player=1)))
    while not session.is_over:
        seat = session.active
        session.play(seat, session.bot_choice(seat) if seat else session.legal(0)[0])
    path = tmp_path / "game.json"
    session.save(str(path))
    games = replay_games(str(path))
    assert len(games) == len(session.game.actions) + 1
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
    session = LocalSession(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("h")
        await wait_until(pilot, lambda: "Hint: " in screen_text(app))
        message = " ".join(app.query_one("#message").render().plain.split())
        moves = message.split("chance to win after each: ")[1].split(", ")
        offered = {str(a) for a in session.legal(0)}
        assert moves and all(m.split(" (")[0] in offered and m.endswith("%)") for m in moves)
        first = next(a for a in session.legal(0) if str(a) == moves[0].split(" (")[0])
        said = words.describe_action(first, session.view(0), session.names)
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
    session = LocalSession(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        assert app.no_color
        await pilot.pause()
        await pilot.click("#card-0")
        await pilot.pause()
        assert f"[{words.card_label(session.view(0).hand[0])}]" in screen_text(app)
        await pilot.click("#card-0")
        await pilot.pause()
        offered = app.query_one(ActionList)
        last = offered.option_count - 1
        assert str(offered.get_option_at_index(last).prompt).startswith("end ")
        before = session.game.version
        await pilot.click(ActionList, offset=(3, last))
        await wait_until(pilot, lambda: session.game.version > before)
        assert session.game.actions[before:][0].type == "end-turn"


async def test_the_screen_answers_while_a_bot_takes_its_turn():
    """The bot's turn runs in a worker: keys work meanwhile, and its action comes after."""
    session = LocalSession(Setup(seed=2, options=Options(first_player=1)))
    app = PlayApp(session, speed=3.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        version = session.game.version
        await pilot.press("d")
        await pilot.pause()
        assert "Discard pile (" in screen_text(app)
        assert session.game.version == version and session.active == 1  # the bot still waits
        await pilot.press("escape")
        await wait_until(pilot, lambda: session.game.version > version)


async def test_hot_seat_shows_no_hand_while_the_bots_play():
    session = LocalSession(Setup(players=3, people=2, bots=("random",), seed=6,
                             options=Options(first_player=1)))  # fmt: skip
    app = PlayApp(session, speed=5.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space")  # seat 1 takes the keyboard
        await pilot.pause()
        assert app.current_view().seat == 1
        app.query_one("#command").focus()
        await pilot.press(*"end", "enter")
        await pilot.pause()
        assert session.active == 2  # the bot's turn, played slowly
        assert app.current_view().hand is None
        assert "Hand:" not in screen_text(app)


def test_r2_pair_colours():
    from gotown.tui.widgets import card_text

    styles = {code: str(card_text(code).style) for code in "12345678"}
    for low in "1234":
        assert styles[low] == styles[str(9 - int(low))]
    assert len({styles[low] for low in "1234"}) == 4


#: Two full hands (R7b: 8 cards draw nothing) that make no floor and play nothing (R5, R21).
STUCK = [["1"] * 4 + ["2"] * 4, ["3"] * 4 + ["4"] * 4]


async def test_r20b_a_stalemate_ends_the_game_in_words_with_every_hand_laid_down():
    """When the turn ends nothing can ever change: the game is over with no winner (R20b), and
    the screen says why in plain words, naming the rule, with every hand shown (R22)."""
    session = session_at(Setup(seed=1), hands=STUCK, draw=["8"])
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # the one action offered: end the turn
        await wait_until(pilot, lambda: session.is_over)
        await pilot.pause()
        assert session.game.outcome().reason == "stalemate"
        stuck = "The game is stuck: nobody can play a card or draw one any more, so it ends "
        assert message_text(app).startswith(stuck + "with no winner (R20b). Press r for a rematch")
        header = screen_text(app).splitlines()[0]
        assert "GoTown — Stuck: no winner, R20b" in header
        assert log_text(app).endswith(
            "You ended the turn. " + stuck + "with no winner (R20b). Hands at the end: "
            "You: 1, 1, 1, 1, 2, 2, 2, 2; Medium bot: 3, 3, 3, 3, 4, 4, 4, 4."
        )
        assert "turn limit" not in screen_text(app) + log_text(app)


async def test_turns_only_ended_while_someone_could_play_are_said_to_go_on():
    """Ann can only end her turns; Bob could steal-build from her tower (R11) and ends his too;
    nobody draws with 8 cards (R7b). That is no stalemate (R20b): after two rounds Ann is told
    the game goes on, Bob (who can play) is not."""
    ann, bob = STUCK[0], ["3"] * 3 + ["4"] * 4 + ["bone"]  # 3@0: Bob's 3 takes Ann's 6
    session = session_at(Setup(people=2, names=("Ann", "Bob"), seed=1), hands=[ann, bob],
                     towers=[[["3", "6"]], []], draw=["8"])  # fmt: skip
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        for turn in range(6):  # Ann, Bob, Ann, Bob, Ann (after two rounds), Bob
            await pilot.pause()
            await pilot.press("space")  # the hand-over screen
            await pilot.pause()
            said = message_text(app)
            if turn == 4:
                assert said == (
                    "Nobody has played or drawn a card for 4 turns, but someone could still "
                    "play, so the game goes on (it ends by itself, with no winner, only when "
                    "nobody can ever play again: R20b)."
                )
            else:
                assert "Nobody has played" not in said, turn
            app.query_one("#command").focus()
            await pilot.press(*"end", "enter")
            await wait_until(pilot, lambda turn=turn: session.game.turn == turn + 2)
        assert not session.is_over


async def test_hot_seat_end_names_the_winner_and_lays_every_hand_down():
    """Two people at one keyboard: the end is for both to see, so it names who won (not "You")
    and shows both hands (R22)."""
    tower = [["6", "3"] for _ in range(4)]
    session = session_at(Setup(people=2, names=("Ann", "Bob"), seed=1),
                     hands=[["1", "8", "dog"], ["5"]], towers=[tower, []], draw=["7"])  # fmt: skip
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("space")  # Ann takes the keyboard
        await pilot.pause()
        app.query_one("#command").focus()
        await pilot.press(*"1+8", "enter")
        await wait_until(pilot, lambda: session.is_over)
        await pilot.pause()
        assert session.game.outcome().winner == 0
        text = screen_text(app)
        assert "GoTown — Ann won, with 5 floors." in text
        assert message_text(app).startswith("Ann won, with 5 floors. Press r for a rematch")
        log = log_text(app)
        assert log.endswith("Ann built a floor 1+8. Ann won. Hands at the end: Ann: Guard dog; "
                            "Bob: 5.")  # fmt: skip
        assert "You" not in text + log and "(you)" not in text


async def test_four_players_at_80x24_see_every_action_or_a_sign_of_more():
    """With four seats the board is tall; the six actions offered are all in sight, "end" with
    them. When more are offered than fit, the list says so; End brings the last (end the turn)
    into sight, and Enter plays it."""
    others = [["5"], ["2", "7"], ["8", "1"]]  # each can lose a card to a thief (R16)
    session = session_at(Setup(players=4, seed=1), hands=[["1", "3", "7", "7", "thief"], *others],
                     towers=[[], [], [["2", "7"]], [["8", "1"]]], draw=["6"])  # fmt: skip
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = screen_text(app)
        legal = session.legal(0)
        assert len(legal) == 6
        for action in legal:
            said = words.describe_action(action, session.view(0), session.names)
            assert f"{action!s:<16} {said}" in text
        assert "more actions" not in text

    many = ["1", "8", "2", "7", "?", "thief", "milkshake"]
    session = session_at(Setup(players=4, seed=1), hands=[many, *others], draw=["6"])
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert len(session.legal(0)) == 13
        text = screen_text(app)
        assert "▼ more actions below: Down to see them" in text
        assert "end the turn" not in text
        await pilot.press("end")
        await pilot.pause()
        text = screen_text(app)
        assert "end              end the turn" in text
        assert "▲ more actions above: Up to see them" in text and "below" not in text
        await pilot.press("enter")
        await wait_until(pilot, lambda: session.game.actions != [])
        assert session.game.actions[0].type == "end-turn"


async def test_no_color_means_no_colour_at_all(monkeypatch):
    """NO_COLOR (no-color.org): not one colour code, greys included; the action Enter plays is
    still plain to see (underlined), and so is the typing cursor (reversed)."""
    monkeypatch.setenv("NO_COLOR", "1")
    session = LocalSession(Setup(seed=2, options=Options(first_player=0)))
    app = PlayApp(session, speed=0.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        rows = screen_codes(app)
        allowed = {"", "0", "1", "2", "3", "4", "7", "9", "39", "49"}  # styles, default colours
        for row in rows:
            for codes in re.findall(r"\x1b\[([0-9;]*)m", row):
                assert set(codes.split(";")) <= allowed, (codes, row)

        def style_of(text: str, rows: list[str]) -> list[str]:
            """The style codes just before ``text`` on the screen."""
            pattern = r"\x1b\[([0-9;]*)m" + re.escape(text)
            found = [m.group(1) for r in rows if (m := re.search(pattern, r))]
            assert found, text
            return found[0].split(";")

        offered = app.query_one(ActionList)
        assert app.focused is offered and offered.highlighted == 0
        first, second = (str(offered.get_option_at_index(i).prompt) for i in (0, 1))
        assert "4" in style_of(first, rows) and "4" not in style_of(second, rows)
        await pilot.press("slash")
        await pilot.pause()
        prompt = [row for row in screen_codes(app) if "ype a move (3+6" in row]
        assert "7" in style_of("t", prompt)  # the cursor, on the prompt's first letter
        assert "7" not in style_of("ype a move", prompt)
