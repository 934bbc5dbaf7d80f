# ruff: noqa: E501, B023, RUF005
"""Benchmark: placing LLM-style diffs on real code — git-gpte vs ``git apply`` vs ``patch``.

    .venv/bin/python bench/apply.py [--seed N] [--files K]

Builds a corpus from Python standard-library files installed on this machine: for each file, a
correct edit, then one variant per mistake category real LLMs make (design section 4). Each case
has an expected outcome: the intended file text, or a refusal (ambiguous or invented context).
Every tool sees the same diff text. Scores: correct, wrong (a change that is not the intended
one: the dangerous outcome), refused/failed. Then timings: a 3-hunk diff with two mistakes on
5k/20k/50k-line files (in-process), and ``git gpte apply`` as a whole process.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from git_gpte.edit import apply_reply, parse_reply

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FILES = [
    "asyncio/events.py",
    "argparse.py",
    "json/decoder.py",
    "textwrap.py",
    "csv.py",
    "shutil.py",
    "logging/handlers.py",
    "http/client.py",
    "email/utils.py",
    "difflib.py",
    "configparser.py",
    "tarfile.py",
    "zipfile/__init__.py",
    "pathlib.py",
    "inspect.py",
]


@dataclass
class Case:
    category: str
    path: str
    original: str
    reply: str
    expected: str | None  # None: the right outcome is a refusal
    prefix: int = 0  # -p level for git apply / patch


# ------------------------------------------------------------------ corpus
def hunk_text(lines: list[str], at: int, new: list[str], ctx: int = 3) -> tuple[str, int, int]:
    """A correct hunk replacing ``lines[at]`` with ``new``; returns (body, old_start, old_len)."""
    lo, hi = max(0, at - ctx), min(len(lines), at + 1 + ctx)
    body = [f" {x}" for x in lines[lo:at]] + [f"-{lines[at]}"] + [f"+{x}" for x in new]
    body += [f" {x}" for x in lines[at + 1 : hi]]
    return "\n".join(body) + "\n", lo + 1, hi - lo


def header(start: int, old_len: int, new_len: int) -> str:
    return f"@@ -{start},{old_len} +{start},{new_len} @@\n"


def pick_lines(lines: list[str], rng: random.Random, k: int) -> list[int]:
    """Lines to edit: code lines whose 7-line neighbourhood occurs once in the file."""
    good = []
    text_blocks: dict[tuple[str, ...], int] = {}
    for i in range(3, len(lines) - 4):
        block = tuple(lines[i - 3 : i + 4])
        text_blocks[block] = text_blocks.get(block, 0) + 1
    for i in range(3, len(lines) - 4):
        s = lines[i].strip()
        if (
            len(s) > 12
            and not s.startswith(("#", '"', "'"))
            and text_blocks[tuple(lines[i - 3 : i + 4])] == 1
        ) and all(lines[j].strip() for j in range(i - 3, i + 4)):
            good.append(i)
    rng.shuffle(good)
    chosen: list[int] = []
    for i in good:
        if all(abs(i - j) > 12 for j in chosen):
            chosen.append(i)
        if len(chosen) == k:
            break
    return sorted(chosen)


def edit_line(line: str) -> list[str]:
    indent = line[: len(line) - len(line.lstrip())]
    return [line.rstrip() + "  # edited", f"{indent}_bench_marker = 1"]


def build_cases(rng: random.Random, nfiles: int) -> list[Case]:
    cases: list[Case] = []
    for rel in FILES[:nfiles]:
        src = STDLIB / rel
        if not src.exists():
            continue
        text = src.read_text(encoding="utf-8")
        lines = text.split("\n")[:-1]
        picks = pick_lines(lines, rng, 12)
        if len(picks) < 12:
            continue
        path = rel

        def apply_lines(targets: list[int], base: list[str] = lines) -> str:
            out = list(base)
            for at in sorted(targets, reverse=True):
                out[at : at + 1] = edit_line(base[at])
            return "\n".join(out) + "\n"

        def one(
            at: int, mutate: Callable[[list[str]], list[str]] | None = None, hdr: str | None = None
        ) -> str:
            body, start, n = hunk_text(lines, at, edit_line(lines[at]))
            blines = body.rstrip("\n").split("\n")
            if mutate:
                blines = mutate(blines)
            h = hdr if hdr is not None else header(start, n, n + 1)
            return h + "\n".join(blines) + "\n"

        def fenced(p: str, hunks: str, pre: str = "Here is the change:\n\n") -> str:
            return f"{pre}```diff\n--- {p}\n+++ {p}\n{hunks}```\n"

        a, b, c, d, e, f, g, h, i, j, k, m = picks
        exp1 = lambda at: apply_lines([at])  # noqa: E731
        cases += [
            Case("clean", path, text, fenced(path, one(a)), exp1(a)),
            Case(
                "wrong @@ numbers",
                path,
                text,
                fenced(path, one(b, hdr=header(b + 40, 7, 8))),
                exp1(b),
            ),
            Case(
                "@@ without numbers", path, text, fenced(path, one(c, hdr="@@ ... @@\n")), exp1(c)
            ),
            Case(
                "context without leading space",
                path,
                text,
                fenced(
                    path,
                    one(
                        d,
                        lambda bl: [
                            x[1:] if x.startswith(" ") and x[1:2] != " " else x for x in bl
                        ],
                    ),
                ),
                exp1(d),
            ),
            Case(
                "trailing whitespace in context",
                path,
                text,
                fenced(path, one(e, lambda bl: [x + "  " if x.startswith(" ") else x for x in bl])),
                exp1(e),
            ),
            Case(
                "indentation drift in context",
                path,
                text,
                fenced(
                    path,
                    one(f, lambda bl: [" " + x[3:] if x.startswith("    ") else x for x in bl]),
                ),
                exp1(f),
            ),
            Case(
                "context line left out",
                path,
                text,
                fenced(
                    path,
                    one(g, lambda bl: bl[:1] + bl[2:]),
                ),
                exp1(g),
            ),
            Case(
                "invented context line",
                path,
                text,
                fenced(
                    path, one(h, lambda bl: bl[:2] + ["    # validate the input first"] + bl[2:])
                ),
                exp1(h),
            ),
            Case(
                "a/ b/ prefixes",
                path,
                text,
                f"```diff\n--- a/{path}\n+++ b/{path}\n{one(i)}```\n",
                exp1(i),
                prefix=1,
            ),
            Case(
                "path without directories", path, text, fenced(path.split("/")[-1], one(j)), exp1(j)
            ),
            Case(
                "missing closing fence",
                path,
                text,
                f"```diff\n--- {path}\n+++ {path}\n{one(k)}",
                exp1(k),
            ),
            Case(
                "prose and empty fence first",
                path,
                text,
                "Plan:\n```diff\n```\n" + fenced(path, one(m)),
                exp1(m),
            ),
            Case(
                "hunks out of order", path, text, fenced(path, one(b) + one(a)), apply_lines([a, b])
            ),
            Case("same hunk twice", path, text, fenced(path, one(c) + one(c)), exp1(c)),
            Case(
                "two diffs for one file",
                path,
                text,
                fenced(path, one(d)) + fenced(path, one(e)),
                apply_lines([d, e]),
            ),
            Case(
                "several mistakes in one hunk",
                path,
                text,
                fenced(
                    path,
                    one(
                        f,
                        lambda bl: [x + " " if x.startswith(" ") else x for x in bl[:1] + bl[2:]],
                        hdr="@@ -1,1 +1,1 @@\n",
                    ),
                ),
                exp1(f),
            ),
        ]
        # LF reply on a CRLF file: the file keeps CRLF.
        crlf = text.replace("\n", "\r\n")
        cases.append(
            Case(
                "CRLF file, LF reply",
                path,
                crlf,
                fenced(path, one(g)),
                exp1(g).replace("\n", "\r\n"),
            )
        )
        # Context that occurs twice: the line number decides; missing or far off, refuse.
        dup_lines = lines + ["", "# copy"] + lines[h - 3 : h + 4]
        dup_text = "\n".join(dup_lines) + "\n"
        body, start, n = hunk_text(lines, h, edit_line(lines[h]))
        right = dup_lines[:]
        right[h : h + 1] = edit_line(lines[h])
        cases.append(
            Case(
                "duplicate context, right number",
                path,
                dup_text,
                fenced(path, header(start, n, n + 1) + body),
                "\n".join(right) + "\n",
            )
        )
        cases.append(
            Case(
                "duplicate context, no number",
                path,
                dup_text,
                fenced(path, "@@ ... @@\n" + body),
                None,
            )
        )
        mid = (h + len(lines)) // 2
        cases.append(
            Case(
                "duplicate context, misleading number",
                path,
                dup_text,
                fenced(path, header(mid, n, n + 1) + body),
                None,
            )
        )
        # Context the file does not have at all.
        fake = " def _bench_missing(self):\n-    return self._nothing_here\n+    return None\n     # done\n"
        cases.append(
            Case(
                "context not in the file",
                path,
                text,
                fenced(path, "@@ -10,3 +10,3 @@\n" + fake),
                None,
            )
        )
        # A removed line that differs from the file's (the LLM misread the line): refuse.
        body2, start2, n2 = hunk_text(lines, i, edit_line(lines[i]))
        body2 = body2.replace(f"-{lines[i]}\n", f"-{lines[i].rstrip()} + 1\n", 1)
        cases.append(
            Case(
                "removed line not in the file",
                path,
                text,
                fenced(path, header(start2, n2, n2 + 1) + body2),
                None,
            )
        )
        # A near-copy of the edited block a few lines below it (same alignment window), and a
        # hunk that needs fuzzy matching (an invented line) with no number: refuse.
        near = lines[: h + 4] + [""] + lines[h - 3 : h + 4] + lines[h + 4 :]
        near_text = "\n".join(near) + "\n"
        body3, _, _ = hunk_text(lines, h, edit_line(lines[h]))
        bl3 = body3.rstrip("\n").split("\n")
        bl3 = bl3[:2] + ["    # validate the input first"] + bl3[2:]
        cases.append(
            Case(
                "near-copy in the same window, fuzzy, no number",
                path,
                near_text,
                fenced(path, "@@ ... @@\n" + "\n".join(bl3) + "\n"),
                None,
            )
        )
        # The numbers are off by a whole copy's distance (a unique hunk shows it): the number of
        # a hunk whose context occurs twice must not pick the copy it happens to point at.
        gap = len(lines) + 2 - (h - 3)  # from the original block to its copy in dup_text
        if gap:
            ba, sa, na = hunk_text(lines, a, edit_line(lines[a]))
            misled = header(sa + gap, na, na + 1) + ba + header(start + gap, n, n + 1) + body
            only_a = dup_lines[:]
            only_a[a : a + 1] = edit_line(lines[a])
            cases.append(
                Case(
                    "duplicate context, number contradicted by another hunk",
                    path,
                    dup_text,
                    fenced(path, misled),
                    "\n".join(only_a) + "\n",
                )
            )
        # Tab-indented file, reply indented with spaces: the added lines take the file's tabs.
        if all(not x.startswith("\t") for x in lines):
            tabbed = [_to_tabs(x) for x in lines]
            tb, ts, tn = hunk_text(lines, j, edit_line(lines[j]))
            want = tabbed[:]
            want[j : j + 1] = [_to_tabs(x) for x in edit_line(lines[j])]
            cases.append(
                Case(
                    "tab-indented file, reply with spaces",
                    path,
                    "\n".join(tabbed) + "\n",
                    fenced(path, header(ts, tn, tn + 1) + tb),
                    "\n".join(want) + "\n",
                )
            )
        # CRLF file without a final newline, a line appended at its end.
        crlf_nofinal = crlf[:-2]
        tail = (
            f"@@ -{len(lines) - 2},3 +{len(lines) - 2},4 @@\n"
            + "".join(f" {x}\n" for x in lines[-3:])
            + "+# appended\n"
        )
        cases.append(
            Case(
                "CRLF file without final newline, line appended",
                path,
                crlf_nofinal,
                fenced(path, tail),
                crlf_nofinal + "\r\n# appended",
            )
        )
    return cases


def _to_tabs(line: str) -> str:
    lead = len(line) - len(line.lstrip(" "))
    return "\t" * (lead // 4) + " " * (lead % 4) + line[lead:]


# ------------------------------------------------------------------ tools
def run_gpte(case: Case) -> str | None:
    """The file after git-gpte's apply: None when it was deleted, the original when untouched."""
    result = apply_reply(
        {case.path: case.original}, parse_reply(case.reply), known_paths=[case.path, "x/other.py"]
    )
    return result.files.get(case.path, case.original)


