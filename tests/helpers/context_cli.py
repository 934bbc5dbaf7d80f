"""``git gpte context --format lines`` run on a test repository, read back as line spans."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte


def excerpt_spans(root: Path, request: str, tokens: int) -> list[tuple[int, int]]:
    """The line ranges ``context`` sends for ``request`` within ``tokens`` (counted in UTF-8
    bytes ÷ 4, as without the o200k cache), from a repository where every file sent is sent
    in part."""
    res = run_gpte(
        "context", "--format", "lines", "--tokens", str(tokens), request,
        cwd=root, env={"GPTE_CONTEXT_TOKENIZER": "bytes4"},
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    spans = [out.split(":")[1].split("-") for out in res.stdout.split()]
    return [(int(start), int(end)) for start, end in spans]
