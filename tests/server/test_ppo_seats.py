"""Trained policies at the web table (``ppo:NAME``): only those the operator configured, seated
like any bot; a client naming a file is refused. Needs the rl extra (torch, sb3-contrib)."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from rl.helpers import train_tiny_policy

import gotown.bots as bots
from gotown.engine import Action, Game
from gotown.rl.policy import PPOBot, register_ppo_level
from gotown.server.config import SettingError, Settings
from gotown.server.services.registry import new_game as new_game_of

from .helpers import new_game, refused, running, service_of, wait_until

pytestmark = pytest.mark.rl


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    model, _, _ = train_tiny_policy(tmp_path_factory.mktemp("ppo"))
    return model


@pytest.fixture
def ppo_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The ppo level registered (as ``gotown serve`` does), in a registry dropped after."""
    monkeypatch.setattr(bots, "EXTRA_LEVELS", {})
    register_ppo_level()
    yield


@pytest.fixture
def ppo_client(settings: Settings, policy: Path, ppo_registered: None) -> Iterator[TestClient]:
    with running(settings.with_(bot_policies=(("tiny", str(policy)),))) as client:
        yield client


def played_as_the_policy(client: TestClient, game_id: str, policy: Path) -> int:
    """Check that every stored action of seat 1 is the policy's own choice (not a fallback);
    answers how many there were."""
    stored = service_of(client).store.load_game(game_id)
    assert stored is not None
    game = new_game_of(stored)
    bot = PPOBot(f"ppo:path={policy}", 0)
    count = 0
    for data in stored.actions:
        action = Action.from_json(data)
        if game.active == 1:
            assert action == bot.choose(game.view(1), game.legal_actions())
            count += 1
        game.apply(action)
    return count


def test_the_configured_policy_is_a_level_in_the_meta_and_the_schema(
    ppo_client: TestClient,
) -> None:
    levels = ppo_client.get("/api/meta").json()["bot_levels"]
    assert levels[-1] == "ppo:tiny" and "medium" in levels
    schema = ppo_client.get("/openapi.json").json()["components"]["schemas"]
    assert "ppo:tiny" in schema["HandOverIn"]["properties"]["level"]["enum"]


def test_a_policy_seat_plays_its_moves(ppo_client: TestClient, policy: Path) -> None:
    game_id, tokens = new_game(
        ppo_client, ["human", "bot"], level="ppo:tiny", options={"first_player": 1}
    )
    lobby = ppo_client.get(f"/api/games/{game_id}/lobby").json()
    assert lobby["seats"][1]["level"] == "ppo:tiny"
    # The policy plays its turn (seat 1 moves first), and the turn comes to the person.
    st = wait_until(ppo_client, game_id, tokens[0], lambda s: s["view"]["active"] == 0)
    assert st["version"] >= 1
    assert played_as_the_policy(ppo_client, game_id, policy) == st["version"]


def test_a_policy_thinks_in_the_bots_worker_process(
    tmp_path: Path, policy: Path, ppo_registered: None
) -> None:
    """As the server runs by default: the bot goes to a worker process at every decision
    (pickled as its file, loaded there once). On SQLite only: the database plays no part."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'gotown.sqlite3'}",
        allow_seed=True,
        bot_delay=0,
        rate_limit_per_minute=0,
    )
    policies = (("tiny", str(policy)),)
    with running(settings.with_(bot_policies=policies, worker_processes=True)) as client:
        game_id, tokens = new_game(
            client, ["human", "bot"], level="ppo:tiny", options={"first_player": 1}
        )
        st = wait_until(client, game_id, tokens[0], lambda s: s["view"]["active"] == 0)
        assert st["version"] >= 1
        assert played_as_the_policy(client, game_id, policy) == st["version"]


@pytest.mark.parametrize("level", ["ppo:path=/etc/passwd", "ppo:other", "ppo:path=x.zip"])
def test_a_client_naming_a_file_or_an_unknown_policy_is_refused(
    ppo_client: TestClient, level: str
) -> None:
    body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": level}], "name": "Ann"}
    r = ppo_client.post("/api/games", json=body)
    message = refused(r, 422, "unknown-level")
    assert "ppo:tiny" in message and "never names a file" in message
    game_id, tokens = new_game(ppo_client, ["human", "human"])
    r = ppo_client.post(
        f"/api/games/{game_id}/seats/1/bot",
        json={"level": level},
        headers={"X-Seat-Token": tokens[0]},
    )
    assert r.status_code == 422, r.text


def test_no_policy_is_offered_without_the_level_registered(
    settings: Settings, policy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bots, "EXTRA_LEVELS", {})
    with running(settings.with_(bot_policies=(("tiny", str(policy)),))) as client:
        assert not any(
            level.startswith("ppo") for level in client.get("/api/meta").json()["bot_levels"]
        )
        body = {"seats": [{"kind": "human"}, {"kind": "bot", "level": "ppo:tiny"}], "name": "Ann"}
        refused(client.post("/api/games", json=body), 422, "unknown-level")


def test_a_policy_bot_pickles_as_its_file_and_plays_the_same(policy: Path) -> None:
    bot = PPOBot(f"ppo:path={policy}", 3)
    data = pickle.dumps(bot)
    assert len(data) < 1000  # (its spec and file, not its weights)
    again = pickle.loads(data)
    game = Game.new(players=2, seed=4)
    for _ in range(20):
        view, legal = game.view(game.active), game.legal_actions()
        assert again.choose(view, legal) == bot.choose(view, legal)
        game.apply(bot.choose(view, legal))


@pytest.mark.parametrize(
    ("text", "wrong"),
    [("tiny", "is not NAME=FILE"), ("Tiny=x.zip", "is not 1 to 12"),
     ("a=x.zip,a=y.zip", "given twice"), ("averyveryverylongname=x.zip", "is not 1 to 12")],
)  # fmt: skip
def test_bad_policy_settings_are_refused_naming_the_variable(text: str, wrong: str) -> None:
    with pytest.raises(SettingError, match=wrong) as caught:
        Settings.from_env({"GOTOWN_BOT_POLICIES": text})
    assert "GOTOWN_BOT_POLICIES" in str(caught.value)


def test_serve_tells_a_missing_policy_file_and_registers_the_level(
    policy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from gotown.cli import main
    from gotown.cli.web import offer_policies

    env = {"GOTOWN_BOT_POLICIES": "tiny=/no/such/ppo.zip"}
    result = CliRunner().invoke(main, ["serve"], env=env)
    assert result.exit_code == 2 and "policy 'tiny': no model file" in result.output
    monkeypatch.setattr(bots, "EXTRA_LEVELS", {})
    offer_policies((("tiny", str(policy)),))
    assert "ppo" in bots.EXTRA_LEVELS
