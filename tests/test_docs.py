"""The documentation says what the code does: README.md's set-up commands are the ones CI runs,
every link leads somewhere, every option of every command is in docs/commands.md (and nothing
else is), every exit code is in docs/configuration.md, every input and output of action.yml is
in docs/action.md.

Plain text parsing, no Markdown library: headings, fenced blocks, tables and links are all the
documents use.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_MAX_LINES = 260


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def documents() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


# --- Markdown, as far as these documents need it ---------------------------------------------


def prose_lines(text: str) -> Iterator[str]:
    """The lines outside fenced code blocks (a fence closes on a run of the same character at
    least as long as the one that opened it)."""
    fence = ""
    for line in text.splitlines():
        stripped = line.strip()
        if fence:
            if stripped and set(stripped) == {fence[0]} and len(stripped) >= len(fence):
                fence = ""
            continue
        m = re.match(r"^(`{3,}|~{3,})", stripped)
        if m:
            fence = m.group(1)
            continue
        yield line


def fenced_blocks(text: str, info: str) -> list[str]:
    """The contents of the fenced blocks whose info string is ``info`` (e.g. ``sh``), in order."""
    return [m.group(2) for m in re.finditer(rf"^(`{{3,}}){info}\n(.*?)^\1$", text, re.M | re.S)]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation (backticks, colons, dashes that are
    not hyphens) removed, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in prose_lines(text):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(text: str) -> list[str]:
    """Targets of the inline links outside code (fenced blocks and code spans)."""
    targets: list[str] = []
    for line in prose_lines(text):
        line = re.sub(r"(`+).*?\1", "", line)
        targets += re.findall(r"\]\(([^)\s]+)\)", line)
    return targets


def table_rows(lines: list[str], header: str) -> Iterator[list[str]]:
    """The cells of each row of every table whose first header cell is ``header``."""
    inside = False
    for line in lines:
        if not line.startswith("|"):
            inside = False
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if not inside:
            inside = bool(cells) and cells[0] == header
            continue
        if set("".join(cells)) <= set("-: "):
            continue  # the separator row
        yield cells


def sections(text: str, pattern: str) -> dict[str | None, list[str]]:
    """Prose lines grouped under the headings matching ``pattern`` (its group 1 names the
    section, "" when it matched nothing); headings that do not match stay in the section above
    them. The lines before the first such heading are under None."""
    found: dict[str | None, list[str]] = {None: []}
    current = found[None]
    for line in prose_lines(text):
        m = re.match(pattern, line)
        if m:
            current = found.setdefault(m.group(1) or "", [])
        else:
            current.append(line)
    return found


# --- README.md --------------------------------------------------------------------------------


def test_readme_set_up_is_the_tool_alone_then_the_test_command_ci_runs() -> None:
    blocks = [b.strip() for b in fenced_blocks(read(README), "sh")]
    assert len(blocks) >= 2, "README.md needs its two set-up commands as the first ```sh blocks"
    install, tests = blocks[:2]
    assert "\n" not in install and "\n" not in tests, "each set-up command is one line"

    # The main job with the tool alone: no test extra, a dry run that needs no key, on a file
    # that exists.
    tool_alone = "python3 -m venv .venv && .venv/bin/pip install -e . && "
    assert install.startswith(tool_alone), f"the first command installs the tool alone: {install}"
    assert "[test]" not in install, "the first command installs the tool alone, not the test extra"
    job = re.search(r"git gpte improve --dry-run \"[^\"]+\"((?: [^ ]+)+)$", install)
    assert job, f"the first command runs the main job, a dry run on named files: {install}"
    for path in job.group(1).split():
        assert (ROOT / path).exists(), f"the set-up command names {path}, which does not exist"

    # The tests: exactly the line .ci/run runs.
    assert tests == (
        "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' "
        "&& .venv/bin/python -m pytest -n auto"
    ), f"the second command runs the tests as .ci/run does: {tests}"
    ci = [line.strip() for line in read(ROOT / ".ci" / "run").splitlines()]
    assert tests in ci, ".ci/run no longer runs the README's test command verbatim"


def test_readme_is_a_front_page_linking_every_docs_page() -> None:
    text = read(README)
    assert len(text.splitlines()) <= README_MAX_LINES, "move reference material to docs/"
    targets = {(README.parent / t.split("#")[0]).resolve() for t in links(text)}
    pages = sorted(DOCS.glob("*.md"))
    assert pages
    missing = [p.name for p in pages if p.resolve() not in targets]
    assert not missing, f"README.md does not link to docs/{', docs/'.join(missing)}"


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_somewhere(doc: Path) -> None:
    broken = []
    for target in links(read(doc)):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and file.suffix == ".md" and anchor not in anchors(read(file)):
            broken.append(f"{target} (no such heading)")
    assert not broken, f"{doc.name}: " + "; ".join(broken)


# --- docs/commands.md: every option of every command ------------------------------------------


def all_commands() -> dict[str, click.Command]:
    """Every command by its path after ``git gpte`` ("" is the group itself): the commands of
    COMMANDS, their sub-commands, and any other command their module defines (``bench merge``)."""
    from git_gpte.cli import COMMANDS, cli

    found: dict[str, click.Command] = {"": cli}

    def add(path: str, command: click.Command) -> None:
        found[path] = command
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                add(f"{path} {name}", sub)

    for name, (module_name, _) in COMMANDS.items():
        module = importlib.import_module(f"git_gpte.commands.{module_name}")
        add(name, module.command)
        known = {id(c) for c in found.values()}
        for _, other in inspect.getmembers(module, lambda v: isinstance(v, click.Command)):
            callback = other.callback
            if id(other) not in known and getattr(callback, "__module__", "") == module.__name__:
                add(f"{name} {other.name}", other)
    return found


# Every command has it; the global options' table documents it once.
HELP = "--help"


def long_options(command: click.Command) -> set[str]:
    return {
        name
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("--") and name != HELP
    }


def documented_options(lines: list[str]) -> set[str]:
    """The ``--xyz`` names in the first column of the option tables."""
    return {
        name
        for cells in table_rows(lines, "option")
        for name in re.findall(r"(?<![\w-])--[a-z0-9][a-z0-9-]*", cells[0])
    }


def label(path: str) -> str:
    return f"git gpte {path}".rstrip()


def command_sections() -> dict[str | None, list[str]]:
    """docs/commands.md by command: a heading `` `git gpte PATH` `` starts each section ("": the
    global options); None holds what comes before the first."""
    return sections(read(DOCS / "commands.md"), r"^#{2,4} `git gpte(?: ([a-z][a-z ]*))?`")


def test_the_commands_are_the_ones_the_cli_has() -> None:
    commands = all_commands()
    assert {"", "improve", "log show", "preprompts export"} <= set(commands)
    for name in ("", "improve", "apply", "log show"):
        assert long_options(commands[name]), name


def test_every_option_of_every_command_is_in_its_table_in_commands_md() -> None:
    documented = command_sections()
    missing = []
    for path, command in sorted(all_commands().items()):
        options = long_options(command)
        if not options:
            continue
        if path not in documented:
            missing.append(f"a section `{label(path)}`")
            continue
        absent = options - documented_options(documented[path])
        missing += [f"{label(path)} {name}" for name in sorted(absent)]
    assert not missing, "docs/commands.md lacks: " + ", ".join(missing)


def test_every_option_in_the_tables_of_commands_md_exists() -> None:
    commands = all_commands()
    every = set().union(*(long_options(c) for c in commands.values())) | {HELP}
    stale = []
    for path, lines in command_sections().items():
        options = documented_options(lines)
        if path is None:  # before the first command: any command's options
            stale += sorted(options - every)
        elif path not in commands:
            stale.append(f"a section for `{label(path)}`, which does not exist")
        else:
            absent = options - long_options(commands[path]) - {HELP}
            stale += [f"{label(path)} {name}" for name in sorted(absent)]
    assert not stale, "docs/commands.md documents what the CLI does not have: " + ", ".join(stale)


# --- docs/configuration.md: the exit codes ----------------------------------------------------


def exit_codes_in_the_code() -> set[int]:
    from git_gpte import errors

    codes = {
        value
        for name, value in vars(errors).items()
        if name.startswith("EXIT_") and isinstance(value, int)
    }
    for _, cls in inspect.getmembers(errors, inspect.isclass):
        if issubclass(cls, errors.GpteError):
            codes.add(cls.exit_code)
    return codes


def test_every_exit_code_is_in_the_table_of_configuration_md() -> None:
    documented = sections(read(DOCS / "configuration.md"), r"^## (Exit codes)$")
    assert "Exit codes" in documented, "docs/configuration.md has no '## Exit codes' section"
    table = {int(cells[0]) for cells in table_rows(documented["Exit codes"], "code")}
    code = exit_codes_in_the_code()
    assert {0, 1, 2, 70, 130} <= code
    assert not code - table, f"exit codes missing from the table: {sorted(code - table)}"
    assert not table - code, f"exit codes in the table that nothing returns: {sorted(table - code)}"


# --- docs/action.md: the Action's inputs and outputs ------------------------------------------


def action_yml_names(section: str) -> set[str]:
    """The keys of a top-level mapping of action.yml (``inputs``, ``outputs``), read as text:
    the project does not depend on a YAML library."""
    names: set[str] = set()
    current = None
    for line in read(ROOT / "action.yml").splitlines():
        top = re.match(r"^([A-Za-z][\w-]*):", line)
        if top:
            current = top.group(1)
            continue
        key = re.match(r"^  ([A-Za-z][\w-]*):", line)
        if key and current == section:
            names.add(key.group(1))
    return names


@pytest.mark.parametrize("kind", ["input", "output"])
def test_every_input_and_output_of_action_yml_is_in_action_md(kind: str) -> None:
    declared = action_yml_names(f"{kind}s")
    assert declared, f"action.yml declares no {kind}s?"
    lines = list(prose_lines(read(DOCS / "action.md")))
    documented = {
        name for cells in table_rows(lines, kind) for name in re.findall(r"`([\w-]+)`", cells[0])
    }
    assert not declared - documented, f"docs/action.md lacks {sorted(declared - documented)}"
    assert not documented - declared, f"not in action.yml: {sorted(documented - declared)}"
