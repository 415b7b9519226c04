"""Hosted projects and machines: the resource-provider interface and its implementations.

`ResourceProvider` is what the hosted resource tools read through. `HttpResourceProvider`
talks to a Stately-compatible `/api/v1` API; `EmbeddedRegistry` is a local SQLite registry
that `statekit studio` can also serve as that API.
"""

from statekit.hosted.provider import ResourceProvider

__all__ = ["ResourceProvider"]
