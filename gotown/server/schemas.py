"""Wire schemas of the web table: what a client sends and receives.

The ones a client reads (a state, a lobby, a refusal, a hint, the socket's messages) are in
:mod:`gotown.wire`, which the terminal may import too; they are re-exported here. Views, actions
and events keep the engine's JSON shapes (FORMAT.md, docs/engine-api.md) and are passed through
as plain objects.
"""

from __future__ import annotations

import functools
import re
import sys
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# A game's seed is a whole number of SEED_BITS bits, the width of the engine's own seed chain,
# which a signed 64-bit database column holds. The seed deals every card, so it is drawn from
# too many values to find by trying them all against a hand.
from gotown.engine import SEED_BITS
from gotown.wire import (
    LANGUAGES,
    ErrorBody,
    ErrorOut,
    GameStatus,
    HintItem,
    HintOut,
    JoinedOut,
    Language,
    LobbyOut,
    SeatKind,
    SeatOut,
    StateOut,
)

__all__ = [  # (what gotown.wire holds, for the server's code and tests that name it here)
    "LANGUAGES",
    "SEED_BITS",
    "ErrorBody",
    "ErrorOut",
    "GameStatus",
    "HintItem",
    "HintOut",
    "JoinedOut",
    "Language",
    "LobbyOut",
    "SeatKind",
    "SeatOut",
    "StateOut",
]
#: The most turns a game of this server may be limited to (R23 ``turn_limit``), and the ceiling
#: of every game it creates: one created with no limit (null) and a person's seat gets this one,
#: so that the server ends it at this turn with no winner (R23). The engine takes any number, but
#: a game is stored and replayed action by action, and its every full state holds every event: a
#: game without an end grows for ever. A game of people takes some tens of turns; ten thousand is
#: far beyond any of them.
MAX_TURN_LIMIT = 10_000
#: The turn limit of a table whose every seat is a bot, and the most it may ask for: nobody
#: plays there, and its bots take the server's CPU while it lasts.
BOTS_ONLY_TURN_LIMIT = 300
#: Turn-based tables (services/deadlines.py): the time a person has for each turn, in seconds.
MIN_PACE = 5 * 60
MAX_PACE = 14 * 24 * 3600
#: The paces the page offers in one tap: 1 hour, 12 hours, 1 day, 3 days.
PACES = (3600, 12 * 3600, 24 * 3600, 3 * 24 * 3600)
MAX_MISSED_LIMIT = 20


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _printable(value: str | None) -> str | None:
    """Refuse every character that is not printable (:meth:`str.isprintable`), the space aside:
    control characters and lone surrogates (which no database can store), but also invisible
    ones (a zero-width space, a byte order mark, a soft hyphen), those that reorder the text
    around them (U+202E), private-use, tag and unassigned characters, and every separator
    but the space (line breaks, no-break spaces)."""
    if value is not None and not value.isprintable():
        raise ValueError("only printable characters, please")
    return value


@functools.cache
def _printable_ranges() -> tuple[tuple[int, int], ...]:
    """The runs of code points :func:`_printable` admits, from this interpreter's Unicode
    database (the same set the server checks): one pass over every code point, in C (a tenth
    of a second; a loop in Python took one second at every import, half of a restart)."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    flags = bytes(map(str.isprintable, every))
    return tuple((m.start(), m.end() - 1) for m in re.finditer(b"\x01+", flags))


def _printable_class(with_space: bool) -> str:
    """A regular-expression class of the characters :func:`_printable` admits (with the space,
    or without)."""
    ranges: list[str] = []
    for start, end in _printable_ranges():
        runs = [(start, end)]
        if not with_space and start <= 32 <= end:
            runs = [(a, b) for a, b in ((start, 31), (33, end)) if a <= b]
        for a, b in runs:
            first, last = re.escape(chr(a)), re.escape(chr(b))
            ranges.append(first if a == b else f"{first}-{last}")
    return "[" + "".join(ranges) + "]"


@functools.cache
def printable_pattern() -> str:
    """What the schema says of an invitation code (the server checks it with
    :func:`_printable`): printable characters only. Made when the schema is first asked for
    (``/openapi.json``), never at import: a restart answers sooner."""
    return f"^{_printable_class(True)}*$"


@functools.cache
def name_pattern() -> str:
    """The same of a name, which holds a character that is not a space (the server also checks
    that it is not blank)."""
    return f"^ *{_printable_class(False)}{_printable_class(True)}*$"


def _printable_in_schema(schema: dict[str, Any]) -> None:
    schema["pattern"] = printable_pattern()


def _name_in_schema(schema: dict[str, Any]) -> None:
    schema["pattern"] = name_pattern()


def _whole_float(value: Any) -> Any:
    """A number like 3.0 as the whole number 3: JSON Schema's ``integer`` admits it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# --- input -----------------------------------------------------------------------------------


