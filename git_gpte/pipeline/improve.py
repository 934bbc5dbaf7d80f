"""``improve``: base files + an instruction -> validated edits -> a commit on a new branch.

The steps, composed from the layers that know nothing of each other: the git layer reads the
base tree and builds the commit; the LLM layer asks (streaming, retrying, logging); the edit
engine parses and places the reply in memory. Refused hunks and Python files that stopped
compiling are sent back for a corrected answer, a bounded number of times. The user's work tree,
index, HEAD and current branch are never touched.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import EditError, GpteError, Interrupted, LLMError, RepoError, UsageError
from ..git import (
    FileChange,
    Repository,
    advance_branch,
    branch_from_prompt,
    build_commit,
    create_branch,
    decode_text,
    format_message,
    summary_line,
    unique_branch,
)
from ..git.branch import check_branch_name, require_new_branch
from ..ui import Console
from .messages import improve_user_message, retry_user_message
from .selection import DEFAULT_MAX_FILE_BYTES, Selection, select_files

if TYPE_CHECKING:
    from ..edit import HunkReport

# Room kept free in the context window for the model's answer.
REPLY_RESERVE_TOKENS = 4096


@dataclass
class ImproveRequest:
    prompt: str
    pathspecs: tuple[str, ...] = ()
    model: str | None = None
    base: str = "HEAD"
    branch: str | None = None
    max_retries: int = 2
    edit_format: str = "diff"
    images: tuple[str, ...] = ()
    cache: bool = False
    identity: tuple[str, str] | None = None
    command: str = "improve"
    from_worktree: bool = False
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    branch_prefix: str = "gpte/"
    system_prompt: str | None = None  # heal and init bring their own
    # heal: commit on top of ``base`` on the existing ``branch`` (which must point at ``base``),
    # advancing it with a compare-and-swap instead of creating it.
    extend_branch: bool = False
    summary: str | None = None  # commit summary line (default: the prompt's first line)
    commit_body: str | None = None  # replaces the "Prompt:" section of the commit body


@dataclass
class ImproveResult:
    run_id: str
    branch: str
    commit: str
    base: str
    applied: int
    refused: list[str]
    files_changed: list[str]
    tokens_in: int
    tokens_out: int
    cost_usd: float | None
    exit_code: int
    problems: list[str] = field(default_factory=list)
    attempts: int = 1
    model: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "branch": self.branch,
            "commit": self.commit,
            "base": self.base,
            "model": self.model,
            "applied": self.applied,
            "refused": self.refused,
            "problems": self.problems,
            "files_changed": self.files_changed,
            "attempts": self.attempts,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "exit_code": self.exit_code,
        }


@dataclass
class ImprovePlan:
    """Everything decided before the first LLM call (what ``--dry-run`` shows)."""

    base: str
    branch: str
    selection: Selection
    messages: list[dict[str, str]]
    model: Any  # git_gpte.llm.ModelInfo
    tokens_estimate: int
    tokens_exact: bool
    cost_estimate: float | None
    worktree_changes: list[FileChange] = field(default_factory=list)
    # Set by a dry run instead of raising: the selection a real run would refuse, and why.
    over_budget: UsageError | None = None


class _Overlay(Mapping[str, str]):
    """Files as the edit engine sees them: the base tree with the edits so far laid over it.

    Lazy, so a reply may edit any tracked text file, not only those sent, without reading the
    whole repository up front.
    """

    def __init__(self, repo: Repository, base_files: dict[str, str], base_sha: dict[str, str]):
        self._repo = repo
        self._base = base_files
        self._sha = base_sha
        self.changes: dict[str, str | None] = {}

    def __getitem__(self, path: str) -> str:
        if path in self.changes:
            value = self.changes[path]
            if value is None:
                raise KeyError(path)
            return value
        if path not in self._base:
            sha = self._sha.get(path)
            if sha is None:
                raise KeyError(path)
            from ..edit import UnreadableFile

            text = decode_text(self._repo.read_blob(sha))
            if text is None:
                raise UnreadableFile(path)
            self._base[path] = text
        return self._base[path]

    def __iter__(self) -> Iterator[str]:
        seen = {p for p, v in self.changes.items() if v is not None}
        yield from seen
        yield from (p for p in self._sha if p not in self.changes)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def exists(self, path: str) -> bool:
        from ..edit import UnreadableFile

        try:
            self[path]
        except (KeyError, UnreadableFile):
            return False
        return True


def _worktree_changes(repo: Repository, paths: set[str]) -> list[FileChange]:
    changes = []
    for path in sorted(paths):
        full = repo.root / path
        if full.is_symlink():
            continue
        if full.is_file():
            changes.append(
                FileChange(path, full.read_bytes(), executable=bool(full.stat().st_mode & 0o111))
            )
        elif not full.exists():
            changes.append(FileChange(path, None))
    return changes


def plan_improve(
    repo: Repository,
    settings: Settings,
    request: ImproveRequest,
    console: Console,
    *,
    dry_run: bool = False,
) -> ImprovePlan:
    """Resolve base, branch, files, model and messages; estimate tokens. No LLM call.

    A selection over the model's context budget is refused; a dry run reports it in the plan
    instead, since showing what would be sent (and that it is too much) is its whole job.
    """
    from ..llm import estimate_tokens, resolve_model
    from ..prompts import system_prompt

    if not request.prompt.strip():
        raise UsageError("the prompt is empty")
    base = repo.resolve_commit(request.base)
    if request.base == "HEAD" and repo.current_branch() is None:
        console.info(f"HEAD is detached; the edit is based on its commit {base[:12]}")
    if request.extend_branch:
        if not request.branch:
            raise UsageError("extend_branch needs the branch to extend")
        branch = check_branch_name(repo, request.branch)
        ref = f"refs/heads/{branch}"
        if not repo.ref_exists(ref) or repo.git_run("rev-parse", ref) != base:
            raise RepoError(
                f"branch {branch!r} does not point at {base[:12]}; it was changed meanwhile"
            )
    elif request.branch:
        branch = require_new_branch(repo, request.branch)
    else:
        branch = unique_branch(repo, branch_from_prompt(request.prompt, request.branch_prefix))

    worktree_changes: list[FileChange] = []
    if request.from_worktree:
        head = repo.resolve_commit("HEAD")
        if base != head:
            raise UsageError("--from-worktree needs the base to be HEAD (your changes are on HEAD)")
        worktree_changes = _worktree_changes(repo, repo.dirty_paths())
        untracked = repo.git_run("ls-files", "-z", "--others", "--exclude-standard", strip=False)
        count = len([p for p in untracked.split("\0") if p])
        if count:
            console.warn(
                f"{count} untracked file(s) are not included: only tracked files are sent "
                "(git add them to include them)"
            )
        if worktree_changes:
            base = build_commit(
                repo,
                base,
                worktree_changes,
                format_message(
                    "Uncommitted changes the edit is based on",
                    "Taken from the work tree by git-gpte --from-worktree.",
                ),
                identity=request.identity,
            )

    selection = select_files(repo, base, request.pathspecs, max_bytes=request.max_file_bytes)
    model = resolve_model(request.model, settings)
    if request.images and model.supports_images is False:
        raise UsageError(f"model {model.name!r} does not accept images (--image)")
    system = request.system_prompt or system_prompt(
        "improve", repo.root, edit_format=request.edit_format
    )
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": improve_user_message(selection.files, request.prompt)},
    ]
    tokens, exact = estimate_tokens(messages, model.name)
    cost = model.estimate_cost(tokens, 0)
    budget = (model.context_tokens or 0) - REPLY_RESERVE_TOKENS
    over_budget = None
    if model.context_tokens and tokens > budget:
        largest = sorted(selection.files, key=lambda p: -len(selection.files[p]))[:5]
        sizes = ", ".join(f"{p} ({len(selection.files[p]):,} chars)" for p in largest)
        over_budget = UsageError(
            f"the selection is ~{tokens:,} tokens, over {model.name}'s budget of {budget:,}",
            hint=f"largest: {sizes}; narrow it with pathspecs, e.g. git gpte improve PROMPT src/",
        )
        if not dry_run:
            raise over_budget
    if not request.from_worktree and base == repo.resolve_commit("HEAD"):
        dirty = sorted(repo.dirty_paths() & set(selection.files))
        if dirty:
            shown = ", ".join(dirty[:5]) + (" …" if len(dirty) > 5 else "")
            remedy = (
                "use --from-worktree to include them"
                if request.command == "improve"
                else "the committed code is what runs and is edited"
            )
            console.warn(
                f"{len(dirty)} file(s) sent have uncommitted changes ({shown}); the edit is based "
                f"on {base[:12]} and does not include them ({remedy})"
            )
    return ImprovePlan(
        base=base,
        branch=branch,
        selection=selection,
        messages=messages,
        model=model,
        tokens_estimate=tokens,
        tokens_exact=exact,
        cost_estimate=cost,
        worktree_changes=worktree_changes,
        over_budget=over_budget,
    )


def python_problems(before: Mapping[str, str], changes: Mapping[str, str | None]) -> list[str]:
    """Python files that compiled before the edit and do not now (pre-existing breakage ignored)."""
    problems = []
    for path, text in changes.items():
        if text is None or not path.endswith(".py"):
            continue
        try:
            compile(text, path, "exec", dont_inherit=True)
        except SyntaxError as exc:
            old = before.get(path)
            if old is not None:
                try:
                    compile(old, path, "exec", dont_inherit=True)
                except SyntaxError:
                    continue
            problems.append(f"{path}:{exc.lineno}: SyntaxError after your edit: {exc.msg}")
        except ValueError as exc:  # e.g. NUL bytes
            problems.append(f"{path}: cannot be compiled after your edit: {exc}")
    return problems


def run_improve(
    repo: Repository,
    settings: Settings,
    request: ImproveRequest,
    console: Console,
    plan: ImprovePlan | None = None,
) -> ImproveResult:
    """Ask, apply, retry, commit. Raises a GpteError when nothing is committed."""
    from ..edit import apply_reply, parse_reply
    from ..edit.render import retry_prompt
    from ..llm import LLM, RunLog, api_key

    identity = request.identity or repo.identity()  # fail before spending tokens
    plan = plan or plan_improve(repo, settings, request, console)
    if plan.over_budget is not None:
        raise plan.over_budget
    api_key(plan.model, settings)  # a missing key is one clear line, before anything is logged
    console.info(f"sending {len(plan.selection.files)} file(s) from {plan.base[:12]}")
    state = repo.state_dir()
    log = RunLog(state)
    run = log.start(
        command=request.command, prompt=request.prompt, model=plan.model.name, base=plan.base
    )
    llm = LLM(plan.model, settings, console=console, cache=request.cache, state_dir=state, run=run)
    sha = {e.path: e.sha for e in repo.tree_entries(plan.base) if e.is_regular}
    files = _Overlay(repo, dict(plan.selection.files), sha)
    known = sorted(sha)
    messages = plan.messages
    reports: list[HunkReport] = []
    refused_lines: list[str] = []
    problems: list[str] = []
    attempts = 0
    try:
        # Refusals not yet fixed, per file: a retry that leaves a file's failed hunks out
        # does not make them disappear; only a retry that edits that file clears them.
        outstanding: dict[str, list[HunkReport]] = {}
        for attempt in range(request.max_retries + 1):
            attempts = attempt + 1
            if attempt:
                console.info(f"retry {attempt}/{request.max_retries}: asking for what failed")
            reply = llm.ask(messages, images=request.images if attempt == 0 else ())
            parsed = parse_reply(reply.text, "auto")
            problems = []
            if not parsed.edits:
                problems.append("Your reply contained no edits in the requested format.")
            else:
                result = apply_reply(files, parsed, known_paths=known)
                reports.extend(result.reports)
                for report in result.reports:
                    console.detail(report.one_line())
                files.changes.update(result.files)
                for path in {r.path for r in result.reports if r.status != "refused"}:
                    outstanding.pop(path, None)
                for path in {r.path for r in result.refused}:
                    outstanding[path] = [r for r in result.refused if r.path == path]
            still_refused = [r for mine in outstanding.values() for r in mine]
            refused_lines = [_report_line(r) for r in still_refused]
            if still_refused:
                problems.append(retry_prompt(still_refused))
            problems += python_problems(plan.selection.files, files.changes)
            if not problems:
                break
            if attempt == request.max_retries:
                break
            failed_paths = sorted(
                set(outstanding)
                | {
                    path
                    for path, text in files.changes.items()
                    if text is not None and python_problems(plan.selection.files, {path: text})
                }
            )
            shown = {p: files[p] for p in failed_paths if files.exists(p)}
            messages = [
                messages[0],
                {
                    "role": "user",
                    "content": retry_user_message(
                        shown, request.prompt, "\n\n".join(problems), attempt + 1
                    ),
                },
            ]
        changes = _final_changes(files.changes, sha, repo)
        if not changes:
            if refused_lines:
                reason, detail = "every hunk was refused", "; ".join(refused_lines[:3])
            elif reports:
                reason, detail = "the edits left every file as it was", ""
            else:
                reason = "the reply held no usable edit"
                detail = f"no diff or SEARCH/REPLACE block in {attempts} answer(s)"
            raise EditError(f"nothing committed: {reason}" + (f" ({detail})" if detail else ""))
        applied = sum(1 for r in reports if r.status != "refused")
        body = _commit_body(request, refused_lines, problems if refused_lines or problems else [])
        message = format_message(
            summary_line(request.summary or request.prompt),
            body,
            [("Gpte-Run", run.id), ("Gpte-Model", plan.model.name)],
        )
        commit = build_commit(repo, plan.base, changes, message, identity=identity)
        if request.extend_branch:
            advance_branch(repo, plan.branch, commit, plan.base, f"git-gpte {request.command}")
        else:
            create_branch(repo, plan.branch, commit, reason=f"git-gpte {request.command}")
    except KeyboardInterrupt:
        run.finish(outcome="interrupted", detail="interrupted by the user")
        raise Interrupted("interrupted; nothing committed") from None
    except LLMError as exc:
        run.finish(outcome="llm-error", detail=exc.render())
        raise
    except EditError as exc:
        run.finish(outcome="refused" if refused_lines else "no-edits", detail=exc.render())
        raise
    except GpteError as exc:
        run.finish(outcome="error", detail=exc.render())
        raise
    partial = bool(refused_lines or problems)
    run.finish(
        outcome="partial" if partial else "ok",
        branch=plan.branch,
        commit=commit,
        detail="; ".join(refused_lines + problems)[:2000],
    )
    totals = llm.totals
    return ImproveResult(
        run_id=run.id,
        branch=plan.branch,
        commit=commit,
        base=plan.base,
        applied=applied,
        refused=refused_lines,
        problems=[p for p in problems if not p.startswith(tuple(refused_lines))],
        files_changed=sorted(c.path for c in changes),
        tokens_in=totals.tokens_in,
        tokens_out=totals.tokens_out,
        cost_usd=totals.cost_usd,
        exit_code=1 if partial else 0,
        attempts=attempts,
        model=plan.model.name,
    )


def _report_line(report: HunkReport) -> str:
    where = f"{report.path} hunk {report.hunk}"
    return f"{where}: {report.detail}" if report.detail else where


def _final_changes(
    changes: Mapping[str, str | None], base_sha: Mapping[str, str], repo: Repository
) -> list[FileChange]:
    """Changes that differ from the base (an edit that was later undone is dropped)."""
    out = []
    for path, text in sorted(changes.items()):
        if text is None:
            if path in base_sha:
                out.append(FileChange(path, None))
            continue
        data = text.encode("utf-8")
        if path in base_sha and repo.read_blob(base_sha[path]) == data:
            continue
        executable = True if Path(path).name == "run.sh" and path not in base_sha else None
        out.append(FileChange(path, data, executable=executable))
    return out


def _commit_body(request: ImproveRequest, refused: list[str], problems: list[str]) -> str:
    if request.commit_body is not None:
        body = request.commit_body.strip("\n").splitlines()
    else:
        body = ["Prompt:", "", *[f"    {line}" for line in request.prompt.strip().splitlines()]]
    if refused:
        body += ["", "Refused hunks (not applied):", *[f"- {line}" for line in refused]]
    other = [p for p in problems if not any(p.startswith(r) for r in refused)]
    syntax = [p for p in other if "SyntaxError" in p or "cannot be compiled" in p]
    if syntax:
        body += ["", "Problems left after the retries:", *[f"- {line}" for line in syntax]]
    return "\n".join(body)
