"""`review_machine_implementation`: check an edited machine against the patches it was meant to apply.

The proposal is made concrete by applying the patches to the original (`expected`). Both the
proposal and the edit are then diffed against the original, and their changes are compared
unit by unit (a state or transition added or removed, one field of one updated entity):

- *missing*: proposed, not in the edit;
- *extra*: in the edit, not proposed;
- *divergent*: both changed the same thing, to different values.

A direct diff of `expected` against `edited` is the final word: when it is empty the edit
matches, whatever the unit pairing says, and when it is not, every difference is reported.
"""

from __future__ import annotations

import json
from typing import Any

from statekit.analysis.diff import MachineDiff, describe_change, diff_models
from statekit.analysis.matching import canonical_json
from statekit.analysis.patches import apply_patches
from statekit.analysis.review_mermaid import render_state_diagram
from statekit.analysis.validate import summarize, validate_model
from statekit.model import MachineModel

REVIEW_FILE_NAME = "behavior-review.md"

UnitKey = tuple[str, ...]


def review(original: MachineModel, edited: MachineModel, patches: Any) -> dict[str, Any]:
    """The review result, with the Markdown artifact."""
    validation = summarize(validate_model(edited))
    expected = apply_patches(original, patches)
    proposed = diff_models(original, expected)
    actual = diff_models(original, edited)
    residual = diff_models(expected, edited)
    missing, extra, divergent = compare_changes(proposed, actual)
    if not residual.has_changes:
        missing, extra, divergent = [], [], []
    elif not (missing or extra or divergent):
        divergent = [{"type": change["type"], "description": describe_change(change), "residual": change}
                     for change in residual.changes]
    if not validation["ok"]:
        verdict = "invalid"
    elif missing or extra or divergent:
        verdict = "differs"
    else:
        verdict = "matches"
    result: dict[str, Any] = {
        "verdict": verdict,
        "validation": validation,
        "actualChanges": actual.to_json()["semanticChanges"],
        "proposedChanges": proposed.to_json()["semanticChanges"],
        "missing": missing,
        "extra": extra,
        "divergent": divergent,
    }
    content = render_markdown(result, original, edited, actual, proposed, patches)
    result["artifact"] = {"name": REVIEW_FILE_NAME, "mediaType": "text/markdown", "content": content}
    return result


def _units(diff: MachineDiff) -> dict[UnitKey, dict[str, Any]]:
    """Each change split into comparable units keyed by what they change."""
    units: dict[UnitKey, dict[str, Any]] = {}
    added_ordinals: dict[tuple[str, str], int] = {}
    for change in diff.changes:
        kind = change["type"]
        if kind == "stateAdded":
            units[(kind, change["stateId"])] = {"change": change, "value": [change["parentId"], change["stateType"]]}
        elif kind == "stateRemoved":
            units[(kind, change["stateId"])] = {"change": change, "value": None}
        elif kind == "transitionAdded":
            edge = change["transition"]
            group = (edge["source"], edge["label"])
            ordinal = added_ordinals.get(group, 0)
            added_ordinals[group] = ordinal + 1
            value = {k: edge[k] for k in ("target", "guard", "actions", "reenter", "description", "meta")}
            units[(kind, *group, str(ordinal))] = {"change": change, "value": value}
        elif kind == "transitionRemoved":
            units[(kind, change["transitionId"])] = {"change": change, "value": None}
        else:
            entity = change.get("beforeId", "machine")
            for field in change["fields"]:
                if field == "label":
                    continue
                units[(kind, entity, field)] = {"change": change, "field": field, "value": change["after"].get(field)}
    return units


def _entry(unit: dict[str, Any], **values: Any) -> dict[str, Any]:
    change = unit["change"]
    entry: dict[str, Any] = {"type": change["type"], "description": describe_change(change)}
    for name in ("stateId", "transitionId", "beforeId"):
        if name in change:
            entry[name] = change[name]
    if "field" in unit:
        entry["field"] = unit["field"]
    entry.update(values)
    return entry