def extract_patch(reply: str) -> str:
    """The text between the fences, as a user would feed it to git apply / patch."""
    out, inside = [], False
    for line in reply.split("\n"):
        if line.startswith("```"):
            inside = not inside if line.strip() != "```diff" or not inside else inside
            continue
        if inside or line.startswith(("--- ", "+++ ", "@@", " ", "+", "-")):
            out.append(line)
    return "\n".join(out) + "\n"


def run_tool(tool: str, case: Case, work: Path) -> str:
    if work.exists():
        shutil.rmtree(work)
    target = work / case.path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(case.original.encode())
    patch = work / ".reply.patch"
    patch.write_text(extract_patch(case.reply))
    if tool == "git apply":
        cmd = ["git", "apply", f"-p{case.prefix}", "--recount", "--unidiff-zero", str(patch)]
    else:
        cmd = [
            "patch",
            f"-p{case.prefix}",
            "--batch",
            "--forward",
            "--no-backup-if-mismatch",
            "-r",
            "-",
            "-i",
            str(patch),
        ]
    subprocess.run(cmd, cwd=work, capture_output=True, check=False, timeout=30)
    return target.read_bytes().decode(errors="replace") if target.exists() else ""


def score(outcomes: list[tuple[Case, str]]) -> tuple[int, int, int]:
    correct = wrong = refused = 0
    for case, out in outcomes:
        if case.expected is None:
            if out == case.original:
                correct += 1
            else:
                wrong += 1
        elif out == case.expected:
            correct += 1
        elif out == case.original:
            refused += 1
        else:
            wrong += 1
    return correct, wrong, refused


