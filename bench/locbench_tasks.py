"""Locbench-style tasks from any repository's history, to score context selection beyond the
three public repositories.

The rules are locbench's (its README): the query is a commit message, cleaned of issue and
pull-request numbers, trailers and web-editor lines; the snapshot is the commit's parent; the
gold is the non-test ``.py`` files the commit modified (1 to 4); the gold lines are the ranges
of the parent that the commit modifies or deletes (a pure insertion: the line before and the
line after it), from ``git diff -U0``, merged when they overlap or touch. Commits are taken
from the first-parent history without merges, evenly spaced from the oldest, ``--per-repo``
of them per repository.

Beyond locbench, gold files may also be Go, JavaScript or TypeScript source (``--languages``,
all four by default), each with its ecosystem's test conventions excluded, and for those three
also vendored, built, minified and generated files. Python keeps locbench's rules exactly. Each
task records its ``language``: that of most of its gold files.

    python bench/locbench_tasks.py --mirror-root ROOT pallets/flask encode/httpx > held.jsonl
    python bench/context.py --mirror-root ROOT --tasks held.jsonl

``ROOT/OWNER+NAME/repo`` is a bare mirror (as the workplace's ``fetch`` makes them) or any
clone. The tasks are a check for over-fitting: a rule that gains on the public tasks and loses
here is tuned to those three repositories. Their figures are not comparable to the public ones
(locbench's tasks are curated; these are every commit the rules admit, vague ones included).
"""

from __future__ import annotations

import argparse
import json
import posixpath
import re
import subprocess
import sys
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

_TRAILER = re.compile(
    r"^\s*(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Fixes|Closes|Refs?|See)\s*:",
    re.IGNORECASE,
)
_WEB_EDITOR = re.compile(r"^\s*\*\s*Update \S+\s*$")
_NUMBER = re.compile(r"\(#\d+\)|(?<![\w/])#\d+\b|\bgh-\d+\b", re.IGNORECASE)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+", re.MULTILINE)
TEST_DIRS = {"test", "tests", "testing"}

# Source extensions per language; a tie in a task's language goes to the first listed.
LANGUAGES: dict[str, tuple[str, ...]] = {
    "python": (".py",),
    "go": (".go",),
    "typescript": (".ts", ".tsx"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs"),
}
GO_TEST_DIRS = {"testdata", "test", "tests"}
JS_TEST_DIRS = {"test", "tests", "__tests__", "__mocks__", "spec", "specs", "e2e"}
# a.test.ts, a.spec.js, index.test-d.ts (tsd), commander-tests.ts (dtslint), test.js
_JS_TEST_DIR = re.compile(r"[-_]tests?$")  # hono's runtime_tests/, integration-tests/
_JS_TEST_NAME = re.compile(r"\.(test|spec|e2e)(-d)?\.|[-_]tests?\.[^.]+$|^tests?\.[^.]+$")
# Vendored or built copies (Go, JavaScript, TypeScript): anywhere in the path, and a top-level
# deno/ (zod's generated copy of its sources; hono's src/adapter/deno/ is source).
GENERATED_DIRS = {"vendor", "third_party", "node_modules", "bower_components", "dist", "deno_dist"}
_GO_GENERATED = re.compile(r"^// Code generated .* DO NOT EDIT\.$", re.MULTILINE)


def clean_message(message: str) -> str:
    """A commit message as a request: no trailers, web-editor lines or issue numbers."""
    kept = []
    for line in message.splitlines():
        if _TRAILER.match(line) or _WEB_EDITOR.match(line):
            continue
        kept.append(_NUMBER.sub("", line).rstrip())
    return "\n".join(kept).strip()


def language_of(path: str) -> str | None:
    """The language whose source ``path`` is (``.d.ts`` declarations are none)."""
    if path.endswith(".d.ts"):
        return None
    return next((lang for lang, exts in LANGUAGES.items() if path.endswith(exts)), None)


def is_test(path: str, language: str = "python") -> bool:
    parts = path.lower().split("/")
    name = parts[-1]
    if language == "go":
        return name.endswith("_test.go") or any(p in GO_TEST_DIRS for p in parts[:-1])
    if language in ("javascript", "typescript"):
        in_tests = any(p in JS_TEST_DIRS or _JS_TEST_DIR.search(p) for p in parts[:-1])
        return in_tests or bool(_JS_TEST_NAME.search(name))
    return (
        any(p in TEST_DIRS for p in parts[:-1])
        or name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
    )


def is_generated(path: str, language: str) -> bool:
    """Vendored, built or minified by its path (Python: never, as in locbench)."""
    if language == "python":
        return False
    parts = path.lower().split("/")
    return (
        any(p in GENERATED_DIRS for p in parts[:-1])
        or (len(parts) > 1 and parts[0] == "deno")
        or ".min." in parts[-1]
    )


def task_language(gold: list[str]) -> str:
    """The language of most gold files (a tie: the first in ``LANGUAGES``)."""
    langs = [language_of(path) for path in gold]
    return max(LANGUAGES, key=lambda lang: (langs.count(lang), -list(LANGUAGES).index(lang)))


def gold_ranges(diff: str, parent_lines: int) -> list[list[int]]:
    """The parent's line ranges a ``git diff -U0`` touches, merged (insertions: both sides)."""
    ranges = []
    for match in _HUNK.finditer(diff):
        start = int(match.group(1))
        count = int(match.group(2)) if match.group(2) is not None else 1
        if count == 0:  # inserted after line `start`
            ranges.append([max(1, start), max(1, min(parent_lines, start + 1))])
        else:
            ranges.append([start, start + count - 1])
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        errors="replace",
        check=True,
    ).stdout


