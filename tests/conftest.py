"""Shared pytest settings: a deterministic, database-less Hypothesis profile for CI; and what
tests of hidden information share."""

from __future__ import annotations

import gc
import types
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "gotown",
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("gotown")


#: Not entered: code, which is pickled by its name and can import anything anyway. Through a
#: function's globals every loaded module (and any game a test module keeps) would count as
#: handed over.
_CODE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def _reachable(*roots: object) -> Iterator[object]:
    """Every piece of data reachable from ``roots`` (through what the garbage collector sees of
    them: attributes, items, closures, a bound method's object), each once."""
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        item = todo.pop()
        if id(item) in seen or isinstance(item, _CODE):
            continue
        seen.add(id(item))
        yield item
        todo.extend(gc.get_referents(item))


@pytest.fixture
def reachable() -> Callable[..., Iterator[object]]:
    """:func:`_reachable`: what a piece of code handed ``roots`` can get to, e.g. to show that
    a bot handed a view can get to no hidden card."""
    return _reachable
