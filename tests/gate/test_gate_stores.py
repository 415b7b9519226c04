"""Every store honours the same versioned compare-and-set contract."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from statekit.gate import (
    MemoryStore,
    RedisStore,
    ScanStore,
    SQLiteStore,
    StateStore,
    StoreConflict,
)


class FakeClock:
    """A settable clock, so TTL tests never sleep."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "sqlite", "redis"])
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[StateStore]:
    if request.param == "memory":
        yield MemoryStore()
    elif request.param == "sqlite":
        sqlite_store = SQLiteStore(tmp_path / "gate.db")
        yield sqlite_store
        sqlite_store.close()
    else:
        url = request.getfixturevalue("redis_url")
        redis_store = RedisStore.from_url(url, key_prefix=f"test:{id(request)}:")
        yield redis_store
        await redis_store.aclose()


async def test_unknown_handle_loads_none(store: StateStore) -> None:
    assert await store.load("nobody") is None


async def test_create_then_update_moves_the_version(store: StateStore) -> None:
    first = await store.save("h", '{"n": 1}', None)
    assert await store.load("h") == ('{"n": 1}', first)
    second = await store.save("h", '{"n": 2}', first)
    assert second != first
    assert await store.load("h") == ('{"n": 2}', second)


async def test_create_over_existing_handle_conflicts(store: StateStore) -> None:
    version = await store.save("h", "{}", None)
    with pytest.raises(StoreConflict) as caught:
        await store.save("h", '{"x": 1}', None)
    assert caught.value.actual_version == version
    assert await store.load("h") == ("{}", version)


async def test_stale_version_conflicts_and_keeps_the_winner(store: StateStore) -> None:
    version = await store.save("h", '"a"', None)
    winner = await store.save("h", '"b"', version)
    with pytest.raises(StoreConflict) as caught:
        await store.save("h", '"c"', version)
    assert caught.value.expected_version == version
    assert caught.value.actual_version == winner
    assert await store.load("h") == ('"b"', winner)


async def test_update_of_absent_handle_conflicts(store: StateStore) -> None:
    with pytest.raises(StoreConflict):
        await store.save("ghost", "{}", 7)


async def test_concurrent_writers_from_one_version_have_one_winner(store: StateStore) -> None:
    version = await store.save("race", '"start"', None)

    async def attempt(index: int) -> bool:
        try:
            await store.save("race", f'"writer {index}"', version)
        except StoreConflict:
            return False
        return True

    outcomes = await asyncio.gather(*(attempt(i) for i in range(20)))
    assert outcomes.count(True) == 1
    loaded = await store.load("race")
    assert loaded is not None
    assert loaded[0] == f'"writer {outcomes.index(True)}"'


async def test_memory_ttl_expires_and_versions_never_repeat() -> None:
    clock = FakeClock()
    store = MemoryStore(ttl_seconds=10, clock=clock)
    old = await store.save("h", "{}", None)
    clock.now += 11
    assert await store.load("h") is None
    new = await store.save("h", "{}", None)
    assert new != old
    with pytest.raises(StoreConflict):
        await store.save("h", "{}", old)


async def test_sqlite_ttl_expires_and_purges(tmp_path: Path) -> None:
    clock = FakeClock()
    store = SQLiteStore(tmp_path / "ttl.db", ttl_seconds=10, clock=clock)
    old = await store.save("h", "{}", None)
    clock.now += 5
    assert await store.load("h") == ("{}", old)
    clock.now += 6
    assert await store.load("h") is None
    recreated = await store.save("h", "{}", None)
    assert recreated > old
    clock.now += 11
    assert store.purge_expired() == 1
    store.close()


async def test_sqlite_is_shared_between_connections(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    writer, reader = SQLiteStore(path), SQLiteStore(path)
    version = await writer.save("h", '"x"', None)
    assert await reader.load("h") == ('"x"', version)
    with pytest.raises(StoreConflict):
        await reader.save("h", '"y"', None)
    writer.close()
    reader.close()


async def test_redis_ttl_sets_key_expiry(redis_url: str) -> None:
    store = RedisStore.from_url(redis_url, key_prefix="ttl-test:", ttl_seconds=30)
    await store.save("h", "{}", None)
    ttl_ms = await store._client.pttl("ttl-test:h")
    assert 0 < ttl_ms <= 30_000
    persistent = RedisStore.from_url(redis_url, key_prefix="ttl-test:")
    loaded = await persistent.load("h")
    assert loaded is not None
    await persistent.save("h", "{}", loaded[1])
    assert await store._client.pttl("ttl-test:h") == -1
    await store.aclose()
    await persistent.aclose()


def test_stores_satisfy_the_protocol(tmp_path: Path) -> None:
    sqlite_store = SQLiteStore(tmp_path / "p.db")
    assert isinstance(MemoryStore(), StateStore)
    assert isinstance(sqlite_store, StateStore)
    sqlite_store.close()


async def test_keys_and_compare_and_delete(store: StateStore) -> None:
    assert isinstance(store, ScanStore)
    first = await store.save("wf/handle:a_%", "{}", None)
    await store.save("wf/handle:b", "{}", None)
    await store.save("other/handle:c", "{}", None)
    assert sorted([key async for key in store.keys("wf/")]) == ["wf/handle:a_%", "wf/handle:b"]
    # LIKE / glob metacharacters in the prefix are literal.
    assert [key async for key in store.keys("wf/handle:a_")] == ["wf/handle:a_%"]
    assert [key async for key in store.keys("wf/handle:_")] == []
    with pytest.raises(StoreConflict):
        await store.delete("wf/handle:a_%", first + 100)
    assert await store.delete("wf/handle:a_%", first)
    assert not await store.delete("wf/handle:a_%")
    assert await store.delete("wf/handle:b")
    assert await store.load("wf/handle:b") is None
    assert await store.delete("other/handle:c")


async def test_memory_store_is_bounded_least_recently_used_first() -> None:
    store = MemoryStore(max_entries=2)
    await store.save("a", "1", None)
    await store.save("b", "2", None)
    assert await store.load("a") is not None  # `a` is now the most recently used
    await store.save("c", "3", None)
    assert len(store) == 2
    assert await store.load("b") is None
    assert await store.load("a") is not None and await store.load("c") is not None
    with pytest.raises(ValueError):
        MemoryStore(max_entries=0)