#: The longest bot level a client may name (a policy's ``ppo:NAME`` is at most 16).
MAX_LEVEL_LENGTH = 32


class SeatSpec(_In):
    kind: SeatKind = "human"
    level: str | None = Field(
        default=None,
        max_length=MAX_LEVEL_LENGTH,
        description="bot level, for a bot seat only (default medium)",
    )


class CreateGameIn(_In):
    seats: list[SeatSpec] = Field(min_length=2, max_length=4)
    options: dict[str, Any] = Field(
        default_factory=dict,
        description=f"R23 options; turn_limit: 1 to {MAX_TURN_LIMIT} turns, or null for the "
        f"server's ceiling: {MAX_TURN_LIMIT} turns with a person's seat, {BOTS_ONLY_TURN_LIMIT} "
        "(and at most that) when every seat is a bot (see /api/meta); the server ends the game "
        "when that turn ends, with no winner (R23)",
    )
    language: Language = "en"
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=24,
        description="the creator's name; the creator takes the first person seat",
        json_schema_extra=_name_in_schema,
    )
    pace: int | None = Field(
        default=None,
        ge=MIN_PACE,
        le=MAX_PACE,
        strict=True,
        description=f"a turn-based table: the seconds each person has for a turn ({MIN_PACE} to "
        f"{MAX_PACE}); null: a live table",
    )
    on_timeout: str | None = Field(
        default=None,
        max_length=24,
        json_schema_extra={"pattern": "^(end|bot:[a-z0-9:-]{1,20})$"},
        description='with a pace: what a missed turn does, "bot:LEVEL" (a bot of that level '
        'plays it for the seat; the default is "bot:medium") or "end" (the turn is ended)',
    )
    missed_limit: int | None = Field(
        default=None,
        ge=1,
        le=MAX_MISSED_LIMIT,
        strict=True,
        description="with a pace: missed turns in a row after which the bot keeps the seat "
        "until its person comes back (default 3)",
    )
    circle_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=32,
        json_schema_extra={"pattern": "^[A-Za-z0-9_-]+$"},
        description="a circle of friends of yours (X-Player-Key): the table counts for its "
        "ratings, and only its members (and bots) sit at it",
    )
    _name_is_printable = field_validator("name")(_printable)
    _seed_whole = field_validator("seed", "pace", "missed_limit", mode="before")(_whole_float)

    @field_validator("options", mode="before")
    @classmethod
    def _whole_options(cls, value: Any) -> Any:
        """An option's 300.0 is the whole number 300, as JSON Schema's ``integer`` and ``enum``
        admit it (the engine takes whole numbers only)."""
        if isinstance(value, dict):
            return {name: _whole_float(v) for name, v in value.items()}
        return value

    seed: int | None = Field(
        default=None,
        ge=0,
        lt=2**SEED_BITS,
        strict=True,
        description="for tests; refused unless the server allows it (GOTOWN_ALLOW_SEED)",
    )


class JoinIn(_In):
    code: str = Field(
        min_length=1,
        max_length=64,
        description="the invitation code",
        json_schema_extra=_printable_in_schema,
    )
    name: str = Field(min_length=1, max_length=24, json_schema_extra=_name_in_schema)
    seat: int | None = Field(default=None, ge=0, le=3, description="a free seat; any when null")

    _printable_fields = field_validator("code", "name")(_printable)


#: What ``events_from`` means, wherever a client may ask for it.
EVENTS_FROM = (
    "answer only the events from this index on (the number of the game's events the client "
    "already holds, from 0 to the game's event count); 0: every event"
)


class ActionIn(_In):
    version: int = Field(ge=0, strict=True, description="the game version the action was made on")
    action: dict[str, Any] = Field(
        description='an action in the FORMAT.md shape, e.g. {"type": "end-turn"}'
    )
    events_from: int = Field(
        default=0, ge=0, strict=True, description=f"for the state answered: {EVENTS_FROM}"
    )
    _whole = field_validator("version", "events_from", mode="before")(_whole_float)


