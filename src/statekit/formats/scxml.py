"""SCXML (W3C State Chart XML 1.0): read and write, registered as the format `scxml`.

Reading is in `scxml_read` (safe XML parsing, the SCXML -> model mapping), writing in
`scxml_write`; docs/formats.md lists the mapping, the lossless subset and the warnings.
"""

from __future__ import annotations

import re

from statekit.formats import Source, register_format
from statekit.formats.scxml_read import read_scxml
from statekit.formats.scxml_write import write_scxml

_SCXML_ROOT = re.compile(r"<(?:[\w.-]+:)?scxml[\s>/]")


def detect(source: Source) -> float:
    """An XML document whose root is `<scxml>` (after any prolog and comments)."""
    text = source.stripped
    if not text.startswith("<"):
        return 0.0
    if _SCXML_ROOT.search(text[:4096]):
        return 1.0
    return 0.2  # some other XML: SCXML is the only XML format statekit reads


register_format(
    "scxml",
    read=read_scxml,
    write=write_scxml,
    detect=detect,
    aliases=("xml", "scxml-xml"),
    media_type="application/scxml+xml",
    description="W3C SCXML 1.0 (State Chart XML)",
    title="SCXML",
)
