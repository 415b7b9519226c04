"""Live machines against the attacks of issue 21: quotas, tenancy, atomicity, reclaim, store faults.

Each test reproduces an attack that worked on e361e51: one caller started 98 machines of ~0.9 MB
(none refused); a second bearer token could step and stop the first one's machine; the memory
store's LRU let one tenant evict another's handles; a `ttlSeconds: 1` record stayed in every
store for 7 days; `send_events` answering `output_too_large` had already saved its events; a
corrupted SQLite file answered `internal_error`. The servers here are real: `statekit serve
--http` with two bearer tokens driven by the official SDK client, real SQLite files and a real
redis-server (tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from local_services import free_port, wait_for_port
from statekit import budget
from statekit.errors import ToolError
from statekit.gate.redis_store import RedisStore
from statekit.gate.sqlite_store import SQLiteStore
from statekit.gate.store import MemoryStore, OwnedStore, Quota, QuotaExceeded
from statekit.live import LiveMachines
from statekit.live.service import KEY_PREFIX
from statekit.tools import call
from statekit.tools.live_tools import live_machines, runnable_machine
from statekit.tools.registry import ToolContext

TOKEN_A = "tenant-a-token-0123456789abcdef"
TOKEN_B = "tenant-b-token-0123456789abcdef"
TOGGLE: dict[str, Any] = {"id": "toggle", "initial": "off",
                          "states": {"off": {"on": {"FLIP": "on"}}, "on": {"on": {"FLIP": "off"}}}}
#: Each GROW appends 20,000 characters to the context: the answer grows faster than the input.
GROWER: dict[str, Any] = {
    "id": "grower", "initial": "on", "context": {"log": []},
    "states": {"on": {"on": {"GROW": {"actions": {"type": "xstate.assign", "assignment": {"log": {
        "$js": "({ context }) => [...context.log, 'x'.repeat(20000)]"}}}}}}},
}


def big_machine(size: int) -> dict[str, Any]:
    """A valid machine of about `size` bytes (the bulk is context data)."""
    return {**TOGGLE, "context": {"blob": "y" * size}}


def code_of(name: str, arguments: dict[str, Any], context: ToolContext) -> str:
    with pytest.raises(ToolError) as raised:
        call(name, arguments, context=context)
    return raised.value.code


# -- quotas ---------------------------------------------------------------------------------


def test_one_caller_cannot_fill_the_server_with_big_machines() -> None:
    """The attack as reported: 98 machines of ~0.9 MB from one caller. With the defaults (64 MiB)
    the caller is refused once its machines would pass the quota, with a code and a way out."""
    context = ToolContext()
    machine = big_machine(900_000)
    started, refused = [], []
    for _ in range(98):
        try:
            started.append(call("start_machine", {"machine": machine}, context=context)["machineHandle"])
        except ToolError as error:
            refused.append(error)
    # A record holds the machine and its snapshot (~1.8 MB here): about 37 fit in 64 MiB.
    assert 30 <= len(started) < 98 and len(refused) == 98 - len(started)
    assert {error.code for error in refused} == {"quota_exceeded"}
    assert refused[0].details["limit"] == "bytes" and "stop_machine" in refused[0].message
    assert "--live-max-bytes" in refused[0].message
    records, held = asyncio.run(live_machines(context).store.usage("local"))
    assert records == len(started) and held <= context.live_max_bytes
    # Stopping one makes room again.
    call("stop_machine", {"machineHandle": started[0]}, context=context)
    call("start_machine", {"machine": machine}, context=context)


def test_the_count_quota_is_per_principal() -> None:
    alice = ToolContext(live_max_machines=3)
    bob = dataclasses.replace(alice, principal="bob")
    handles = [call("start_machine", {"machine": TOGGLE}, context=alice)["machineHandle"] for _ in range(3)]
    with pytest.raises(ToolError) as raised:
        call("start_machine", {"machine": TOGGLE}, context=alice)
    assert raised.value.code == "quota_exceeded" and raised.value.details["limit"] == "records"
    assert "--live-max-machines" in raised.value.message
    call("start_machine", {"machine": TOGGLE}, context=bob)  # bob's own quota is untouched
    call("stop_machine", {"machineHandle": handles[0]}, context=alice)
    call("start_machine", {"machine": TOGGLE}, context=alice)


def test_the_quota_test_catches_a_service_that_forgets_the_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant the forgetting: a service made without the context's quota lets the fourth start in."""
    monkeypatch.setattr("statekit.tools.live_tools.Quota", lambda **limits: Quota())
    with pytest.raises(pytest.fail.Exception):
        test_the_count_quota_is_per_principal()