class HandOverIn(_In):
    level: str = Field(default="medium", max_length=MAX_LEVEL_LENGTH)


# --- output ----------------------------------------------------------------------------------


class CreatedOut(BaseModel):
    game_id: str
    seat: int | None
    token: str | None
    play_url: str
    invite_url: str
    watch_url: str


class ChancesOut(BaseModel):
    """The seat's own estimated chance of winning (the win-probability bar)."""

    version: int = Field(description="the game version when asked")
    basis: Literal["turn", "after-turn", "none"] = Field(
        description="turn: now, on the seat's turn (with its best action); after-turn: after "
        "ending its last turn; none: the seat has not played a turn yet"
    )
    of_version: int | None = Field(description="the version of the position estimated")
    win_probability: float | None


class ReplayFrame(BaseModel):
    version: int
    seat: int | None = Field(description="who made the action that led here (null at the start)")
    action: dict[str, Any] | None
    view: dict[str, Any] = Field(description="the view after the action; events: only new ones")


class ReplayOut(BaseModel):
    game_id: str
    seat: int | None
    players: int
    names: list[str | None]
    frames: list[ReplayFrame]


class OptionOut(BaseModel):
    """One R23 option: its default, and either the values it takes or its integer range."""

    default: Any = Field(description="the value a game gets when the option is left out")
    choices: list[Any] | None = Field(
        default=None, description="every value the option takes (null: see minimum)"
    )
    minimum: int | None = Field(
        default=None, description="for an integer option without a list of choices: its least value"
    )
    maximum: int | None = Field(
        default=None,
        description="for an integer option without a list of choices: its greatest value",
    )
    nullable: bool = Field(
        default=False,
        description="null may be sent (for turn_limit: the server's ceiling, people_default or "
        "bots_only_default)",
    )
    people_default: Any = Field(
        default=None,
        description="what a game with a person's seat gets instead of null, when it differs "
        "(for turn_limit: the server's ceiling; the server ends the game there with no winner)",
    )
    bots_only_default: Any = Field(
        default=None,
        description="what a game whose every seat is a bot gets instead of null, when it differs",
    )


class CardOut(BaseModel):
    """One kind of card and what the rules say of it (the engine's ``Card``: R2, R5)."""

    code: str
    kind: int = Field(description="the engine's order of the kinds, the order of a hand")
    category: Literal["number", "joker", "special"]
    number: int | None = Field(description="a number card's number; null for the others")
    partner: str | None = Field(
        description="R5: the number card that makes nine with a number card (a joker stands "
        "for the partner of the number beside it); null for the others"
    )
    pair_colour: int | None = Field(
        description="R2: a number card's colour group, shared with its partner: 1 for 1/8, 2 "
        "for 2/7, 3 for 3/6, 4 for 4/5; null for the others"
    )
    rules: list[str] = Field(description="the rules that say what the card does")
    copies: int = Field(description="R2: how many the deck holds")


class ActionTypeOut(BaseModel):
    """What the rules say of one action type."""

    rule: str = Field(description="the rule that says what it does, which a refusal names")
    plays: Literal["cards", "card", "type"] | None = Field(
        description="where the hand cards it plays are named: the action's field cards (a "
        "build's two) or card (a steal-build's number), its type (a special card's code), or "
        "null: it plays none (the end of the turn)"
    )


class MetaOut(BaseModel):
    languages: list[str]
    bot_levels: list[str]
    options: dict[str, OptionOut] = Field(description="the R23 options, by name")
    joker_values: dict[str, int] = Field(
        description="R5: what a joker stands for in a floor, by its partner's code"
    )
    paces: list[int] = Field(
        default_factory=list,
        description="turn-based tables: the seconds per turn a page offers in one tap",
    )
    pace_range: list[int] = Field(
        default_factory=list, description="the shortest and the longest pace allowed (seconds)"
    )
    now: float = Field(default=0.0, description="the server's time, seconds since 1970 (UTC)")
    bot_ratings: dict[str, list[float]] = Field(
        default_factory=dict,
        description="each bot level's fixed rating [mu, sigma], on the scale people are rated",
    )
    cards: list[CardOut] = Field(
        default_factory=list, description="every kind of card, in the engine's kind order (R2)"
    )
    actions: dict[str, ActionTypeOut] = Field(
        default_factory=dict, description="each action type's rule and the hand cards it plays"
    )


