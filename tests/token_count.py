"""Token counts with a named tokenizer: tiktoken's o200k_base (GPT-4o's), offline.

tiktoken downloads its encoding files on first use, and this machine reaches no such host. The
`bpe-openai` package (test extra) ships the same o200k_base file; it is put where tiktoken looks
for its cache, and tiktoken accepts it only if its SHA-256 is the one tiktoken pins for
o200k_base, so the count is tiktoken's own on the genuine vocabulary.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

ENCODING = "o200k_base"
_BLOB = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"


@cache
def encoding() -> Any:
    """tiktoken's o200k_base encoding, seeded from bpe-openai's copy of its file when needed."""
    import tiktoken

    cache_dir = Path(os.environ.get("TIKTOKEN_CACHE_DIR") or Path(tempfile.gettempdir()) / "data-gym-cache")
    cached = cache_dir / hashlib.sha1(_BLOB.encode()).hexdigest()
    if not cached.exists():
        packed = resources.files("bpe_openai.data").joinpath("o200k_base.tiktoken.gz").read_bytes()
        cache_dir.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.part")
        partial.write_bytes(gzip.decompress(packed))
        partial.replace(cached)
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    try:
        return tiktoken.get_encoding(ENCODING)  # checks the file's hash; a wrong file is refused
    finally:
        if previous is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = previous


def count_tokens(text: str) -> int:
    """How many o200k_base tokens `text` is."""
    return len(encoding().encode(text, disallowed_special=()))
