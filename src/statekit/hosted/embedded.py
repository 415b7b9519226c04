"""A local SQLite registry of projects and machines: the embedded resource provider."""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from statekit.errors import ToolError
from statekit.hosted.provider import JSONObject, check_id

_SCHEMA = """
CREATE TABLE IF NOT EXISTS projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT,
    version INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS machines (
    id TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id),
    name TEXT NOT NULL,
    definition TEXT NOT NULL,
    graph TEXT,
    position INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS machines_by_project ON machines(project_id, position);
"""


logger = logging.getLogger(__name__)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class EmbeddedRegistry:
    """Projects and machines in one SQLite file. Reads never create the file."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()

    def _connect(self, *, create: bool) -> sqlite3.Connection | None:
        if not create and not self.path.exists():
            return None
        if create:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            connection = sqlite3.connect(self.path, timeout=10)
            connection.row_factory = sqlite3.Row
            connection.executescript(_SCHEMA)
        except sqlite3.Error as error:
            raise self._unreadable(error) from None
        return connection

    def _unreadable(self, error: Exception) -> ToolError:
        # The path goes to the server log only: callers never learn the server's file layout.
        logger.warning("the embedded registry %s is unreadable: %s", self.path, error)
        return ToolError(
            "upstream_error",
            f"the embedded registry is corrupted or not a statekit registry ({type(error).__name__}: {error}); "
            "restore it from a backup or point STATEKIT_REGISTRY at another file",
            {"retryable": False})

    def _json_column(self, row: sqlite3.Row, column: str) -> Any:
        try:
            return json.loads(row[column])
        except (TypeError, ValueError, RecursionError) as error:
            raise self._unreadable(ValueError(f"machine {row['id']!r} has a {column} that is not JSON")) from error

    # -- writing (the CLI and tests; no tool writes) ---------------------------------------

    def create_project(self, name: str, *, project_id: str | None = None, description: str | None = None) -> str:
        """Add a project and return its id."""
        project_id = check_id("projectId", project_id or f"proj-{uuid.uuid4().hex[:12]}")
        with self._lock:
            connection = self._connect(create=True)
            assert connection is not None
            with connection:
                connection.execute(
                    "INSERT INTO projects (id, name, description, updated_at) VALUES (?, ?, ?, ?)",
                    (project_id, name, description, _now()),
                )
            connection.close()
        return project_id

    def add_machine(self, project_id: str, name: str, definition: JSONObject, *, machine_id: str | None = None,
                    graph: JSONObject | None = None) -> str:
        """Add a machine (an XState config, and optionally its XGraph) to a project."""
        machine_id = check_id("machineId", machine_id or f"mach-{uuid.uuid4().hex[:12]}")
        with self._lock:
            connection = self._connect(create=True)
            assert connection is not None
            with connection:
                if connection.execute("SELECT 1 FROM projects WHERE id = ?", (project_id,)).fetchone() is None:
                    raise ToolError("not_found", f"no project {project_id!r}")
                position = connection.execute(
                    "SELECT COUNT(*) FROM machines WHERE project_id = ?", (project_id,)).fetchone()[0]
                connection.execute(
                    "INSERT INTO machines (id, project_id, name, definition, graph, position, updated_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (machine_id, project_id, name, json.dumps(definition),
                     json.dumps(graph) if graph is not None else None, position, _now()),
                )
                connection.execute("UPDATE projects SET version = version + 1, updated_at = ? WHERE id = ?",
                                   (_now(), project_id))
            connection.close()
        return machine_id

    # -- ResourceProvider ---------------------------------------------------------------

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        connection = self._connect(create=False)
        if connection is None:
            return []
        try:
            return connection.execute(sql, params).fetchall()
        except sqlite3.Error as error:
            raise self._unreadable(error) from None
        finally:
            connection.close()

    def list_projects(self) -> list[JSONObject]:
        rows = self._query("SELECT id, name, description, version, updated_at FROM projects ORDER BY name, id")
        return [self._project_summary(row) for row in rows]

    def get_project(self, project_id: str) -> JSONObject:
        check_id("projectId", project_id)
        rows = self._query("SELECT id, name, description, version, updated_at FROM projects WHERE id = ?", (project_id,))
        if not rows:
            raise ToolError("not_found", f"no project {project_id!r}")
        machines = self._query("SELECT id FROM machines WHERE project_id = ? ORDER BY position", (project_id,))
        return {**self._project_summary(rows[0]), "machineIds": [row["id"] for row in machines]}

    def list_project_machines(self, project_id: str) -> list[JSONObject]:
        self.get_project(project_id)
        rows = self._query("SELECT id, name, project_id, updated_at FROM machines WHERE project_id = ? ORDER BY position",
                           (project_id,))
        return [{"machineId": row["id"], "name": row["name"], "projectId": row["project_id"],
                 "updatedAt": row["updated_at"]} for row in rows]

    def get_machine(self, machine_id: str) -> JSONObject:
        check_id("machineId", machine_id)
        rows = self._query("SELECT id, name, project_id, definition, graph, updated_at FROM machines WHERE id = ?",
                           (machine_id,))
        if not rows:
            raise ToolError("not_found", f"no machine {machine_id!r}")
        row = rows[0]
        machine: JSONObject = {"machineId": row["id"], "name": row["name"], "projectId": row["project_id"],
                               "definition": self._json_column(row, "definition"), "updatedAt": row["updated_at"]}
        if row["graph"] is not None:
            machine["graph"] = self._json_column(row, "graph")
        return machine

    @staticmethod
    def _project_summary(row: sqlite3.Row) -> JSONObject:
        summary: JSONObject = {"projectId": row["id"], "name": row["name"],
                               "currentVersionId": f"{row['id']}@{row['version']}", "updatedAt": row["updated_at"]}
        if row["description"]:
            summary["description"] = row["description"]
        return summary