class ReviewCardsOut(BaseModel):
    seat: int
    cards: list[str] = Field(description="the cards this seat drew, or its thief took")


class TurningPointOut(BaseModel):
    index: int = Field(
        description="the action's number in the record, from 0 (replay frame "
        "index + 1 is the position after it)"
    )
    turn: int
    seat: int = Field(description="the seat that acted")
    action: dict[str, Any]
    text: str = Field(description="the action in the engine's notation")
    swing: float = Field(description="how much this part of the action moved `who`'s chance")
    cause: Literal["decision", "draw", "theft"] = Field(
        description="what swung the game: the acting seat's choice, the cards drawn when the "
        "turn ended (R7b, R8), or the card a thief took (R16, R17)"
    )
    who: int = Field(description="the seat whose chance it moved most")
    before: float = Field(description="`who`'s chance before this part")
    after: float = Field(description="and after it")
    interval: list[float] = Field(description="95% interval of the change of `who`'s chance")
    futures: int = Field(description="the random futures the change was measured in")
    cards: list[ReviewCardsOut] = Field(description="a draw's or a theft's cards, by seat")
    description: str = Field(description="the turning point in English words")


class ReviewMistakeOut(BaseModel):
    index: int = Field(description="the action's number in the record, from 0")
    turn: int
    kind: Literal["a mistake", "a blunder"]
    played: dict[str, Any]
    best: dict[str, Any] = Field(description="the move the strong bot rated best")
    best_chance: float = Field(description="the seat's chance after the best move (what it knew)")
    played_chance: float | None = Field(description="and after the move played")
    loss: float = Field(description="the chance the move lost against the best (paired estimate)")
    interval: list[float] = Field(description="95% interval of the loss")
    futures: int = Field(description="the worlds dealt from the seat's view that judged it")
    size: str = Field(description="the loss in words: about 1 game in N")
    text: str = Field(description="the mistake in words, with the better move")


class ReviewOut(BaseModel):
    """The review of a finished game: each seat's chance after every action (every hand shown,
    as after the game, R22), the turning points, and the mistakes of ``seat`` (judged on what
    it knew; none when seat is null)."""

    game_id: str
    players: int
    seat: int | None = Field(description="the reviewed seat (its mistakes); null: none")
    winner: int | None
    reason: str | None = Field(description="how the game ended: win, stalemate, turn-limit")
    basis: str = Field(description="where the chances come from, to show with them")
    futures: int = Field(description="random futures played out from each position")
    chances: list[list[float]] = Field(
        description="chances[i][s]: seat s's chance to win after i actions (0: the start)"
    )
    turning_points: list[TurningPointOut] = Field(
        description="the parts of actions (a decision, a draw, a theft) that moved a seat's "
        "chance by at least 20 points, the largest five at most, in the order they happened"
    )
    mistakes: list[ReviewMistakeOut]
    iterations: int = Field(description="the random futures per position of the first pass")
    reviewed_actions: int = Field(description="how many actions were reviewed (all, up to a cap)")
    actions: int = Field(description="how many actions the game has")


# --- players, their devices and their notices (services/players.py, services/notices.py) -------


class PlayerIn(_In):
    name: str = Field(min_length=1, max_length=24, json_schema_extra=_name_in_schema)

    _name_is_printable = field_validator("name")(_printable)


class PlayerOut(BaseModel):
    player_id: str
    name: str


class PlayerKeyOut(PlayerOut):
    key: str = Field(description="this device's private key, shown once: send it as X-Player-Key")


class MyGameOut(BaseModel):
    game_id: str
    seat: int
    status: GameStatus
    players: int
    names: list[str | None] = Field(description="each seat's name (null: free or a bot)")
    kinds: list[SeatKind]
    your_turn: bool
    turn_seat: int | None = Field(description="whose turn it is (null: the lobby or over)")
    pace: int | None = Field(description="seconds a turn (null: a live table)")
    deadline: float | None = Field(description="the turn's deadline, seconds since 1970")
    updated: float | None = Field(description="the last change, seconds since 1970")
    play_url: str


class MyGamesOut(BaseModel):
    now: float = Field(description="the server's time (for the time left)")
    games: list[MyGameOut] = Field(description="your turn first, then the nearest deadline")


