"""The best file whole when it stands far above the rest (pack.py's DOMINANT_RATIO).

A file that fits the budget but not half of it went in excerpts, even when nothing else
matched the request half as well: the change was then often in a part the request does not
name (testify's "Clean up golint warnings" changed seven places of ``assertions.go``).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo

LEDGER = (
    "def post_amount(ledger, amount):\n"
    '    """Post an amount to the ledger."""\n'
    "    ledger.append(amount)\n\n\n"
) + "".join(
    f"def fold_{n}(values):\n"
    f'    """Fold the values, step {n}."""\n'
    f"    return [value * {n} for value in values]\n\n\n"
    for n in range(80)
)
# Further modules sharing one word of the request, each far below the ledger: their chunks
# would take what the ledger's excerpts leave.
REPORTS = {
    f"report_{k}.py": "".join(
        f"def total_{k}_{n}(rows):\n"
        f'    """The amount of the rows, part {n}."""\n'
        f"    return sum(row.amount for row in rows) + {n}\n\n\n"
        for n in range(12)
    )
    for k in range(6)
}


def _sent(repo: Path, request: str, tokens: int) -> list[str]:
    done = run_gpte("context", "--format", "lines", "--tokens", str(tokens), request, cwd=repo)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_dominant_file_that_fits_goes_whole(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"ledger.py": LEDGER, **REPORTS})
    sent = _sent(repo, "Round the amount posted to the ledger", 3000)
    assert "ledger.py" in sent, sent


def test_close_files_still_share_the_budget(tmp_path: Path) -> None:
    # Two files matching alike: neither stands out, so neither goes whole.
    journal = LEDGER.replace("ledger", "journal").replace("post_amount", "post_journal_amount")
    repo = make_repo(tmp_path / "r", {"ledger.py": LEDGER, "journal.py": journal, **REPORTS})
    sent = _sent(repo, "Round the amount posted to the ledger and the journal", 3000)
    assert "ledger.py" not in sent and "journal.py" not in sent, sent
