"""The system prompts ("preprompts"): plain text files, overridable per repository.

Defaults ship in the top-level ``preprompts/`` folder of the source tree, which the wheel installs
as ``git_gpte/preprompts``. A repository overrides any of them by putting a file of the same name
in ``.gpte/preprompts/`` (``git gpte preprompts export`` copies the defaults there to start from).
The names and roles follow gpt-engineer's, so its users' custom preprompts keep working,
including the ``FILE_FORMAT`` placeholder. An empty override of ``roadmap`` or ``philosophy``
leaves that part out; an empty override of any other is an error (it would drop instructions the
replies depend on).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..edit.formats import EDIT_FORMATS
from ..errors import ConfigError, UsageError

OVERRIDE_DIR = Path(".gpte") / "preprompts"

NAMES: dict[str, str] = {
    "roadmap": "the opening: who the model is and that the work must be complete",
    "improve": "how to change existing code (used by improve)",
    "heal": "how to fix a program from its failed run (used by heal)",
    "generate": "how to write a new project (used by init)",
    "file_format": "whole-file blocks: path line + fenced code (init)",
    "file_format_diff": "unified diffs against line-numbered files (improve)",
    "file_format_search_replace": "SEARCH/REPLACE blocks (improve --edit-format search-replace)",
    "file_format_whole": "changed files written out whole (improve --edit-format whole)",
    "file_format_definitions": "changed functions and classes written out whole (improve "
    "--edit-format definitions)",
    "context": "what a selected context holds (improve, heal)",
    "context_ask": "how to ask for more files or symbols (when the model may)",
    "entrypoint": "how to write run.sh",
    "clarify": "asking one clarifying question before generating (init --clarify)",
    "philosophy": "coding conventions appended to every generating prompt",
}

# Edit format -> the preprompt that explains it; "files" is init's (a whole new project).
FORMAT_FILES = {
    **{name: fmt.preprompt for name, fmt in EDIT_FORMATS.items()},
    "files": "file_format",
}

PLACEHOLDER = "FILE_FORMAT"

# Parts an override may leave empty to drop them; the others carry instructions the replies
# depend on (the edit format above all), so an empty override of one of them is a mistake.
OPTIONAL = frozenset({"roadmap", "philosophy"})


def default_dir() -> Path:
    """The shipped preprompts: inside the installed package, else the source checkout's."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "preprompts", package.parent / "preprompts"):
        if (candidate / "roadmap").is_file():
            return candidate
    raise ConfigError(
        "the default preprompts are missing from this installation",
        hint=f"expected them in {package / 'preprompts'}; reinstall git-gpte",
    )


@dataclass(frozen=True)
class Preprompt:
    name: str
    text: str
    path: Path
    overridden: bool


def _check(name: str) -> None:
    if name not in NAMES:
        raise UsageError(f"no preprompt named {name!r}; known: {', '.join(NAMES)}")


def find(name: str, root: Path | str | None = None) -> Preprompt:
    """The preprompt ``name``: the repository's override if there is one, else the default."""
    _check(name)
    if root is not None:
        override_dir = Path(root) / OVERRIDE_DIR
        for candidate in (
            override_dir / name,
            override_dir / f"{name}.txt",
            override_dir / f"{name}.md",
        ):
            if candidate.is_file():
                text = _read(candidate)
                if not text.strip() and name not in OPTIONAL:
                    raise ConfigError(
                        f"the preprompt override {candidate} is empty",
                        hint=f"write the text for {name!r} there, or delete the file to use the "
                        "default",
                    )
                return Preprompt(name, text, candidate, True)
    path = default_dir() / name
    return Preprompt(name, _read(path), path, False)


def load(name: str, root: Path | str | None = None) -> str:
    return find(name, root).text


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read preprompt {path}: {exc}") from None


def _with_format(body: str, file_format: str) -> str:
    if PLACEHOLDER in body:
        return body.replace(PLACEHOLDER, file_format.strip())
    return body.rstrip() + "\n\n" + file_format.strip()


def system_prompt(kind: str, root: Path | str | None = None, *, edit_format: str = "diff") -> str:
    """The assembled system prompt for ``kind``.

    ``improve``: roadmap + improve (with the edit format);
    ``heal``: roadmap + heal (with the edit format);
    ``generate``: roadmap + generate (with whole-file format) + philosophy;
    ``entrypoint``, ``clarify``: that preprompt alone.

    The philosophy (which files a new project should have, one class per file) is for writing a
    project; sent with a change to an existing one it asks for files nobody wanted.
    """
    if kind in ("entrypoint", "clarify"):
        return load(kind, root).strip() + "\n"
    philosophy = ""
    if kind in ("improve", "heal"):
        if edit_format not in EDIT_FORMATS:
            raise UsageError(
                f"unknown edit format {edit_format!r}; expected one of {', '.join(EDIT_FORMATS)}"
            )
        body, fmt = load(kind, root), load(FORMAT_FILES[edit_format], root)
    elif kind == "generate":
        body, fmt = load("generate", root), load("file_format", root)
        philosophy = load("philosophy", root).strip()
    else:
        raise UsageError(f"no system prompt for {kind!r}")
    roadmap = load("roadmap", root).strip()
    parts = [
        roadmap,
        _with_format(body, fmt).strip(),
        "Useful to know:\n" + philosophy if philosophy else "",
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def export(dest: Path | str, *, force: bool = False) -> tuple[list[Path], list[Path]]:
    """Copy the defaults into ``dest``: (written, skipped because they exist and not ``force``)."""
    target = Path(dest)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {target}: {exc.strerror or exc}") from None
    source = default_dir()
    written: list[Path] = []
    skipped: list[Path] = []
    for name in NAMES:
        out = target / name
        if out.exists() and not force:
            skipped.append(out)
            continue
        try:
            tmp = out.with_name(f".{name}.{os.getpid()}.tmp")
            tmp.write_text(_read(source / name), encoding="utf-8")
            tmp.replace(out)
        except OSError as exc:
            raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
        written.append(out)
    return written, skipped