class DeviceLinkOut(BaseModel):
    id: str
    created: float
    revoked: float | None
    devices: int = Field(description="devices this link gave a key, not revoked")
    url: str | None = Field(
        default=None, description="the link itself: only when it is made (it is not kept)"
    )


class PushKeyOut(BaseModel):
    application_server_key: str = Field(description="the server's VAPID public key (base64url)")
    mail: bool = Field(description="whether this server sends e-mail")


class PushKeysIn(_In):
    p256dh: str = Field(min_length=1, max_length=128)
    auth: str = Field(min_length=1, max_length=64)


class PushSubscriptionIn(_In):
    """A browser's ``PushSubscription.toJSON()``, and the language of its notices."""

    endpoint: str = Field(min_length=1, max_length=2048)
    keys: PushKeysIn
    expirationTime: float | None = Field(  # noqa: N815 (the browser's name)
        default=None, description="as the browser gives it (unused)"
    )
    language: Language = "en"


class EmailIn(_In):
    email: str = Field(min_length=3, max_length=254)
    language: Language = "en"


class SubscriptionOut(BaseModel):
    id: int
    kind: Literal["push", "email"]
    language: str
    host: str | None = Field(default=None, description="a push subscription's service")
    email: str | None = None


class ClockIn(_In):
    advance: float = Field(gt=0, le=10 * 365 * 24 * 3600, description="seconds to move on")


class ClockOut(BaseModel):
    now: float
    offset: float


# --- circles of friends and their ratings (services/circles.py) --------------------------------


class CircleIn(_In):
    name: str = Field(min_length=1, max_length=24, json_schema_extra=_name_in_schema)

    _name_is_printable = field_validator("name")(_printable)


class JoinCircleIn(_In):
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=24,
        json_schema_extra=_name_in_schema,
        description="your name in the circle (unique in it); your player's name when left out",
    )

    _name_is_printable = field_validator("name")(_printable)


class RatingOut(BaseModel):
    mu: float
    sigma: float
    games: int = 0
    ordinal: float = Field(description="mu - 3 sigma: what the leaderboard sorts by")


class CircleOut(BaseModel):
    circle_id: str
    name: str
    creator_id: str
    invite_url: str = Field(description="the link that joins the circle (for its members only)")


class MemberOut(BaseModel):
    player_id: str
    name: str
    you: bool
    rating: RatingOut | None


class LeaderOut(BaseModel):
    name: str
    player_id: str | None = Field(description="a member's; null for a bot level")
    level: str | None = Field(description="a bot level's (its fixed rating); null for a member")
    rating: RatingOut


class CircleTableOut(BaseModel):
    game_id: str
    status: GameStatus
    play_url: str
    invite_url: str | None = Field(
        description="while it waits for people (lobby): its invitation link, which only the "
        "circle's members may use (a circle's page is theirs alone)"
    )


class CircleDetailOut(CircleOut):
    members: list[MemberOut]
    tables: list[CircleTableOut] = Field(description="its tables under way")
    leaderboard: list[LeaderOut] = Field(
        description="members by rating (mu - 3 sigma), with the bot levels for scale"
    )


class CirclePreviewOut(BaseModel):
    """What the holder of a circle's link sees before joining it: its name."""

    name: str
    members: int


class RatingChangeOut(BaseModel):
    seat: int
    player_id: str
    circle: bool = Field(description="the circle's rating (else the one over all games)")
    before: RatingOut
    after: RatingOut


class GameRatingsOut(BaseModel):
    game_id: str
    rated: bool = Field(description="whether this game counted for ratings")
    changes: list[RatingChangeOut]


class HeadToHeadOut(BaseModel):
    kind: Literal["person", "bot"]
    opponent: str
    games: int
    wins: int
    losses: int


class PlayerPageOut(BaseModel):
    player_id: str
    name: str
    rating: RatingOut | None
    plays_like: str | None = Field(description="the bot level whose rating is nearest")
    games: int
    wins_by_players: dict[str, dict[str, int]]
    history: list[dict[str, Any]] = Field(description="the rating after each rated game")
    head_to_head: list[HeadToHeadOut]
    cards: list[dict[str, Any]] = Field(description="the special cards played, most first")
    floors_built: int
    recent: list[dict[str, Any]]