def _differing(expected: Any, actual: Any) -> dict[str, Any]:
    """Expected and actual values, narrowed to the differing keys when both are objects."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        keys = [k for k in expected if canonical_json(expected.get(k)) != canonical_json(actual.get(k))]
        return {"fields": keys, "expected": {k: expected.get(k) for k in keys},
                "actual": {k: actual.get(k) for k in keys}}
    return {"expected": expected, "actual": actual}


def compare_changes(
    proposed: MachineDiff, actual: MachineDiff
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """(missing, extra, divergent) units of the actual change against the proposed one."""
    wanted, made = _units(proposed), _units(actual)
    missing = [_entry(unit, expected=unit["value"]) for key, unit in wanted.items() if key not in made]
    extra = [_entry(unit, actual=unit["value"]) for key, unit in made.items() if key not in wanted]
    divergent = [
        _entry(made[key], **_differing(unit["value"], made[key]["value"]))
        for key, unit in wanted.items()
        if key in made and canonical_json(unit["value"]) != canonical_json(made[key]["value"])
    ]
    return missing, extra, divergent


def _highlights(diff: MachineDiff) -> tuple[dict[str, str], dict[str, str]]:
    before: dict[str, str] = {}
    after: dict[str, str] = {}
    for change in diff.changes:
        if change["type"] == "stateAdded":
            after[change["stateId"]] = "added"
        elif change["type"] == "stateRemoved":
            before[change["stateId"]] = "removed"
        elif change["type"] == "stateUpdated":
            before[change["beforeId"]] = "changed"
            after[change["stateId"]] = "changed"
    return before, after


def render_markdown(
    result: dict[str, Any], original: MachineModel, edited: MachineModel, actual: MachineDiff,
    proposed: MachineDiff, patches: Any,
) -> str:
    """The `behavior-review.md` text."""
    verdict = {
        "matches": "✅ The edit matches the proposed patches.",
        "differs": "⚠️ The edit differs from the proposed patches.",
        "invalid": "❌ The edited machine is not valid.",
    }[result["verdict"]]
    issues = result["validation"]["issues"]
    errors = sum(1 for issue in issues if issue["severity"] == "error")
    lines = [
        "# Behavior review",
        "",
        f"**{verdict}**",
        "",
        f"Validation of the edited machine: {errors} error(s), {len(issues) - errors} warning(s).",
        "",
        "## What the edit changes",
        "",
    ]
    if actual.has_changes:
        lines.extend(f"- {line}" for line in actual.summary_lines())
    else:
        lines.append("No behavioural or structural change.")
    if result["verdict"] != "matches":
        lines += ["", "## What the patches proposed", ""]
        if proposed.has_changes:
            lines.extend(f"- {line}" for line in proposed.summary_lines())
        else:
            lines.append("No behavioural or structural change.")
    lines += ["", "## Against the proposed patches", ""]
    for title, key, hint in (
        ("Missing", "missing", "proposed, not in the edit"),
        ("Extra", "extra", "in the edit, not proposed"),
        ("Divergent", "divergent", "changed differently"),
    ):
        entries = result[key]
        lines.append(f"- **{title}** ({hint}): {len(entries)}")
        for entry in entries:
            detail = entry["description"]
            if key == "divergent" and "expected" in entry:
                detail += f" Expected `{_short(entry['expected'])}`, got `{_short(entry['actual'])}`."
            lines.append(f"  - {detail}")
    if issues:
        lines += ["", "## Validation issues", ""]
        lines.extend(f"- {i['severity']} `{i['code']}` at `{i['path'] or '(root)'}`: {i['message']}" for i in issues)
    before_marks, after_marks = _highlights(actual)
    lines += [
        "", "## Before", "", "```mermaid", render_state_diagram(original, before_marks), "```",
        "", "## After", "", "```mermaid", render_state_diagram(edited, after_marks), "```",
        "", "<details><summary>Proposed patches</summary>", "", "```json",
        json.dumps(patches, indent=2, ensure_ascii=False), "```", "", "</details>", "",
    ]
    return "\n".join(lines)


def _short(value: Any, limit: int = 80) -> str:
    text = canonical_json(value).replace("`", "'")
    return text if len(text) <= limit else text[: limit - 3] + "..."
