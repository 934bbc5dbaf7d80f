"""What model calls spent: one value type, one way to add it up, one way to show it.

Every command, ``git gpte log``, the Action's outputs, summary and status comment, and ``bench``
show usage through :meth:`Usage.describe` / :func:`format_cost`, so "unknown" reads the same
everywhere and an estimate is always marked as one (``~``). Adding is the only way to combine
usages: a cost stays known only while every paid call had a price.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

UNKNOWN_COST = "unknown"


def format_cost(cost: float | None, *, exact: bool = True) -> str:
    """``$0.0123`` (four decimals below a dollar, two above), ``unknown`` for None, and ``~``
    before an estimate."""
    if cost is None:
        return UNKNOWN_COST
    mark = "" if exact else "~"
    return f"{mark}${cost:.4f}" if cost < 1 else f"{mark}${cost:.2f}"


@dataclass(frozen=True)
class Usage:
    """Tokens in and out, the cost in US dollars (None: unknown), and whether the token
    counts came from the provider (``exact``) or were estimated."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0
    exact: bool = True

    def __add__(self, other: Usage) -> Usage:
        if not isinstance(other, Usage):
            return NotImplemented
        cost = (
            None
            if self.cost_usd is None or other.cost_usd is None
            else self.cost_usd + other.cost_usd
        )
        return Usage(
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            cost_usd=cost,
            exact=self.exact and other.exact,
        )

    @property
    def spent(self) -> bool:
        """Whether any tokens were used at all."""
        return bool(self.tokens_in or self.tokens_out)

    def cost_text(self) -> str:
        return format_cost(self.cost_usd, exact=self.exact)

    def tokens_text(self) -> str:
        mark = "" if self.exact else "~"
        return f"{mark}{self.tokens_in:,} tokens in, {mark}{self.tokens_out:,} out"

    def describe(self) -> str:
        """The one line every command prints: ``1,234 tokens in, 56 out, cost $0.0012``."""
        return f"{self.tokens_text()}, cost {self.cost_text()}"

    def outputs(self) -> dict[str, str]:
        """Machine-readable strings (GitHub Action outputs): an unknown cost is empty."""
        return {
            "tokens-in": str(self.tokens_in),
            "tokens-out": str(self.tokens_out),
            "cost-usd": "" if self.cost_usd is None else f"{self.cost_usd:.4f}",
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "usage_exact": self.exact,
        }


ZERO = Usage()


class Spent:
    """A result that carries a ``usage``, with its parts readable as attributes (what the
    results' JSON and older callers name ``tokens_in``, ``tokens_out`` and ``cost_usd``)."""

    usage: Usage

    @property
    def tokens_in(self) -> int:
        return self.usage.tokens_in

    @property
    def tokens_out(self) -> int:
        return self.usage.tokens_out

    @property
    def cost_usd(self) -> float | None:
        return self.usage.cost_usd


def total(usages: Iterable[Usage]) -> Usage:
    """The sum of an iterable of :class:`Usage` (``ZERO`` for none)."""
    result = ZERO
    for usage in usages:
        result = result + usage
    return result
