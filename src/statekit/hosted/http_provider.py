"""A `ResourceProvider` over a Stately-compatible `/api/v1` HTTP API."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from statekit.errors import ToolError
from statekit.hosted.credentials import current_caller_credential
from statekit.hosted.errors import upstream_error
from statekit.hosted.provider import DEFAULT_CLIENT_ID, JSONObject, check_id

DEFAULT_TIMEOUT_MS = 10_000
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


class HttpResourceProvider:
    """Reads `<base>/v1/...` with a bearer credential; errors mapped to codes.

    The credential is the server-wide `credential`, or, with `forward_caller_credential`, the
    bearer token of the HTTP caller being served (`statekit.hosted.credentials`); a caller
    without one is `unauthenticated` (the server-wide credential is never used for a caller
    when forwarding is on, so no caller can borrow the server's account).
    """

    def __init__(self, base_url: str, credential: str | None, *, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 client_id: str = DEFAULT_CLIENT_ID, forward_caller_credential: bool = False) -> None:
        parsed = urllib.parse.urlsplit(base_url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"the resource API base URL must be http(s)://host/...: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.credential = credential
        self.timeout_ms = timeout_ms
        self.client_id = client_id
        self.forward_caller_credential = forward_caller_credential

    def __repr__(self) -> str:  # never shows the credential
        return f"HttpResourceProvider({self.base_url!r}, forward_caller_credential={self.forward_caller_credential})"

    def _credential(self) -> str:
        if self.forward_caller_credential:
            forwarded = current_caller_credential()
            if not forwarded:
                raise ToolError("unauthenticated", "Missing authentication: this server forwards the caller's "
                                "bearer credential, and the request carried none.")
            return forwarded
        if not self.credential:
            raise ToolError("unauthenticated", "Missing authentication: set STATELY_ACCESS_TOKEN or STATELY_API_KEY.")
        return self.credential

    def _get(self, path: str) -> Any:
        credential = self._credential()
        request = urllib.request.Request(
            f"{self.base_url}/v1/{path}",
            headers={
                "Authorization": f"Bearer {credential}",
                "Accept": "application/json",
                "User-Agent": self.client_id,
                "X-Client-Id": self.client_id,
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_ms / 1000) as response:
                body = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as error:
            raise upstream_error(error.code, error.read(64 * 1024), error.headers.get("Retry-After")) from None
        except TimeoutError:
            raise ToolError("upstream_timeout", f"the resource API did not answer within {self.timeout_ms} ms") from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise ToolError("upstream_timeout", f"the resource API did not answer within {self.timeout_ms} ms") from None
            raise ToolError("upstream_error", f"the resource API could not be reached ({type(error.reason).__name__})") from None
        if len(body) > MAX_RESPONSE_BYTES:
            raise ToolError("upstream_error", "the resource API answered with more data than allowed")
        try:
            return json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ToolError("upstream_error", "the resource API answered with something that is not JSON") from None

    def _field(self, data: Any, key: str, kind: type) -> Any:
        value = data.get(key) if isinstance(data, dict) else None
        if not isinstance(value, kind):
            raise ToolError("upstream_error", f"the resource API answer has no `{key}`")
        return value

    def list_projects(self) -> list[JSONObject]:
        return list(self._field(self._get("projects"), "projects", list))

    def get_project(self, project_id: str) -> JSONObject:
        path = f"projects/{urllib.parse.quote(check_id('projectId', project_id), safe='')}"
        return dict(self._field(self._get(path), "project", dict))

    def list_project_machines(self, project_id: str) -> list[JSONObject]:
        path = f"projects/{urllib.parse.quote(check_id('projectId', project_id), safe='')}/machines"
        return list(self._field(self._get(path), "machines", list))

    def get_machine(self, machine_id: str) -> JSONObject:
        path = f"machines/{urllib.parse.quote(check_id('machineId', machine_id), safe='')}"
        return dict(self._field(self._get(path), "machine", dict))
