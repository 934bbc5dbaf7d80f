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


def sent(root: Path, request: str, tokens: int) -> list[str]:
    """What ``context --format lines`` sends for ``request`` within ``tokens``: ``PATH`` or
    ``PATH:START-END`` entries, best first."""
    res = run_gpte("context", "--format", "lines", "--tokens", str(tokens), request, cwd=root)
    assert res.returncode == 0, res.stderr
    return [entry for entry in res.stdout.splitlines() if entry]


def holds(entries: list[str], path: str, line: int) -> bool:
    """Whether the entries ``sent`` gives send line ``line`` of ``path``."""
    spans = [
        tuple(int(n) for n in entry.split(":")[1].split("-"))
        for entry in entries
        if entry.startswith(f"{path}:")
    ]
    return path in entries or any(start <= line <= end for start, end in spans)


def steps_module(name: str, count: int) -> str:
    """A module of ``count`` small functions alike but for their names (``name_step3``), each
    with a docstring: a file whose lines only their names tell apart."""
    return "".join(
        f"def {name}_step{n}(items, limit):\n"
        f"    '''Add up the first items of the batch.'''\n"
        f"    return sum(item.size for item in items[:limit]) * {n}\n\n\n"
        for n in range(count)
    )