def _gold_file(repo: Path, parent: str, path: str, languages: Collection[str]) -> bool:
    language = language_of(path)
    if language not in languages or language is None:
        return False
    if is_test(path, language) or is_generated(path, language):
        return False
    if language == "go":  # Go's own mark of a generated file
        return not _GO_GENERATED.search(_git(repo, "show", f"{parent}:{path}"))
    return True


def _whole_tree(repo: Path, commit: str) -> bool:
    """Every blob of the commit's tree is in the repository. A snapshot may lack its largest
    files' blobs, and a task on such a tree cannot be checked out to be scored."""
    listing = _git(repo, "ls-tree", "-r", commit)
    blobs = [row.split()[2] for row in listing.splitlines() if row.split()[1:2] == ["blob"]]
    found = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch-check"],
        input="".join(f"{sha}\n" for sha in blobs),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return not any(line.endswith(" missing") for line in found.splitlines())


def candidate_commits(
    repo: Path, languages: Collection[str] = tuple(LANGUAGES)
) -> list[tuple[str, str, list[str]]]:
    """(commit, parent, gold files) of every admissible commit, oldest first."""
    found = []
    history = _git(repo, "log", "--first-parent", "--no-merges", "--format=%H %P", "HEAD")
    for line in history.splitlines():
        fields = line.split()
        if len(fields) != 2:
            continue
        commit, parent = fields
        status = _git(repo, "diff", "--name-status", "--no-renames", parent, commit)
        gold = [
            row.split("\t", 1)[1]
            for row in status.splitlines()
            if row.startswith("M\t") and _gold_file(repo, parent, row.split("\t", 1)[1], languages)
        ]
        if 1 <= len(gold) <= 4:
            found.append((commit, parent, gold))
    found.reverse()
    return found


def tasks_for(
    repo: Path, name: str, per_repo: int, languages: Collection[str] = tuple(LANGUAGES)
) -> Iterator[dict[str, Any]]:
    commits = candidate_commits(repo, languages)
    step = max(1, len(commits) // max(per_repo, 1))
    made = 0
    for commit, parent, gold in commits[::step]:
        if made >= per_repo:
            break
        query = clean_message(_git(repo, "log", "-1", "--format=%B", commit))
        if len(query) < 8 or not _whole_tree(repo, parent):
            continue
        gold_lines = {}
        for path in gold:
            diff = _git(repo, "diff", "-U0", "--no-renames", parent, commit, "--", path)
            lines = len(_git(repo, "show", f"{parent}:{path}").splitlines())
            gold_lines[path] = gold_ranges(diff, lines)
        made += 1
        yield {
            "id": f"{posixpath.basename(name)}-{commit[:10]}",
            "repo": name,
            "split": "heldout",
            "commit": commit,
            "parent": parent,
            "date": int(_git(repo, "log", "-1", "--format=%ct", commit)),
            "query": query,
            "gold": gold,
            "gold_lines": gold_lines,
            "other_changed": [],
            "parent_files": len(_git(repo, "ls-tree", "-r", "--name-only", parent).splitlines()),
            "language": task_language(gold),
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror-root", required=True, type=Path)
    parser.add_argument("--per-repo", type=int, default=40)
    parser.add_argument(
        "--languages",
        default=",".join(LANGUAGES),
        help=f"comma-separated languages whose source files can be gold (default: all of "
        f"{', '.join(LANGUAGES)})",
    )
    parser.add_argument("repos", nargs="+", metavar="OWNER/NAME")
    args = parser.parse_args()
    languages = [lang.strip() for lang in args.languages.split(",") if lang.strip()]
    unknown = sorted(set(languages) - set(LANGUAGES))
    if unknown or not languages:
        parser.error(f"--languages: not one of {', '.join(LANGUAGES)}: {', '.join(unknown)}")
    for name in args.repos:
        repo = args.mirror_root / name.replace("/", "+") / "repo"
        if not repo.exists():
            print(f"no mirror at {repo}", file=sys.stderr)
            return 2
        count = 0
        for task in tasks_for(repo, name, args.per_repo, languages):
            print(json.dumps(task))
            count += 1
        print(f"{name}: {count} tasks", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