# ------------------------------------------------------------------ timings
def big_file(n_lines: int) -> list[str]:
    """Real code, ``n_lines`` long: standard-library modules one after another."""
    lines: list[str] = []
    for p in sorted(STDLIB.glob("*.py")):
        try:
            lines += p.read_text(encoding="utf-8").split("\n")[:-1]
        except UnicodeDecodeError:
            continue
        if len(lines) >= n_lines:
            break
    return lines[:n_lines]


def timing_case(n_lines: int, rng: random.Random) -> tuple[str, str]:
    lines = big_file(n_lines)
    # Each copy of the stdlib repeats, so pick lines whose context is unique in the big file.
    picks = pick_lines(lines, rng, 3)
    hunks = []
    for n, at in enumerate(picks):
        body, start, size = hunk_text(lines, at, edit_line(lines[at]))
        bl = body.rstrip("\n").split("\n")
        if n == 1:
            bl = [x + "  " if x.startswith(" ") else x for x in bl]  # mistake: trailing whitespace
        if n == 2:
            bl = bl[:1] + bl[2:]  # mistake: a context line left out
        hunks.append(header(start + 25, size, size + 1) + "\n".join(bl) + "\n")  # wrong numbers too
    reply = "```diff\n--- big.py\n+++ big.py\n" + "".join(hunks) + "```\n"
    return "\n".join(lines) + "\n", reply


