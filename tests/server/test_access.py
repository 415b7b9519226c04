"""HTTP access rules: token sources, loopback detection, the no-auth escape hatch, allowed hosts."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from statekit.server.access import (
    AccessConfigError,
    decide_access,
    default_allowed_hosts,
    is_loopback,
    load_tokens,
)
from statekit.server.http_guards import host_name

TOKEN_A = "token-a-0123456789abcdef"
TOKEN_B = "token-b-0123456789abcdef"
TOKEN_C = "token-c-0123456789abcdef"


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("LOCALHOST", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_tokens_come_from_flags_environment_and_file_without_duplicates(tmp_path: Path) -> None:
    token_file = tmp_path / "tokens.txt"
    token_file.write_text(f"# comment\n\n{TOKEN_C}\n{TOKEN_A}\n", encoding="utf-8")
    tokens = load_tokens(
        [TOKEN_A], token_file=token_file, environ={"STATEKIT_TOKENS": f"{TOKEN_B}, {TOKEN_A}"}
    )
    assert tokens == [TOKEN_A, TOKEN_B, TOKEN_C]


def test_no_token_sources_give_no_tokens() -> None:
    assert load_tokens([], environ={}) == []


@pytest.mark.parametrize("weak", ["short", "has a space in it 0123", "caf\u00e9-token-0123456789"])
def test_weak_or_malformed_tokens_are_refused(weak: str) -> None:
    with pytest.raises(AccessConfigError):
        load_tokens([weak], environ={})


def test_bearer_needs_a_token() -> None:
    with pytest.raises(AccessConfigError, match="requires a bearer token"):
        decide_access("127.0.0.1", "bearer", [], allow_remote_no_auth=False)
    policy = decide_access("0.0.0.0", "bearer", [TOKEN_A], allow_remote_no_auth=False)
    assert policy.requires_auth and policy.tokens == (TOKEN_A,)


def test_no_auth_is_allowed_on_loopback_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        policy = decide_access("localhost", "none", [], allow_remote_no_auth=False)
    assert not policy.requires_auth
    assert caplog.records == []


def test_no_auth_on_a_remote_host_needs_the_explicit_flag_and_warns(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with pytest.raises(AccessConfigError, match="--allow-remote-no-auth"):
        decide_access("0.0.0.0", "none", [], allow_remote_no_auth=False)
    with caplog.at_level(logging.WARNING):
        policy = decide_access("0.0.0.0", "none", [], allow_remote_no_auth=True)
    assert not policy.requires_auth
    assert any("WITHOUT authentication" in record.getMessage() for record in caplog.records)


def test_allowed_hosts() -> None:
    assert default_allowed_hosts("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    assert default_allowed_hosts("10.0.0.5", ["mcp.internal"]) == {
        "127.0.0.1",
        "localhost",
        "::1",
        "10.0.0.5",
        "mcp.internal",
    }
    assert default_allowed_hosts("0.0.0.0") is None
    assert default_allowed_hosts("::", ["[::1]", "Mcp.Example"]) == {
        "127.0.0.1",
        "localhost",
        "::1",
        "mcp.example",
    }


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("127.0.0.1:8000", "127.0.0.1"),
        ("LocalHost:80", "localhost"),
        ("localhost", "localhost"),
        ("[::1]:8765", "::1"),
        ("[::1]", "::1"),
        ("evil.example:8000", "evil.example"),
    ],
)
def test_host_name_strips_the_port(header: str, name: str) -> None:
    assert host_name(header) == name