def test_the_quota_holds_under_concurrent_starts_on_a_shared_store(tmp_path: Path) -> None:
    """Two services (two server processes' worth) on one SQLite file: the quota is checked in the
    store's transaction, so racing starts never pass it together."""
    import threading

    url = f"sqlite://{tmp_path / 'quota.db'}"
    services = [live_machines(ToolContext(store_url=url, live_max_machines=5)) for _ in range(2)]
    outcomes: list[str] = []
    lock = threading.Lock()

    def starter(service: LiveMachines) -> None:
        for _ in range(6):
            try:
                service.start(TOGGLE, principal="p")
                outcome = "ok"
            except ToolError as error:
                outcome = error.code
            with lock:
                outcomes.append(outcome)

    threads = [threading.Thread(target=starter, args=(services[i % 2],)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert outcomes.count("ok") == 5 and outcomes.count("quota_exceeded") == 19


# -- tenancy ----------------------------------------------------------------------------------


def test_another_principal_cannot_see_send_or_stop_a_machine() -> None:
    alice = ToolContext()
    bob = dataclasses.replace(alice, principal="token:bob")
    handle = call("start_machine", {"machine": TOGGLE}, context=alice)["machineHandle"]
    unknown = "lm_" + "x" * 22
    for name, arguments in [("send_events", {"machineHandle": handle, "events": ["FLIP"]}),
                            ("get_machine_snapshot", {"machineHandle": handle}),
                            ("stop_machine", {"machineHandle": handle})]:
        with pytest.raises(ToolError) as theirs:
            call(name, arguments, context=bob)
        with pytest.raises(ToolError) as nobodys:
            call(name, {**arguments, "machineHandle": unknown}, context=bob)
        # Exactly what an unknown handle answers: nothing tells bob the machine exists.
        assert theirs.value.to_dict() == nobodys.value.to_dict()
        assert theirs.value.code == "not_found"
    assert call("get_machine_snapshot", {"machineHandle": handle}, context=alice)["snapshot"]["value"] == "off"


def test_a_record_saved_before_owners_were_kept_is_the_local_principals() -> None:
    import json

    store = MemoryStore()
    live = LiveMachines(store, runnable_machine, sweep_seconds=None)
    handle = live.start(TOGGLE)["machineHandle"]
    key = KEY_PREFIX + handle
    text, version = asyncio.run(store.load(key)) or ("", 0)
    record = json.loads(text)
    del record["owner"]
    asyncio.run(store.save(key, json.dumps(record), version))  # as an older statekit wrote it
    assert live.send(handle, ["FLIP"])["snapshot"]["value"] == "on"
    with pytest.raises(ToolError) as raised:
        live.send(handle, ["FLIP"], principal="token:someone")
    assert raised.value.code == "not_found"


# -- eviction ---------------------------------------------------------------------------------


async def test_a_full_memory_store_never_evicts_another_owners_records() -> None:
    store = MemoryStore(max_entries=4)
    for index in range(3):
        await store.save(f"a{index}", "{}", None, owner="alice")
    await store.save("b0", "{}", None, owner="bob")
    await store.save("b1", "{}", None, owner="bob")  # full: bob gives up his own oldest
    assert await store.load("b0") is None and await store.load("b1") is not None
    assert all([await store.load(f"a{index}") is not None for index in range(3)])
    await store.delete("b1")
    await store.save("a3", "{}", None, owner="alice")  # full again, of alice's records only
    with pytest.raises(QuotaExceeded) as raised:
        await store.save("c0", "{}", None, owner="carol")  # carol has nothing of her own to give up
    assert raised.value.limit == "capacity"
    assert [await store.usage(owner) for owner in ("alice", "bob", "carol")] == [(4, 8), (0, 0), (0, 0)]


def test_live_machines_of_one_tenant_survive_another_filling_the_store() -> None:
    live = LiveMachines(MemoryStore(max_entries=6), runnable_machine, sweep_seconds=None)
    mine = [live.start(TOGGLE, principal="alice")["machineHandle"] for _ in range(3)]
    for _ in range(20):
        try:
            live.start(TOGGLE, principal="mallory")
        except ToolError as error:
            assert error.code == "quota_exceeded"
    assert [live.get(handle, principal="alice")["snapshot"]["value"] for handle in mine] == ["off"] * 3


# -- atomicity ----------------------------------------------------------------------------------


def grown(context: ToolContext, handle: str) -> int:
    return len(call("get_machine_snapshot", {"machineHandle": handle}, context=context)["snapshot"]["context"]["log"])


def test_send_events_that_answers_output_too_large_commits_nothing() -> None:
    """5 events whose steps fit the output limit but whose whole answer (steps and snapshot) does
    not: the answer is `output_too_large` and the machine has not moved; a retry with room applies
    the five events once."""
    roomy = ToolContext(max_output_bytes=16 * 1024 * 1024)
    tight = dataclasses.replace(roomy, max_output_bytes=360_000)
    handle = call("start_machine", {"machine": GROWER}, context=roomy)["machineHandle"]
    with pytest.raises(ToolError) as raised:
        call("send_events", {"machineHandle": handle, "events": ["GROW"] * 5}, context=tight)
    assert raised.value.code == "output_too_large"
    assert grown(roomy, handle) == 0
    call("send_events", {"machineHandle": handle, "events": ["GROW"] * 5}, context=roomy)
    assert grown(roomy, handle) == 5


def test_the_atomicity_test_catches_a_commit_before_the_size_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant the forgetting: with the pre-commit size check gone, the test above sees the events
    applied by a call that answered an error."""
    monkeypatch.setattr("statekit.live.service.check_result_size", lambda result: None)
    with pytest.raises(AssertionError):
        test_send_events_that_answers_output_too_large_commits_nothing()


def test_start_machine_that_answers_an_error_leaves_no_record() -> None:
    context = ToolContext(max_output_bytes=100_000)
    assert code_of("start_machine", {"machine": big_machine(200_000)}, context) == "output_too_large"
    assert asyncio.run(live_machines(context).store.usage("local")) == (0, 0)


def test_a_call_past_its_deadline_commits_nothing() -> None:
    live = LiveMachines(MemoryStore(), runnable_machine, sweep_seconds=None)
    handle = live.start(GROWER)["machineHandle"]
    spent = budget.CallBudget(seconds=0.001)
    with budget.running(spent):
        time.sleep(0.01)
        with pytest.raises(budget.BudgetStop):
            live.send(handle, ["GROW"])
    assert live.get(handle)["snapshot"]["context"]["log"] == []


class SlowStore(MemoryStore):
    """A memory store whose saves take `delay` seconds (a store that stalls mid-call)."""

    delay = 0.0

    async def save(self, *args: Any, **kwargs: Any) -> int:  # type: ignore[override]
        await asyncio.sleep(self.delay)
        return await super().save(*args, **kwargs)


def test_a_save_still_in_flight_at_the_deadline_answers_upstream_timeout_not_deadline_exceeded() -> None:
    """`deadline_exceeded` promises nothing was committed; a save the store has not answered by
    then might still land, so the call says so (`upstream_timeout`) before the server's grace."""
    store = SlowStore()
    live = LiveMachines(store, runnable_machine, sweep_seconds=None)
    handle = live.start(GROWER)["machineHandle"]
    store.delay = 4.0
    with budget.running(budget.CallBudget(seconds=0.2)), pytest.raises(ToolError) as raised:
        live.send(handle, ["GROW"])
    assert raised.value.code == "upstream_timeout" and "may have been saved" in raised.value.message
    live.close()


# -- reclaim ------------------------------------------------------------------------------------


def until(condition: Callable[[], bool], *, attempts: int = 600, pause: float = 0.05) -> bool:
    """Poll `condition` a bounded number of times (a bound on waiting, not a speed assertion)."""
    for _ in range(attempts):
        if condition():
            return True
        time.sleep(pause)
    return condition()


def test_expired_machines_are_swept_from_memory() -> None:
    store = MemoryStore()
    live = LiveMachines(store, runnable_machine, sweep_seconds=0.1)
    live.start(TOGGLE, ttl_seconds=1)
    kept = live.start(TOGGLE, ttl_seconds=3600)["machineHandle"]
    assert len(store) == 2
    assert until(lambda: len(store) == 1)
    assert live.get(kept)["snapshot"]["value"] == "off"
    live.close()


def test_expired_machines_are_swept_from_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "live.db"
    live = LiveMachines(SQLiteStore(path), runnable_machine, sweep_seconds=0.1)
    live.start(TOGGLE, ttl_seconds=1)
    live.start(TOGGLE, ttl_seconds=3600)

    def rows() -> int:
        with sqlite3.connect(path) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM statekit_gate_state").fetchone()[0])

    assert rows() == 2
    assert until(lambda: rows() == 1)
    live.close()


async def test_a_memory_sweep_does_bounded_work_behind_stale_entries() -> None:
    """A record saved again leaves its old expiry entry behind; a sweep looks at no more than its
    limit of entries, says so, and the next ones reach the expired record."""
    now = [1000.0]
    store = MemoryStore(clock=lambda: now[0])
    version = await store.save("busy", "{}", None, ttl_seconds=1)
    for _ in range(25):
        version = await store.save("busy", "{}", version, ttl_seconds=1)
    now[0] += 2
    assert [await store.sweep_expired(10) for _ in range(4)] == [10, 10, 6, 0]
    assert len(store) == 0


def test_a_sqlite_sweep_does_bounded_work(tmp_path: Path) -> None:
    now = [1000.0]
    store = SQLiteStore(tmp_path / "bounded.db", clock=lambda: now[0])
    for index in range(25):
        asyncio.run(store.save(f"k{index}", "{}", None, ttl_seconds=1))
    now[0] += 2
    assert [asyncio.run(store.sweep_expired(10)) for _ in range(4)] == [10, 10, 5, 0]


async def test_expired_machines_expire_natively_in_redis(redis_url: str) -> None:
    import redis.asyncio

    store = RedisStore.from_url(redis_url, key_prefix="reclaim-test:")
    live = LiveMachines(store, runnable_machine, sweep_seconds=None)
    short = (await asyncio.to_thread(live.start, TOGGLE, ttl_seconds=1))["machineHandle"]
    long = (await asyncio.to_thread(live.start, TOGGLE, ttl_seconds=3600))["machineHandle"]
    client = redis.asyncio.Redis.from_url(redis_url)
    try:
        assert 0 < await client.pttl(f"reclaim-test:{KEY_PREFIX}{short}") <= 1000
        assert 3_500_000 < await client.pttl(f"reclaim-test:{KEY_PREFIX}{long}") <= 3_600_000

        async def raw_keys() -> set[bytes]:
            # DBSIZE-like: KEYS lists a key until Redis has reclaimed it (or a read found it expired).
            return set(await client.keys("reclaim-test:*"))

        for _ in range(600):
            if f"reclaim-test:{KEY_PREFIX}{short}".encode() not in await raw_keys():
                break
            await asyncio.sleep(0.05)
        assert f"reclaim-test:{KEY_PREFIX}{short}".encode() not in await raw_keys()
        assert f"reclaim-test:{KEY_PREFIX}{long}".encode() in await raw_keys()
        records, _held = await asyncio.to_thread(live._bridge.run, store.usage("local"))
        assert records == 1  # the expired one no longer counts against the quota
    finally:
        await client.aclose()
        live.close()


async def test_a_redis_owner_index_lives_as_long_as_its_longest_record(redis_url: str) -> None:
    """The owner's index (what the quota counts) never outlives its records: it expires with the
    longest-lived one, entries of expired records leave its totals, and it is gone with the last."""
    import redis.asyncio

    store = RedisStore.from_url(redis_url, key_prefix="index-test:")
    client = redis.asyncio.Redis.from_url(redis_url)
    sizes, totals = "index-test:~owner:o:sizes", "index-test:~owner:o:totals"
    quota = Quota(max_records=5)
    try:
        await store.save("a", "{}", None, owner="o", ttl_seconds=1, quota=quota)
        assert 0 < await client.pttl(sizes) <= 1001
        await store.save("b", "{}", None, owner="o", ttl_seconds=60, quota=quota)
        assert 59_000 < await client.pttl(totals) <= 60_001
        for _ in range(600):
            if not await client.exists("index-test:a"):
                break
            await asyncio.sleep(0.05)
        await store.save("c", "{}", None, owner="o", ttl_seconds=60, quota=quota)
        assert sorted(await client.hkeys(sizes)) == [b"b", b"c"]  # a's entry left with a
        assert await store.usage("o") == (2, 4)
        await store.delete("b")
        await store.delete("c")
        assert await client.exists(sizes, totals, "index-test:~owner:o:expiries") == 0
    finally:
        await client.aclose()
        await store.aclose()


async def test_every_store_expires_a_record_by_its_own_ttl(tmp_path: Path, redis_url: str) -> None:
    now = [1000.0]
    stores: list[OwnedStore] = [MemoryStore(clock=lambda: now[0]), SQLiteStore(tmp_path / "ttl.db", clock=lambda: now[0])]
    for store in stores:
        await store.save("short", "{}", None, owner="o", ttl_seconds=1)
        await store.save("long", "{}", None, owner="o", ttl_seconds=100)
        now[0] += 2
        assert await store.sweep_expired(10) == 1 and await store.sweep_expired(10) == 0
        assert await store.load("short") is None and await store.load("long") is not None
        assert await store.usage("o") == (1, 2)
        now[0] -= 2
    redis_store = RedisStore.from_url(redis_url, key_prefix="own-ttl:", ttl_seconds=3600)
    await redis_store.save("short", "{}", None, owner="o", ttl_seconds=1)
    assert 0 < await redis_store._client.pttl("own-ttl:short") <= 1000
    assert await redis_store.sweep_expired(10) == 0  # nothing to sweep: Redis expires the key
    await redis_store.aclose()


async def test_sqlite_owner_totals_follow_every_write_whoever_makes_it(tmp_path: Path) -> None:
    """The quota reads running totals kept by triggers: a delete by another program, the sweep,
    an expired row waiting for it and a record changing owner all leave them right."""
    now = [1000.0]
    path = tmp_path / "totals.db"
    store = SQLiteStore(path, clock=lambda: now[0])
    for index in range(5):
        await store.save(f"k{index}", "x" * 10, None, owner="o", ttl_seconds=10 if index < 2 else 100)
    with sqlite3.connect(path) as other:
        other.execute("DELETE FROM statekit_gate_state WHERE handle = 'k4'")
    assert await store.usage("o") == (4, 40)
    now[0] += 20  # k0 and k1 expired, not yet swept
    assert await store.usage("o") == (2, 20)
    loaded = await store.load("k3")
    assert loaded is not None
    await store.save("k3", "x" * 5, loaded[1], owner="p", ttl_seconds=100)
    assert await store.usage("o") == (1, 10) and await store.usage("p") == (1, 5)
    assert await store.sweep_expired(10) == 2
    assert await store.usage("o") == (1, 10)
    reopened = SQLiteStore(path, clock=lambda: now[0])  # a second connection reads the same totals
    assert await reopened.usage("p") == (1, 5)
    store.close()
    reopened.close()


# -- store faults are coded ---------------------------------------------------------------------


def test_a_corrupt_sqlite_file_is_a_coded_store_error(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"this is not a database, just text pretending to be one\n" * 100)
    context = ToolContext(store_url=f"sqlite://{path}")
    with pytest.raises(ToolError) as raised:
        call("start_machine", {"machine": TOGGLE}, context=context)
    assert raised.value.code == "upstream_error" and raised.value.details["retryable"] is False
    path.unlink()
    call("start_machine", {"machine": TOGGLE}, context=context)  # repaired: the next call works


def test_an_unreachable_redis_is_a_coded_retryable_error() -> None:
    pytest.importorskip("redis")
    port = free_port()
    context = ToolContext(store_url=f"redis://127.0.0.1:{port}/0")
    with pytest.raises(ToolError) as raised:
        call("start_machine", {"machine": TOGGLE}, context=context)
    assert raised.value.code == "upstream_error" and raised.value.details["retryable"] is True
    assert str(port) not in raised.value.message  # the store's address stays in the server log


def test_every_store_backend_is_an_owned_store(tmp_path: Path) -> None:
    sqlite_store = SQLiteStore(tmp_path / "owned.db")
    assert isinstance(MemoryStore(), OwnedStore) and isinstance(sqlite_store, OwnedStore)
    sqlite_store.close()


async def test_the_quota_is_the_same_in_every_store(tmp_path: Path, redis_url: str) -> None:
    """One contract, three backends: records and bytes per owner, growing refused, shrinking never."""
    stores: list[OwnedStore] = [MemoryStore(), SQLiteStore(tmp_path / "contract.db"),
                                RedisStore.from_url(redis_url, key_prefix="quota-contract:")]
    quota = Quota(max_records=2, max_bytes=10)
    for store in stores:
        first = await store.save("a", "12345", None, owner="o", quota=quota, ttl_seconds=60)
        await store.save("b", "123", None, owner="o", quota=quota, ttl_seconds=60)
        with pytest.raises(QuotaExceeded) as by_count:
            await store.save("c", "1", None, owner="o", quota=quota, ttl_seconds=60)
        assert by_count.value.limit == "records"
        await store.save("c", "1", None, owner="other", quota=quota, ttl_seconds=60)
        with pytest.raises(QuotaExceeded) as by_bytes:
            await store.save("a", "12345678", first, owner="o", quota=quota, ttl_seconds=60)
        assert by_bytes.value.limit == "bytes"
        shrunk = await store.save("a", "1", first, owner="o", quota=quota, ttl_seconds=60)
        assert await store.usage("o") == (2, 4)
        await store.delete("a", shrunk)
        assert await store.usage("o") == (1, 3), type(store).__name__


# -- the real server: two bearer tokens over HTTP -----------------------------------------------


@contextmanager
def http_server(*extra: str) -> Iterator[str]:
    port = free_port()
    env = {**os.environ, "STATEKIT_TOKENS": f"{TOKEN_A},{TOKEN_B}"}
    process = subprocess.Popen([sys.executable, "-m", "statekit.server", "--http", "--port", str(port), *extra],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@asynccontextmanager
async def as_tenant(url: str, token: str, mode: str) -> AsyncIterator[Client]:
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        yield client


def outcome(result: Any) -> Any:
    content = result.structured_content or {}
    return content.get("code") if result.is_error else content


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_two_tokens_over_http_are_two_tenants_with_their_own_quota(mode: str) -> None:
    with http_server("--live-max-machines", "3", "--max-output-bytes", "360000") as url:
        async with as_tenant(url, TOKEN_A, mode) as alice, as_tenant(url, TOKEN_B, mode) as bob:
            handle = outcome(await alice.call_tool("start_machine", {"machine": TOGGLE}))["machineHandle"]
            assert outcome(await bob.call_tool("send_events", {"machineHandle": handle, "events": ["FLIP"]})) \
                == "not_found"
            assert outcome(await bob.call_tool("get_machine_snapshot", {"machineHandle": handle})) == "not_found"
            assert outcome(await bob.call_tool("stop_machine", {"machineHandle": handle})) == "not_found"
            seen = outcome(await alice.call_tool("get_machine_snapshot", {"machineHandle": handle}))
            assert seen["snapshot"]["value"] == "off"  # bob's FLIP never landed
            for _ in range(2):
                outcome(await alice.call_tool("start_machine", {"machine": TOGGLE}))["machineHandle"]
            assert outcome(await alice.call_tool("start_machine", {"machine": TOGGLE})) == "quota_exceeded"
            theirs = outcome(await bob.call_tool("start_machine", {"machine": TOGGLE}))
            assert theirs["machineHandle"].startswith("lm_")  # alice's full quota is not bob's
            assert outcome(await alice.call_tool("send_events", {"machineHandle": theirs["machineHandle"],
                                                                 "events": ["FLIP"]})) == "not_found"
            assert outcome(await alice.call_tool("stop_machine", {"machineHandle": handle}))["stopped"] is True
            # An answer over the output limit has committed nothing; the machine has not moved.
            grower = outcome(await alice.call_tool("start_machine", {"machine": GROWER}))["machineHandle"]
            assert outcome(await alice.call_tool("send_events", {"machineHandle": grower,
                                                                 "events": ["GROW"] * 5})) == "output_too_large"
            seen = outcome(await alice.call_tool("get_machine_snapshot", {"machineHandle": grower}))
            assert seen["snapshot"]["context"]["log"] == []


async def test_a_corrupt_sqlite_store_behind_the_server_is_a_coded_error(tmp_path: Path) -> None:
    path = tmp_path / "corrupt.db"
    path.write_bytes(b"\x00garbage, not SQLite\n" * 200)
    with http_server("--store", f"sqlite://{path}") as url:
        async with as_tenant(url, TOKEN_A, "2026-07-28") as alice:
            refused = await alice.call_tool("start_machine", {"machine": TOGGLE})
    assert refused.is_error and refused.structured_content is not None
    assert refused.structured_content["code"] == "upstream_error"
    assert refused.structured_content["retryable"] is False and str(tmp_path) not in str(refused.content)


def test_the_quota_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STATEKIT_LIVE_MAX_MACHINES", "1")
    monkeypatch.setenv("STATEKIT_LIVE_MAX_BYTES", "5000000")
    context = ToolContext.from_environment()
    assert (context.live_max_machines, context.live_max_bytes) == (1, 5_000_000)
    call("start_machine", {"machine": TOGGLE}, context=context)
    assert code_of("start_machine", {"machine": TOGGLE}, context) == "quota_exceeded"
    monkeypatch.setenv("STATEKIT_LIVE_MAX_MACHINES", "none")
    with pytest.raises(ValueError):
        ToolContext.from_environment()


@asynccontextmanager
async def in_process_http(tokens: tuple[str, ...]) -> AsyncIterator[str]:
    """The real MCP server and its HTTP guards, served by uvicorn in this process."""
    import uvicorn

    from statekit.server import create_server
    from statekit.server.access import AccessPolicy, default_allowed_hosts
    from statekit.server.http_app import bind_socket, build_http_app, endpoint_url

    app = build_http_app(create_server(context=ToolContext()), access=AccessPolicy(tokens),
                         allowed_hosts=default_allowed_hosts("127.0.0.1"))
    sock = bind_socket("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        async with asyncio.timeout(10):
            while not server.started:
                await asyncio.sleep(0.01)
        yield endpoint_url(sock)
    finally:
        server.should_exit = True
        await task
        sock.close()


async def bob_reaches_alices_machine() -> bool:
    async with (in_process_http((TOKEN_A, TOKEN_B)) as url, as_tenant(url, TOKEN_A, "2026-07-28") as alice,
                as_tenant(url, TOKEN_B, "2026-07-28") as bob):
        handle = outcome(await alice.call_tool("start_machine", {"machine": TOGGLE}))["machineHandle"]
        sent = await bob.call_tool("send_events", {"machineHandle": handle, "events": ["FLIP"]})
        return not sent.is_error


async def test_the_tenancy_test_catches_a_server_that_forgets_the_principal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Plant the forgetting: a call path that drops the authenticated principal puts every token in
    one tenant, and bob's send lands; with the principal passed on, it is not_found."""
    assert not await bob_reaches_alices_machine()
    monkeypatch.setattr("statekit.server.core.request_principal", lambda request: None)
    assert await bob_reaches_alices_machine()
