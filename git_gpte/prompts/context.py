"""The text of a selected context: whole files, excerpts and the map; and the model's request for
more (a ``need`` block) and the answer to it. Pure functions on text.

An excerpt is numbered with the file's own line numbers, so a diff the model writes against it
carries the right ``@@`` hint for the whole file; a gap between excerpts is one unnumbered line,
so it cannot be mistaken for a line of the file.

The need block (documented to the model in ``preprompts/context``)::

    ```need
    src/pkg/module.py
    src/pkg/other.py:120-180
    symbol: Session.send
    ```

One item per line: a path (the whole file), a path with a line range, or ``symbol:`` and a name
defined in the repository.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .messages import Part, fence_for, render_part

# Items answered from one need block; the model is told which of the rest were not (a model
# listing the whole map asks for all).
MAX_NEED_ITEMS = 20

_NEED = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*need[ \t]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S | re.I
)
_RANGE = re.compile(r"^(?P<path>.+?):(?P<start>\d+)(?:\s*-\s*(?P<end>\d+))?$")
_SYMBOL = re.compile(r"^(?:symbol|def|class)\s*:?\s+(?P<name>[\w.:$]+)\s*(?:\(\))?$", re.I)


def context_user_message(
    parts: Sequence[Part],
    map_text: str,
    instruction: str,
    *,
    can_ask: bool,
    numbers: bool = True,
) -> str:
    """What the model has (whole files, excerpts, the map), then the request, last.
    ``numbers=False``: whole files as they are (see :func:`render_part`)."""
    whole = [p for p in parts if p.whole]
    excerpts = [p for p in parts if not p.whole]
    numbered = " Each line starts with its line number in the file, which is not part of the file."
    if not numbers:
        numbered = " Excerpts' lines start with their line number in the file." if excerpts else ""
    out = ["Here is what you have of the repository." + numbered]
    if whole:
        out += [f"Whole files ({len(whole)}):", *[render_part(p, numbers=numbers) for p in whole]]
    if excerpts:
        out += [
            f"Excerpts of {len(excerpts)} more file(s): only the lines shown, numbered as in the "
            "file, so write diffs against them exactly as for a whole file:",
            *[render_part(p) for p in excerpts],
        ]
    if map_text.strip():
        ask = " (ask for any you need)" if can_ask else ""
        fence = fence_for(map_text)
        out.append(
            "Map of other files you have not seen: each path, then the line and first line of "
            f"its definitions{ask}:\n{fence}\n{map_text.rstrip()}\n{fence}"
        )
    out.append(f"Request:\n{instruction.strip()}\n")
    return "\n\n".join(out)


def existing_files_message(parts: Sequence[Part], map_text: str, instruction: str) -> str:
    """``init`` in a repository with files: the relevant ones whole, the map, then the request.

    Only whole files are shown: init writes whole files, and a file rewritten from an excerpt
    would lose the lines not shown."""
    out = [
        "The repository already has files. The ones most relevant to the request are shown "
        "below, whole (each line starts with its line number, which is not part of the file). "
        "A file you write replaces the file of that path entirely; leave out files you do not "
        "change.",
        *[render_part(p) for p in parts if p.whole],
    ]
    if map_text.strip():
        fence = fence_for(map_text)
        out.append(
            "Other files of the repository (not shown; each path, then the line and first line "
            f"of its definitions):\n{fence}\n{map_text.rstrip()}\n{fence}"
        )
    out.append(f"Request:\n{instruction.strip()}\n")
    return "\n\n".join(out)


# ---------------------------------------------------------------------------- the need block
NeedKind = Literal["file", "lines", "symbol"]


@dataclass(frozen=True)
class NeedItem:
    """One thing the model asked for."""

    kind: NeedKind
    path: str = ""
    start: int = 0
    end: int = 0
    name: str = ""

    def __str__(self) -> str:
        if self.kind == "symbol":
            return f"symbol {self.name}"
        if self.kind == "lines":
            return f"{self.path}:{self.start}-{self.end}"
        return self.path


_BARE_NEED = re.compile(r"^[ \t]*need[ \t]*:?[ \t]*\n((?:[ \t]*\S.*(?:\n|$))+)", re.M | re.I)


def parse_need(reply: str) -> list[NeedItem] | None:
    """The items of the reply's need blocks (each once), or None when it has none.

    A need block that lost its fence (a line "need", then the items up to a blank line, as
    small models write it) is one too: the model asked, it did not answer."""
    blocks = [body for _fence, body in _NEED.findall(reply)]
    if not blocks:
        blocks = [m.group(1) for m in _BARE_NEED.finditer(reply)]
    if not blocks:
        return None
    items: list[NeedItem] = []
    for body in blocks:
        for raw in body.splitlines():
            line = raw.strip().lstrip("-*").strip().strip("`").strip()
            if not line or line.startswith("#"):
                continue
            item = _item(line)
            if item is not None and item not in items:
                items.append(item)
    return items


def _item(line: str) -> NeedItem | None:
    symbol = _SYMBOL.match(line)
    if symbol:
        return NeedItem("symbol", name=symbol.group("name").replace("::", "."))
    if line.lower().startswith(("file:", "path:")):
        line = line.split(":", 1)[1].strip()
    ranged = _RANGE.match(line)
    if ranged:
        start = int(ranged.group("start"))
        end = int(ranged.group("end") or start)
        if start > end:
            start, end = end, start
        return NeedItem("lines", path=ranged.group("path").strip(), start=start, end=end)
    if " " in line.strip():
        return None  # prose, not a path
    return NeedItem("file", path=line)


def need_block(items: Sequence[NeedItem]) -> str:
    """A need block holding ``items``: what the conversation keeps of a reply that asked for
    more (its prose and anything else it held would only take room)."""
    return "```need\n" + "\n".join(str(i) for i in items) + "\n```"


def more_user_message(
    parts: Sequence[Part],
    not_given: Sequence[tuple[str, str]],
    rounds_left: int,
    *,
    numbers: bool = True,
) -> str:
    """The answer to a need block: what was found, what was not and why, and what to do now.
    ``numbers=False``: whole files as they are, for a model that writes files out whole (it
    copies the numbers into its answer otherwise)."""
    out = []
    if parts:
        said = " (each line starts with its line number in the file)" if numbers else ""
        out += [
            f"Here is what you asked for{said}:",
            *[render_part(p, numbers=numbers) for p in parts],
        ]
    if not_given:
        out.append("Not given:\n" + "\n".join(f"- {what}: {why}" for what, why in not_given))
    if rounds_left > 0:
        out.append(
            "Now make the change requested above. If something you need is still missing you "
            "may ask once more with a need block; otherwise write the edits."
        )
    else:
        out.append(
            "Now make the change requested above with what you have: you cannot ask for more, "
            "so write the edits."
        )
    return "\n\n".join(out) + "\n"