def time_in_process(text: str, reply: str, repeat: int = 15) -> tuple[float, bool]:
    times = []
    ok = False
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = apply_reply({"big.py": text}, parse_reply(reply), known_paths=["big.py"])
        times.append(time.perf_counter() - t0)
        ok = result.applied_count == 3 and not result.refused
    return statistics.median(times), ok


def time_gpte_process(case: Case, repeat: int = 10) -> float:
    exe = shutil.which("git-gpte", path=str(Path(sys.executable).parent)) or "git-gpte"
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "r"
        (repo / Path(case.path).parent).mkdir(parents=True, exist_ok=True)
        (repo / case.path).write_text(case.original)
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "b",
            "GIT_AUTHOR_EMAIL": "b@b",
            "GIT_COMMITTER_NAME": "b",
            "GIT_COMMITTER_EMAIL": "b@b",
        }
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
            subprocess.run(["git", *args], cwd=repo, check=True, env=env)
        reply = Path(tmp) / "reply.md"
        reply.write_text(case.reply)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            proc = subprocess.run(
                [exe, "apply", "--check", str(reply)],
                cwd=repo,
                capture_output=True,
                env=env,
                check=False,
            )
            times.append(time.perf_counter() - t0)
            assert proc.returncode == 0, proc.stdout + proc.stderr
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--files", type=int, default=len(FILES))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = build_cases(rng, args.files)
    print(
        f"corpus: {len(cases)} cases on {len({c.path for c in cases})} stdlib files "
        f"({len({c.category for c in cases})} categories), seed {args.seed}\n"
    )
    results: dict[str, list[tuple[Case, str]]] = {}
    times: dict[str, float] = {}
    tools = ["git-gpte", "git apply"] + (["patch"] if shutil.which("patch") else [])
    with tempfile.TemporaryDirectory() as tmp:
        for tool in tools:
            t0 = time.perf_counter()
            if tool == "git-gpte":
                results[tool] = [(c, run_gpte(c) or "") for c in cases]
            else:
                results[tool] = [(c, run_tool(tool, c, Path(tmp) / "w")) for c in cases]
            times[tool] = time.perf_counter() - t0
    print(f"{'tool':10} {'correct':>9} {'wrong':>8} {'refused':>8} {'time':>8}")
    for tool in tools:
        ok, bad, ref = score(results[tool])
        n = len(cases)
        print(
            f"{tool:10} {100 * ok / n:8.1f}% {100 * bad / n:7.1f}% {100 * ref / n:7.1f}% {times[tool]:7.2f}s"
        )
    print("\nper category (correct / wrong, of cases):")
    cats = sorted({c.category for c in cases})
    print(f"  {'category':36}" + "".join(f"{t:>14}" for t in tools))
    for cat in cats:
        row = f"  {cat:36}"
        for tool in tools:
            sub = [(c, o) for c, o in results[tool] if c.category == cat]
            ok, bad, _ = score(sub)
            row += f"{f'{ok}/{bad} of {len(sub)}':>14}"
        print(row)
    wrong = [c for c, o in results["git-gpte"] if score([(c, o)])[1]]
    for c in wrong[:5]:
        print(f"  git-gpte WRONG: {c.category} {c.path}")
    print("\n3 hunks, 2 mistakes (+ wrong numbers), in-process parse+place+apply, median of 15:")
    for n in (5_000, 20_000, 50_000):
        text, reply = timing_case(n, random.Random(n))
        t, ok = time_in_process(text, reply)
        print(
            f"  {n:>6} lines: {1000 * t:6.1f} ms  ({'all 3 applied' if ok else 'NOT all applied'})"
        )
    clean = next(c for c in cases if c.category == "clean")
    print(
        f"\n`git gpte apply --check` whole process, median of 10: {time_gpte_process(clean):.3f} s"
    )


if __name__ == "__main__":
    main()
