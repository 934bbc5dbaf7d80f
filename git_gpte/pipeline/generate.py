"""``init``: a prompt in, a generated project plus ``run.sh`` out, committed on a branch.

gpt-engineer's generate flow, in git: optional clarifying questions (one at a time, until the
model has none), the files as whole-file blocks, then ``run.sh`` written from those files. The
paths are checked like every LLM path; the files go straight into git's object database and a
new commit: on a new branch ``gpte/init-<slug>`` on top of HEAD, or — in a repository with no
commits yet — as the first commit of the current (unborn) branch. The ref update is create-only
either way. The work tree and index are not written, with one exception: a first commit on the
current branch, when nothing is staged and none of the files exists in the work tree, is checked
out as ``git clone`` would (otherwise ``git status`` would show every generated file as a staged
deletion, and the user's next commit would delete them); git's own check refuses to overwrite
anything.

``run.sh`` is checked for what it must not do (sudo, system package managers, global installs,
piping downloads into a shell). Findings are sent back once for a corrected script; what is
still there afterwards is committed with a warning (and noted in the commit message), because
nothing runs at ``init``: ``run``/``heal`` show the script and ask before running it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import EditError, UsageError
from ..git import (
    FileChange,
    Repository,
    branch_from_prompt,
    format_message,
    summary_line,
    unique_branch,
)
from ..git.branch import check_branch_name, require_new_branch
from ..git.checkout import check_out_first_commit
from ..git.paths import paths_in_the_way
from ..llm.usage import Spent, Usage
from ..prompts.messages import check_prompt, fence_for
from ..ui import Console
from .commit import CommitSpec, run_trailers
from .commit import commit as make_commit

if TYPE_CHECKING:
    from ..llm import ModelInfo
    from ..llm.session import Session

ENTRYPOINT = "run.sh"
MAX_QUESTIONS = 10
STOP_ANSWERS = ("", "c")  # gpt-engineer's "c" (or an empty answer): stop asking, go ahead

# clarify(question_text) -> the user's answer ("" or "c" stops the questions)
ClarifyCallback = Callable[[str], str]

if TYPE_CHECKING:
    from ..llm import LLM


@dataclass
class GenerateRequest:
    prompt: str
    model: str | None = None
    branch: str | None = None
    entrypoint: bool = True
    lite: bool = False
    clarify: ClarifyCallback | None = None  # None: no clarifying questions
    identity: tuple[str, str] | None = None
    cache: bool = False


@dataclass
class GenerateResult(Spent):
    run_id: str
    branch: str
    commit: str
    base: str | None  # None: the first commit of the repository
    files: list[str]
    overwritten: list[str]
    entrypoint_warnings: list[str]
    clarifications: list[dict[str, str]]
    usage: Usage
    model: str
    first_commit: bool = False
    checked_out: bool = False  # a first commit also written to the (empty) index and work tree
    problems: list[str] = field(default_factory=list)
    # A first commit of the current branch left out of the work tree: the files that are in the
    # way there (the user's, kept as they are); the others can be restored safely.
    in_the_way: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "branch": self.branch,
            "commit": self.commit,
            "base": self.base,
            "first_commit": self.first_commit,
            "checked_out": self.checked_out,
            "in_the_way": self.in_the_way,
            "model": self.model,
            "files": self.files,
            "overwritten": self.overwritten,
            "entrypoint_warnings": self.entrypoint_warnings,
            "clarifications": self.clarifications,
            "problems": self.problems,
            **self.usage.to_json(),
        }


# ---------------------------------------------------------------------------- run.sh checks
_UNSAFE: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"(?:^|[;&|(`]|\b(?:then|do|else|exec|xargs)\b)\s*(?P<tool>sudo|doas|su)\s", re.M
        ),
        "uses {tool} (root rights)",
    ),
    (
        re.compile(
            r"\b(?P<tool>apt-get|apt|yum|dnf|apk|pacman|zypper|brew|port|snap|choco)\s+"
            r"(?:-\S+\s+)*(?:install|add|-S)\b"
        ),
        "installs system packages with {tool}",
    ),
    (
        re.compile(r"\bnpm\s+(?:i|install|add)\b[^\n]*\s(?:-g|--global)\b"),
        "installs npm packages globally",
    ),
    (re.compile(r"\byarn\s+global\s+add\b"), "installs npm packages globally"),
    (re.compile(r"\bpip3?\s+install\b[^\n]*--user\b"), "installs into the user's site-packages"),
    (re.compile(r"--break-system-packages\b"), "installs into the system Python"),
    (
        re.compile(r"\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b"),
        "pipes a download into a shell",
    ),
    (
        re.compile(r"(?:>|\btee\s+(?:-a\s+)?)\s*/(?:etc|usr|opt|bin|sbin|lib)/"),
        "writes outside the project",
    ),
    (re.compile(r"\brm\s+-[a-zA-Z]*r[a-zA-Z]*\s+(?:/|~)"), "deletes outside the project"),
]
_PIP_INSTALL = re.compile(r"\bpip3?\s+install\b|\bpython3?\s+-m\s+pip\s+install\b")
_ISOLATED = re.compile(
    r"\bvenv\b|virtualenv|\.venv|\bconda\s|\bpoetry\s|\buv\s|\bpipenv\s|--target\b|--prefix\b"
)


def entrypoint_problems(script: str) -> list[str]:
    """What ``run.sh`` does that it must not: root rights, system or global installs, writes
    outside the project, downloads piped into a shell. Comments are ignored."""
    code = "\n".join(
        line.split("#", 1)[0] if not line.startswith("#!") else "" for line in script.splitlines()
    )
    found: list[str] = []
    for pattern, message in _UNSAFE:
        match = pattern.search(code)
        if match:
            text = message.format(tool=match.groupdict().get("tool", ""))
            if text not in found:
                found.append(text)
    if _PIP_INSTALL.search(code) and not _ISOLATED.search(code):
        found.append("runs pip install outside a virtual environment")
    return found


_BLOCK = re.compile(
    r"^ {0,3}(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^ {0,3}\1[ \t]*$", re.S | re.M
)


def extract_script(reply: str) -> str | None:
    """The shell script in an entrypoint reply: its shell code blocks joined (None if none)."""
    blocks = [(lang.lower(), body) for _f, lang, body in _BLOCK.findall(reply)]
    shell = [body for lang, body in blocks if lang in ("bash", "sh", "shell", "zsh", "console")]
    chosen = shell or [body for lang, body in blocks if not lang]
    if not chosen:
        return None
    script = "\n".join(body.rstrip("\n") for body in chosen).strip("\n") + "\n"
    if not script.startswith("#!"):
        script = "#!/usr/bin/env bash\n" + script
    return script


# ---------------------------------------------------------------------------- messages
def _render_files(files: dict[str, str]) -> str:
    parts = []
    for path, text in files.items():
        fence = fence_for(text)
        parts.append(f"{path}\n{fence}\n{text.rstrip(chr(10))}\n{fence}")
    return "\n\n".join(parts)


def _with_existing_files(
    repo: Repository,
    settings: Settings,
    model: ModelInfo,
    base: str,
    prompt: str,
    instruction: str,
    session: Session,
) -> str:
    """The request with the existing files it concerns (a selection within the context budget,
    whole files only, and a map of the others); noted in the run log as ``meta.context``."""
    from ..context import select
    from ..prompts.context import existing_files_message
    from .context_choice import resolve_context
    from .plan import REPLY_RESERVE_TOKENS
    from .shown import shown_from_selection

    choice = resolve_context(settings)
    budget = choice.budget_for(model)
    if model.context_tokens:
        budget = min(budget, model.context_tokens // 2 - REPLY_RESERVE_TOKENS)
    if budget < 256:
        return instruction
    selection = select(repo, base, prompt, budget)
    if not selection.picks and not selection.map:
        return instruction
    shown = shown_from_selection(repo, selection)
    whole = {p: part for p, part in shown.parts.items() if part.whole}
    context = {
        "mode": "existing files",
        "budget": budget,
        "sent": [{"path": p, "whole": True, "ranges": []} for p in whole],
        "map": [e.path for e in selection.map],
    }
    session.update(meta={"context": context})
    return existing_files_message(list(whole.values()), shown.map_text, instruction)


def _with_clarifications(prompt: str, qa: list[dict[str, str]]) -> str:
    if not qa:
        return prompt
    lines = [prompt.strip(), "", "Clarifications (my questions and the user's answers):"]
    for item in qa:
        lines += ["", f"Q: {item['question']}", f"A: {item['answer'] or '(no answer)'}"]
    return "\n".join(lines) + "\n"


def _nothing_to_clarify(text: str) -> bool:
    return bool(re.search(r"\bnothing (?:more |else )?to clarify\b", text, re.I))


# ---------------------------------------------------------------------------- the flow
def _target(repo: Repository, request: GenerateRequest) -> tuple[str | None, str]:
    """(base commit or None for a first commit, branch to create)."""
    if request.branch is not None:
        require_new_branch(repo, request.branch)
    if repo.has_commits():
        base = repo.resolve_commit("HEAD")
        if request.branch is not None:
            return base, request.branch
        return base, unique_branch(repo, branch_from_prompt(request.prompt, "gpte/init-"))
    if request.branch is not None:
        return None, request.branch
    current = repo.current_branch()
    if current is None:  # pragma: no cover - an unborn HEAD is always symbolic
        raise UsageError("HEAD names no branch; give one with --branch")
    return None, check_branch_name(repo, current)


def run_generate(
    repo: Repository, settings: Settings, request: GenerateRequest, console: Console
) -> GenerateResult:
    """Clarify (optional), generate, write run.sh, commit. Raises a GpteError on failure."""
    from ..llm import api_key, resolve_model
    from ..llm.session import Session

    check_prompt(request.prompt)
    identity = request.identity or repo.identity()
    base, branch = _target(repo, request)
    model = resolve_model(request.model, settings)
    api_key(model, settings)
    with Session(
        repo.state_dir(),
        "init",
        settings=settings,
        console=console,
        prompt=request.prompt,
        base=base,
        model=model,
        cache=request.cache,
    ) as session:
        return _generate(repo, request, console, session, identity, base, branch)


def _generate(
    repo: Repository,
    request: GenerateRequest,
    console: Console,
    session: Session,
    identity: tuple[str, str],
    base: str | None,
    branch: str,
) -> GenerateResult:
    from ..prompts import system_prompt

    assert session.model is not None
    model = session.model
    llm = session.client(model)
    qa: list[dict[str, str]] = []
    warnings: list[str] = []
    problems: list[str] = []
    if request.clarify is not None:
        qa = _clarify(llm, system_prompt("clarify", repo.root), request, console)
        session.update(meta={"clarifications": qa})
    files = _project_files(repo, request, console, session, llm, qa, base)
    if request.entrypoint:
        script, warnings = _entrypoint(llm, system_prompt("entrypoint", repo.root), files, console)
        if script is None:
            problems.append("the entrypoint reply held no shell code block; no run.sh")
            console.warn(problems[-1])
        else:
            files[ENTRYPOINT] = script
    elif ENTRYPOINT in files:
        warnings = entrypoint_problems(files[ENTRYPOINT])
    for warning in warnings:
        console.warn(f"{ENTRYPOINT} {warning}; review it before running it")
    overwritten = _overwritten(repo, base, files) if base else []
    message = format_message(
        summary_line(request.prompt),
        _commit_body(request, qa, warnings, problems, overwritten),
        run_trailers(session.id, model.name),
    )
    spec = CommitSpec(branch, base, message, identity, reason="git-gpte init")
    commit, checked_out, in_the_way = _commit_project(repo, spec, files)
    session.update(
        meta={"clarifications": qa, "entrypoint_warnings": warnings, "lite": request.lite}
    )
    session.finish(
        "partial" if problems else "ok",
        branch=branch,
        commit=commit,
        detail="; ".join(warnings + problems)[:2000] or None,
    )
    return GenerateResult(
        run_id=session.id,
        branch=branch,
        commit=commit,
        base=base,
        files=sorted(files),
        overwritten=overwritten,
        entrypoint_warnings=warnings,
        clarifications=qa,
        usage=session.own_usage,
        model=model.name,
        first_commit=base is None,
        checked_out=checked_out,
        problems=problems,
        in_the_way=in_the_way,
    )


def _commit_project(
    repo: Repository, spec: CommitSpec, files: Mapping[str, str]
) -> tuple[str, bool, list[str]]:
    """(the commit, whether it was checked out, the user's files in the way of that): a first
    commit of an empty repository is checked out as git clone would, when nothing is in the
    way; elsewhere only the branch moves."""
    changes = [
        FileChange(path, text.encode("utf-8"), executable=True if path == ENTRYPOINT else None)
        for path, text in files.items()
    ]
    commit = make_commit(repo, spec, changes)
    first = spec.base is None
    checked_out = first and check_out_first_commit(repo, spec.branch, commit)
    in_the_way = (
        paths_in_the_way(repo, sorted(files))
        if first and not checked_out and repo.current_branch() == spec.branch
        else []
    )
    return commit, checked_out, in_the_way


def _project_files(
    repo: Repository,
    request: GenerateRequest,
    console: Console,
    session: Session,
    llm: LLM,
    qa: list[dict[str, str]],
    base: str | None,
) -> dict[str, str]:
    """Ask for the project (its files, path line + code block each; asked once more when the
    reply holds none) and read them: path -> text, every path checked."""
    from ..edit import check_path, parse_reply
    from ..prompts import load, system_prompt

    assert session.model is not None
    system = (
        load("file_format", repo.root) if request.lite else system_prompt("generate", repo.root)
    )
    user = _with_clarifications(request.prompt, qa)
    if base is not None:
        user = _with_existing_files(
            repo, session.settings, session.model, base, request.prompt, user, session
        )
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    console.info(f"generating the project with {session.model.name}")
    reply = llm.ask(messages)
    parsed = parse_reply(reply.text, "files")
    if not parsed.edits:
        console.info("the reply held no files; asking once more")
        messages += [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": "Your reply contained no files in the required format. Write "
                "every file of the program as its path on a line of its own followed by "
                "the complete content in a fenced code block.",
            },
        ]
        parsed = parse_reply(llm.ask(messages).text, "files")
    if not parsed.edits:
        raise EditError("nothing committed: the reply held no files (path line + code block)")
    return {check_path(edit.path): edit.content or "" for edit in parsed.edits}


def _clarify(
    llm: LLM, system: str, request: GenerateRequest, console: Console
) -> list[dict[str, str]]:
    """Questions one at a time until the model has none, the user stops, or MAX_QUESTIONS."""
    assert request.clarify is not None
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": request.prompt},
    ]
    qa: list[dict[str, str]] = []
    for _ in range(MAX_QUESTIONS):
        reply = llm.ask(messages)
        if _nothing_to_clarify(reply.text):
            break
        answer = request.clarify(reply.text).strip()
        if answer.lower() in STOP_ANSWERS:
            qa.append({"question": reply.text.strip(), "answer": ""})
            break
        qa.append({"question": reply.text.strip(), "answer": answer})
        messages += [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": f"{answer}\n\nIs anything else unclear? If so, ask exactly one more "
                "question. If not, reply only with: Nothing to clarify",
            },
        ]
    else:
        console.info(f"stopped after {MAX_QUESTIONS} questions")
    return qa


def _entrypoint(
    llm: LLM, system: str, files: dict[str, str], console: Console
) -> tuple[str | None, list[str]]:
    """run.sh from the generated files; unsafe findings are fed back once."""
    console.info(f"writing {ENTRYPOINT}")
    messages = [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": "Information about the code base:\n\n"
            f"{_render_files({p: t for p, t in files.items() if p != ENTRYPOINT})}\n\n"
            "Write run.sh: install the dependencies (locally, in the project folder) and run "
            "the code.",
        },
    ]
    reply = llm.ask(messages)
    script = extract_script(reply.text)
    found = entrypoint_problems(script) if script else []
    if script is None or found:
        why = "; ".join(found) if found else "there was no ```bash code block"
        console.info(f"{ENTRYPOINT}: {why}; asking for a corrected script")
        messages += [
            {"role": "assistant", "content": reply.text},
            {
                "role": "user",
                "content": f"The script cannot be used as it is: {why}. Write it again as one "
                "```bash code block: no sudo, no system package managers, no global installs; "
                "install dependencies inside the project folder (for Python, a virtual "
                "environment in .venv).",
            },
        ]
        second = extract_script(llm.ask(messages).text)
        if second is not None:
            script = second
            found = entrypoint_problems(script)
    return script, found


def _overwritten(repo: Repository, base: str, files: dict[str, str]) -> list[str]:
    wanted = tuple(f":(literal){p}" for p in files)
    return sorted(e.path for e in repo.tree_entries(base, wanted) if e.path in files)


def _commit_body(
    request: GenerateRequest,
    qa: list[dict[str, str]],
    warnings: list[str],
    problems: list[str],
    overwritten: list[str],
) -> str:
    mode = "git gpte init --lite" if request.lite else "git gpte init"
    body = [f"Generated by {mode} from the prompt:", ""]
    body += [f"    {line}" for line in request.prompt.strip().splitlines()]
    if qa:
        body += ["", "Clarifications:"]
        for item in qa:
            body += [
                f"- Q: {' '.join(item['question'].split())[:300]}",
                f"  A: {item['answer'] or '(no answer)'}",
            ]
    if warnings:
        body += ["", f"{ENTRYPOINT} needs review before running it:"]
        body += [f"- it {w}" for w in warnings]
    if problems:
        body += ["", "Problems:", *[f"- {p}" for p in problems]]
    if overwritten:
        body += ["", "Replaces existing files:", *[f"- {p}" for p in overwritten]]
    return "\n".join(body)
