"""JavaScript object key order, which XState's document order is built on.

`Object.keys` lists integer-like keys (canonical array indices, 0 .. 2**32 - 2) first, in
ascending numeric order, then every other key in insertion order. `json.loads` keeps
textual order, so every place that walks config keys must re-sort them like this.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

V = TypeVar("V")

_MAX_ARRAY_INDEX = 2**32 - 2


def is_array_index(key: str) -> bool:
    """True when `key` is a canonical array index, which JS orders before other keys."""
    if not isinstance(key, str) or not key or not key.isdigit() or not key.isascii():
        return False
    if len(key) > 1 and key[0] == "0":
        return False
    return int(key) <= _MAX_ARRAY_INDEX


def js_keys(keys: Iterable[str]) -> list[str]:
    """The keys in `Object.keys` order (non-string keys, as YAML can give, are not indices)."""
    keys = list(keys)
    # An index starts with a digit: the first character rules out almost every key at once.
    indices = sorted((k for k in keys if isinstance(k, str) and k[:1].isdigit() and is_array_index(k)), key=int)
    if not indices:
        return keys
    return indices + [k for k in keys if not is_array_index(k)]


def js_items(mapping: Mapping[str, V]) -> list[tuple[str, V]]:
    """The items of `mapping` in `Object.keys` order."""
    return [(k, mapping[k]) for k in js_keys(mapping)]
