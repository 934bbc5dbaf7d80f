"""A blob's link facts: the little of its record that ranking and packing read of every file.

The link signals (rank_signals.identifier_users, links.link_graph) read, of every file of a
repository up to rank.GRAPH_FILE_LIMIT files, only its language, its imports, the names it
defines and the identifiers its chunks use; packing reads, of a file it does not excerpt, only
its size (lines, bytes, pieces) and the first lines of its map entry. Loading whole records for
that (every chunk's terms: 28 MB of JSON for mypy's 1,743 files) was the largest part of a warm
run, so the index keeps these facts beside each record (store.py, the ``links`` table), written
when the blob is indexed, and whole records are read only for the files whose chunks are ranked.

Everything here is made from a :class:`FileRecord` (:meth:`LinkFacts.of_record`), so a value
read from the index equals the one its record gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .parse import FileRecord

# Definition lines a map entry shows (pack.py). The index keeps this many per blob, so a
# change to it needs a new store.SCHEMA_VERSION.
MAP_SIGNATURES = 12


@dataclass(frozen=True, slots=True)
class LinkFacts:
    """What the link signals and packing read of a blob (see the module's docstring).

    ``defs`` the names its chunks define, distinct and sorted; ``used_text`` the identifiers
    its chunks use, distinct, sorted and joined by spaces, with a space at each end (see
    :meth:`uses`); ``signatures`` the first MAP_SIGNATURES (line, definition line) of its
    chunks, for its map entry. A tuple and a string, not sets: a run reads them for every file
    and asks each only a few questions (links.py, rank_signals.identifier_users). The
    identifiers used are left as one string because a warm run, whose link graph is kept, only
    asks whether a file uses the few the request names: splitting mypy's 325,000 was a
    tenth of such a run."""

    lang: str | None
    imports: tuple[str, ...]
    defs: tuple[str, ...]
    used_text: str
    lines: int
    nbytes: int
    pieces: int
    signatures: tuple[tuple[int, str], ...]
    generator: str | None = None  # the file its first lines say generated it (generated.py)

    @property
    def used(self) -> tuple[str, ...]:
        """The identifiers its chunks use (split on each call: only building the link graph,
        when it is not kept, reads them all)."""
        return tuple(self.used_text.split())

    def uses(self, name: str) -> bool:
        """Whether its chunks use the identifier ``name``."""
        return f" {name} " in self.used_text

    @classmethod
    def of_record(cls, record: FileRecord) -> LinkFacts:
        used = {ident for chunk in record.chunks for ident in chunk.idents}
        signatures = [(c.line, c.signature) for c in record.chunks if c.line and c.signature]
        return cls(
            lang=record.lang,
            imports=tuple(record.imports),
            defs=tuple(sorted({name for name, _ in record.defs})),
            used_text=_padded(" ".join(sorted(used))),
            lines=record.lines,
            nbytes=record.nbytes,
            pieces=record.pieces,
            signatures=tuple(signatures[:MAP_SIGNATURES]),
            generator=record.generator,
        )

    def to_json(self) -> list[Any]:
        """A JSON array. The identifiers used are one string, joined by spaces (they are
        terms.identifiers, which hold none): one JSON string and a split read faster than a
        list of thousands of strings."""
        return [
            self.lang,
            list(self.imports),
            list(self.defs),
            self.used_text[1:-1],
            self.lines,
            self.nbytes,
            self.pieces,
            [list(pair) for pair in self.signatures],
            self.generator,
        ]

    @classmethod
    def from_json(cls, data: list[Any]) -> LinkFacts:
        lang, imports, defs, used, lines, nbytes, pieces, signatures, generator = data
        return cls(
            lang=None if lang is None else str(lang),
            imports=tuple(imports),
            defs=tuple(defs),
            used_text=_padded(str(used)),
            lines=int(lines),
            nbytes=int(nbytes),
            pieces=int(pieces),
            signatures=tuple((int(line), str(text)) for line, text in signatures),
            generator=None if generator is None else str(generator),
        )


def _padded(joined: str) -> str:
    """Identifiers joined by spaces, with a space at each end: ``" name "`` is then found only
    as a whole identifier."""
    return f" {joined} "
