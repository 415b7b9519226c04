"""A Redis store: compare-and-set in one Lua script, shared by any number of processes.

Each key is a Redis hash `{v: version, d: record text}`. The script reads the
version and writes the new one atomically (Redis runs a script without
interleaving other commands), which is simpler and cheaper than WATCH/MULTI
retries. Requires the `redis` package (`pip install 'statekit[redis]'`).

Faults are typed: a Redis that cannot be reached is `StoreUnavailable`; a key of
the wrong Redis type, or a version that is not a number, is `CorruptRecord`.

Expiry is Redis's own: each save sets the key's TTL (the store's, or the record's own), so
Redis reclaims an expired record without any sweep. A record with an owner also keeps its
owner in the hash (`o`), and the owner's index (`_INDEX`: sizes, expiries and running totals)
lets the save script check the owner's quota in the same atomic step, in O(log n). The
scripts touch keys they derive from the index and the record, which a Redis Cluster would
refuse: use a single Redis (or one hash slot).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from statekit.gate.store import (
    CorruptRecord,
    Quota,
    QuotaExceeded,
    StoreConflict,
    StoreUnavailable,
    text_size,
)

T = TypeVar("T")

# Shared by both scripts: KEYS[1] is the key. Returns the checked version, or a
# negative code: -2 the key is not a hash, -3 its version is not a number.
_CHECK = """
local kind = redis.call('TYPE', KEYS[1]).ok
if kind ~= 'hash' and kind ~= 'none' then return {-2, 0} end
local current = redis.call('HGET', KEYS[1], 'v')
if current and not tonumber(current) then return {-3, 0} end
"""

# An owner's index is three keys (KEYS[2..4] of the scripts, `<prefix>~owner:<owner>:...`): the
# sizes (hash handle -> bytes), the expiries (sorted set handle -> expiry in ms of Redis's own
# clock, +inf for none) and the totals (hash: r = records, b = bytes). Every script that
# touches an owner's records first drops up to 100 index entries whose expiry has passed
# (Redis has expired, or is about to expire, their keys), so the totals are the live records'
# in O(log n) per save, and the index keys expire with the owner's last record.
_INDEX = """
local function index_drop(sizes, expiries, totals, handle)
  local size = redis.call('HGET', sizes, handle)
  if size then
    redis.call('HINCRBY', totals, 'r', -1)
    redis.call('HINCRBY', totals, 'b', -tonumber(size))
    redis.call('HDEL', sizes, handle)
  end
  redis.call('ZREM', expiries, handle)
end
local function index_prune(sizes, expiries, totals, prefix)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  for _, handle in ipairs(redis.call('ZRANGEBYSCORE', expiries, '-inf', now, 'LIMIT', 0, 100)) do
    if redis.call('PTTL', prefix .. handle) <= 0 then index_drop(sizes, expiries, totals, handle) end
  end
  return now
end
local function index_expire(sizes, expiries, totals)
  local last = redis.call('ZRANGE', expiries, -1, -1, 'WITHSCORES')
  if #last == 0 then
    redis.call('DEL', sizes, expiries, totals)
  elseif last[2] == 'inf' then
    redis.call('PERSIST', sizes); redis.call('PERSIST', expiries); redis.call('PERSIST', totals)
  else
    local at = math.floor(tonumber(last[2])) + 1
    redis.call('PEXPIREAT', sizes, at); redis.call('PEXPIREAT', expiries, at); redis.call('PEXPIREAT', totals, at)
  end
end
"""

# ARGV = record text, expected version ("" = absent), ttl ms ("0" = none), owner ("" = none),
# size, max records ("" = no limit), max bytes ("" = no limit), key prefix, handle.
# KEYS[2..4] are the owner's index (unused without an owner).
# Returns {1, new_version} on success, {0, current_version or -1} on conflict,
# {-4, records held} / {-5, bytes held} when the owner's quota refuses the save.
_COMPARE_AND_SET = (
    _CHECK
    + _INDEX
    + """
if ARGV[2] == '' then
  if current then return {0, tonumber(current)} end
elseif (not current) or tonumber(current) ~= tonumber(ARGV[2]) then
  return {0, current and tonumber(current) or -1}
end
local owner = ARGV[4]
local size = tonumber(ARGV[5])
local ttl = tonumber(ARGV[3])
local previous = redis.call('HGET', KEYS[1], 'o')
if previous and previous ~= owner then
  local base = ARGV[8] .. '~owner:' .. previous
  index_drop(base .. ':sizes', base .. ':expiries', base .. ':totals', ARGV[9])
  index_expire(base .. ':sizes', base .. ':expiries', base .. ':totals')
