"""The wire schemas that the server and its clients share: what the web table's HTTP API and
its WebSocket ``/ws/games/{id}`` send, and what a client sends on that socket.

The server answers with these models (:mod:`gotown.server.schemas` re-exports them) and the
terminal's remote client (:mod:`gotown.tui.client`) reads its answers and messages with them,
so that neither states the protocol again. Depends on pydantic and the data of
:mod:`gotown.texts` only. Views, actions and events keep the engine's JSON shapes (FORMAT.md,
docs/engine-api.md) and pass through as plain objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from gotown import texts

#: The languages of the table and of its rules pages (stated once, in :mod:`gotown.texts`).
LANGUAGES = texts.LANGUAGES
if TYPE_CHECKING:
    Language = str
else:
    Language = Literal[LANGUAGES]  # the schema's enum of LANGUAGES
SeatKind = Literal["human", "bot"]
GameStatus = Literal["lobby", "playing", "over"]


class ErrorBody(BaseModel):
    code: str
    message: str
    rule: str | None = None


class ErrorOut(BaseModel):
    error: ErrorBody


class SeatOut(BaseModel):
    seat: int
    kind: SeatKind
    level: str | None
    name: str | None
    taken: bool
    connected: bool
    handover_in: int | None = Field(
        default=None,
        description="for a person's seat that is away: the seconds until another seated person "
        "may hand it to a bot (0: now; see absent_seconds); null for a free seat, a bot's, or a "
        "connected person's",
    )
    missed: int = Field(default=0, description="turn-based tables: turns missed in a row")
    standin: bool = Field(
        default=False, description="a bot plays this person's turn: its time ran out"
    )


class LobbyOut(BaseModel):
    game_id: str
    status: GameStatus
    players: int
    options: dict[str, Any]
    language: Language
    seats: list[SeatOut]
    invite_url: str | None = Field(
        description="the invitation link: for the game's seats and the code's holders only"
    )
    watch_url: str
    rematch_id: str | None = None
    rematch_of: str | None = None
    pace: int | None = Field(default=None, description="seconds a turn (null: a live table)")
    circle_id: str | None = Field(default=None, description="the circle it counts for")
    on_timeout: str | None = None
    missed_limit: int | None = None
    deadline: float | None = Field(
        default=None,
        description="the turn under way's deadline, in seconds since 1970 (UTC; the server's "
        "time is /api/meta's `now`); null: none",
    )


class JoinedOut(BaseModel):
    game_id: str
    seat: int
    token: str
    play_url: str


class StateOut(BaseModel):
    """Everything one seat (or a spectator, seat null) may see now."""

    game_id: str
    status: GameStatus
    seat: int | None
    version: int
    lobby: LobbyOut
    view: dict[str, Any] | None = Field(
        description="game.view(seat) as JSON, its events from events_from on; null in the lobby"
    )
    events_from: int = Field(
        default=0,
        ge=0,
        description="the index, in the whole list of the game's events (the same for every "
        "seat), of the first event in view.events: 0 when view.events holds every event (and "
        "in the lobby); N when it holds only the events from N on, which follow the N events "
        "the client already holds",
    )
    legal: list[dict[str, Any]] = Field(description="the legal actions of this seat now")
    frozen_turns: int | None = Field(
        default=None,
        description="how many turns in a row, up to the one under way, held nothing but their "
        "end (View.frozen_turns: public events only, the same for every seat); null in the lobby",
    )


class HintItem(BaseModel):
    action: dict[str, Any]
    win_probability: float


class HintOut(BaseModel):
    version: int
    hints: list[HintItem]


# --- the socket's messages (gotown/server/api/socket.py) ------------------------------------


class StateMessage(BaseModel):
    """What the socket sends when it opens and after every change."""

    type: Literal["state"]
    state: StateOut


class ErrorMessage(BaseModel):
    """A refusal on the socket: an action the rules refuse, a message the server does not take."""

    type: Literal["error"]
    error: ErrorBody


class PongMessage(BaseModel):
    """The answer to a client's ``{"type": "ping"}``."""

    type: Literal["pong"]


ServerMessage = Annotated[StateMessage | ErrorMessage | PongMessage, Field(discriminator="type")]
_SERVER_MESSAGE: TypeAdapter[StateMessage | ErrorMessage | PongMessage] = TypeAdapter(ServerMessage)


def read_message(text: str | bytes) -> StateMessage | ErrorMessage | PongMessage:
    """A message of the socket, typed; ``pydantic.ValidationError`` for one that is none."""
    return _SERVER_MESSAGE.validate_json(text)


class HelloMessage(BaseModel):
    """A client's first message on the socket: its seat's secret token (None: to watch), or
    a device's player ``key`` with a null token; ``events_from``: the events it holds."""

    token: str | None
    key: str | None = None
    events_from: int = Field(default=0, ge=0)

    def text(self) -> str:
        """The message as sent: what is left at its default is left out."""
        return self.model_dump_json(exclude_defaults=True)


class ActionMessage(BaseModel):
    """An action on the socket: an ``ActionIn`` (the HTTP action's body) with its type."""

    type: Literal["action"] = "action"
    version: int = Field(ge=0)
    action: dict[str, Any]
