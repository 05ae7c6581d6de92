"""``/api/meta``: what a client needs to offer a new game."""

from __future__ import annotations

from fastapi import APIRouter

from gotown.engine import (
    ACTION_RULES,
    CARDS,
    JOKER_VALUES,
    OPTION_CHOICES,
    PLAYED_FROM,
    Options,
)

from ... import schemas
from ...services.bots import BOTS_ONLY_TURN_LIMIT
from ...services.circles import bot_ratings
from ..deps import Service

router = APIRouter(prefix="/api")


def option_meta() -> dict[str, schemas.OptionOut]:
    """Every R23 option with its default and the values it takes."""
    defaults = Options()
    meta = {
        name: schemas.OptionOut(default=getattr(defaults, name), choices=list(choices))
        for name, choices in OPTION_CHOICES.items()
    }
    meta["turn_limit"] = schemas.OptionOut(
        default=defaults.turn_limit,
        minimum=1,
        maximum=schemas.MAX_TURN_LIMIT,
        nullable=True,
        people_default=schemas.MAX_TURN_LIMIT,
        bots_only_default=BOTS_ONLY_TURN_LIMIT,
    )
    return meta


def card_meta() -> list[schemas.CardOut]:
    """The engine's card table (R2, R5), in kind order."""
    return [schemas.CardOut.model_validate(card.to_json()) for card in CARDS.values()]


def action_meta() -> dict[str, schemas.ActionTypeOut]:
    """Each action type's rule and where the hand cards it plays are named (the engine's)."""
    return {
        kind: schemas.ActionTypeOut(rule=rule, plays=PLAYED_FROM[kind])
        for kind, rule in ACTION_RULES.items()
    }


@router.get("/meta", response_model=schemas.MetaOut)
async def meta(service: Service) -> schemas.MetaOut:
    """Languages, bot levels (with the trained policies ``ppo:NAME`` this server seats), the
    R23 options (each one's default and the values it takes), what a joker stands for (R5),
    the card table and each action's rule: the page states none of them itself."""
    return schemas.MetaOut(
        languages=list(schemas.LANGUAGES),
        bot_levels=service.bots.levels(),
        options=option_meta(),
        joker_values=dict(JOKER_VALUES),
        paces=list(schemas.PACES),
        pace_range=[schemas.MIN_PACE, schemas.MAX_PACE],
        now=service.clock.time(),
        bot_ratings={level: list(r) for level, r in bot_ratings().items()},
        cards=card_meta(),
        actions=action_meta(),
    )