end
local now = 0
if owner ~= '' then
  now = index_prune(KEYS[2], KEYS[3], KEYS[4], ARGV[8])
  local held = redis.call('HGET', KEYS[2], ARGV[9])
  local growing = not (current and held and previous == owner and size <= tonumber(held))
  if growing and (ARGV[6] ~= '' or ARGV[7] ~= '') then
    local records = tonumber(redis.call('HGET', KEYS[4], 'r') or '0')
    local bytes = tonumber(redis.call('HGET', KEYS[4], 'b') or '0')
    if held then
      records = records - 1
      bytes = bytes - tonumber(held)
    end
    if ARGV[6] ~= '' and records + 1 > tonumber(ARGV[6]) then return {-4, records} end
    if ARGV[7] ~= '' and bytes + size > tonumber(ARGV[7]) then return {-5, bytes} end
  end
end
local version = (current and tonumber(current) or 0) + 1
redis.call('HSET', KEYS[1], 'v', version, 'd', ARGV[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  redis.call('PERSIST', KEYS[1])
end
if owner ~= '' then
  redis.call('HSET', KEYS[1], 'o', owner)
  index_drop(KEYS[2], KEYS[3], KEYS[4], ARGV[9])
  redis.call('HSET', KEYS[2], ARGV[9], size)
  redis.call('HINCRBY', KEYS[4], 'r', 1)
  redis.call('HINCRBY', KEYS[4], 'b', size)
  redis.call('ZADD', KEYS[3], ttl > 0 and (now + ttl) or '+inf', ARGV[9])
  index_expire(KEYS[2], KEYS[3], KEYS[4])
elseif previous then
  redis.call('HDEL', KEYS[1], 'o')
end
return {1, version}
"""
)

# ARGV[1] = expected version ("" = any), ARGV[2] = key prefix, ARGV[3] = handle.
# Returns {1, 1} deleted, {1, 0} absent, {0, current} conflict.
_COMPARE_AND_DELETE = (
    _CHECK
    + _INDEX
    + """
if not current then
  if ARGV[1] ~= '' then return {0, -1} end
  return {1, 0}
end
if ARGV[1] ~= '' and tonumber(current) ~= tonumber(ARGV[1]) then return {0, tonumber(current)} end
local owner = redis.call('HGET', KEYS[1], 'o')
redis.call('DEL', KEYS[1])
if owner then
  local base = ARGV[2] .. '~owner:' .. owner
  index_drop(base .. ':sizes', base .. ':expiries', base .. ':totals', ARGV[3])
  index_expire(base .. ':sizes', base .. ':expiries', base .. ':totals')
end
return {1, 1}
"""
)

# KEYS = the owner's index, ARGV[1] = key prefix. Returns {records, bytes} of live records.
_USAGE = (
    _INDEX
    + """
index_prune(KEYS[1], KEYS[2], KEYS[3], ARGV[1])
return {tonumber(redis.call('HGET', KEYS[3], 'r') or '0'), tonumber(redis.call('HGET', KEYS[3], 'b') or '0')}
"""
)

_NUMBER = re.compile(rb"^-?[0-9]+$")


def _redis_errors() -> tuple[type[BaseException], type[BaseException]]:
    import redis.exceptions

    return redis.exceptions.ConnectionError, redis.exceptions.TimeoutError


class RedisStore:
    """Versioned compare-and-set on Redis; TTL is Redis key expiry, refreshed on every save."""

    def __init__(
        self,
        client: Any,
        *,
        key_prefix: str = "statekit:gate:",
        ttl_seconds: float | None = None,
    ) -> None:
        """`client` is a `redis.asyncio.Redis` (created with the default `decode_responses=False`)."""
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._client = client
        self._key_prefix = key_prefix
        self._ttl_ms = 0 if ttl_seconds is None else max(1, round(ttl_seconds * 1000))
        self._script = client.register_script(_COMPARE_AND_SET)
        self._delete_script = client.register_script(_COMPARE_AND_DELETE)
        self._usage_script = client.register_script(_USAGE)
        self._unreachable = _redis_errors()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisStore:
        """A store on a new `redis.asyncio` client for `url` (e.g. `redis://127.0.0.1:6379/0`)."""
        import redis.asyncio

        return cls(redis.asyncio.Redis.from_url(url), **kwargs)

    def _key(self, handle: str) -> str:
        return self._key_prefix + handle

    def _index(self, owner: str) -> list[str]:
        base = self._key_prefix + "~owner:" + owner
        return [base + ":sizes", base + ":expiries", base + ":totals"]

    async def _guarded(self, handle: str, operation: Callable[[], Awaitable[T]]) -> T:
        import redis.exceptions

        try:
            return await operation()
        except self._unreachable as error:
            raise StoreUnavailable(handle, f"Redis is unreachable: {error}") from error
        except redis.exceptions.ResponseError as error:
            if "WRONGTYPE" in str(error):
                raise CorruptRecord(handle, "the Redis key is not a hash") from error
            raise StoreUnavailable(handle, f"Redis refused the command: {error}") from error
        except OSError as error:
            raise StoreUnavailable(handle, f"Redis is unreachable: {error}") from error

    def _check_code(self, handle: str, code: int) -> None:
        if code == -2:
            raise CorruptRecord(handle, "the Redis key is not a hash")
        if code == -3:
            raise CorruptRecord(handle, "the stored version is not a number")

    async def load(self, handle: str) -> tuple[str, int] | None:
        """The stored text and its version, or None when absent or expired."""
        version, data = await self._guarded(
            handle, lambda: self._client.hmget(self._key(handle), ["v", "d"])
        )
        if version is None and data is None:
            return None
        if version is None or data is None:
            raise CorruptRecord(handle, "the Redis hash lacks its version or its data")
        raw = version if isinstance(version, bytes) else str(version).encode()
        if not _NUMBER.match(raw.strip()):
            raise CorruptRecord(handle, f"the stored version {raw[:40]!r} is not a number")
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)
        return text, int(raw)

    async def save(self, handle: str, snapshot_json: str, expected_version: int | None, *,
                   owner: str | None = None, ttl_seconds: float | None = None,
                   quota: Quota | None = None) -> int:
        """Compare-and-set (and the owner's quota) in one atomic script."""
        expected = "" if expected_version is None else str(expected_version)
        ttl_ms = self._ttl_ms if ttl_seconds is None else max(1, round(ttl_seconds * 1000))
        limits = quota or Quota()
        args = [snapshot_json, expected, str(ttl_ms), owner or "", str(text_size(snapshot_json)),
                "" if limits.max_records is None else str(limits.max_records),
                "" if limits.max_bytes is None else str(limits.max_bytes), self._key_prefix, handle]
        keys = [self._key(handle), *self._index(owner or "")]
        ok, version = await self._guarded(handle, lambda: self._script(keys=keys, args=args))
        self._check_code(handle, int(ok))
        if int(ok) == -4:
            raise QuotaExceeded(owner, "records", int(version), limits.max_records or 0)
        if int(ok) == -5:
            raise QuotaExceeded(owner, "bytes", int(version), limits.max_bytes or 0)
        if int(ok) != 1:
            actual = None if int(version) < 0 else int(version)
            raise StoreConflict(handle, expected_version, actual)
        return int(version)

    async def keys(self, prefix: str = "") -> AsyncIterator[str]:
        """Live keys starting with `prefix` (SCAN, so a large keyspace is walked in batches)."""
        pattern = _glob_escape(self._key_prefix + prefix) + "*"
        start = len(self._key_prefix)
        cursor: Any = 0
        while True:
            at = cursor
            cursor, batch = await self._guarded(
                prefix or "*",
                lambda at=at: self._client.scan(at, match=pattern, count=500),  # type: ignore[misc]
            )
            for raw in batch:
                name = raw.decode() if isinstance(raw, bytes) else str(raw)
                yield name[start:]
            if int(cursor) == 0:
                return

    async def delete(self, handle: str, expected_version: int | None = None) -> bool:
        """Delete `handle` (at `expected_version` when given), atomically."""
        expected = "" if expected_version is None else str(expected_version)
        ok, result = await self._guarded(
            handle, lambda: self._delete_script(keys=[self._key(handle)],
                                                args=[expected, self._key_prefix, handle])
        )
        self._check_code(handle, int(ok))
        if int(ok) != 1:
            actual = None if int(result) < 0 else int(result)
            raise StoreConflict(handle, expected_version, actual)
        return int(result) == 1

    async def usage(self, owner: str | None) -> tuple[int, int]:
        """How many live records `owner` keeps and their bytes (records without an owner: not counted)."""
        if owner is None:
            return 0, 0
        records, used = await self._guarded(
            owner, lambda: self._usage_script(keys=self._index(owner), args=[self._key_prefix]))
        return int(records), int(used)

    async def sweep_expired(self, limit: int) -> int:
        """Nothing to do: Redis deletes a record when its key's TTL runs out."""
        return 0

    async def aclose(self) -> None:
        """Close the underlying client."""
        await self._client.aclose()


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)
