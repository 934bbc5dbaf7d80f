"""The checks on edited Python: syntax, undefined names, names removed under other files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from git_gpte.edit.pycheck import module_names, python_problems, unused_new_loggers
from tests.helpers.noisy import LOGGED, NOISY, SILENT


def _users(files: Mapping[str, str]):  # type: ignore[no-untyped-def]
    def users(names: Iterable[str]) -> Mapping[str, str]:
        wanted = list(names)
        return {p: t for p, t in files.items() if any(n in t for n in wanted)}

    return users


def test_only_breakage_the_edit_made_counts() -> None:
    before = {"ok.py": "x = 1\n", "broken.py": "def (:\n"}
    after = {"ok.py": "x = (\n", "broken.py": "def (:\n    still\n", "new.py": "if:\n", "n.md": "("}
    problems = python_problems(before, after)
    assert [(p.kind, p.path) for p in problems] == [("syntax", "ok.py"), ("syntax", "new.py")]
    assert "SyntaxError" in problems[0].render() and problems[0].line == 1


def test_a_logger_used_but_never_defined() -> None:
    before = {"shop.py": "def total(x):\n    return x * 2\n"}
    after = {"shop.py": "def total(x):\n    logger.debug('x=%s', x)\n    return x * 2\n"}
    [problem] = python_problems(before, after)
    assert (problem.kind, problem.path, problem.line) == ("undefined-name", "shop.py", 2)
    assert "'logger'" in problem.text
    fixed = {
        "shop.py": "import logging\n\nlogger = logging.getLogger(__name__)\n" + after["shop.py"]
    }
    assert python_problems(before, fixed) == []


def test_names_undefined_before_the_edit_are_not_blamed_on_it() -> None:
    before = {"a.py": "def f():\n    return missing()\n"}
    after = {"a.py": "def f():\n    '''Doc.'''\n    return missing()\n"}
    assert python_problems(before, after) == []
    twice = {"a.py": "def f():\n    return missing() + missing()\n"}
    [problem] = python_problems(before, twice)
    assert "'missing'" in problem.text


def test_a_rename_in_one_place_leaves_the_callers_of_the_file_and_of_others() -> None:
    before = {
        "pkg/loader.py": "def get_cols(r):\n    return r\n\n\ndef use(r):\n    return get_cols(r)\n"
    }
    after = {"pkg/loader.py": before["pkg/loader.py"].replace("def get_cols", "def numeric_cols")}
    others = {
        "pkg/report.py": "from .loader import get_cols\n",
        "pkg/cli.py": "from pkg import loader\n\nloader.get_cols(1)\n",
        "main.py": "import pkg.loader as L\nL.get_cols(2)\n",
        "other.py": "from elsewhere import get_cols\n",
    }
    problems = python_problems(before, after, _users(others))
    found = {(p.kind, p.path, p.line) for p in problems}
    assert found == {
        ("undefined-name", "pkg/loader.py", 6),
        ("removed-name", "pkg/report.py", 1),
        ("removed-name", "pkg/cli.py", 3),
        ("removed-name", "main.py", 2),
    }
    complete = {
        "pkg/loader.py": after["pkg/loader.py"].replace("return get_cols", "return numeric_cols")
    }
    renamed_everywhere = {p: t.replace("get_cols", "numeric_cols") for p, t in others.items()}
    assert python_problems(before, complete, _users(renamed_everywhere)) == []


def test_a_deleted_module_still_imported() -> None:
    before = {"util.py": "def helper():\n    return 1\n"}
    problems = python_problems(
        before, {"util.py": None}, _users({"app.py": "from util import helper\n"})
    )
    assert [(p.kind, p.path) for p in problems] == [("removed-name", "app.py")]


def test_module_names_cover_every_import_root() -> None:
    assert module_names("src/pkg/mod.py") == {"src.pkg.mod", "pkg.mod", "mod"}
    assert module_names("pkg/__init__.py") == {"pkg"}


def test_an_import_of_a_name_the_module_does_not_define() -> None:
    # The callers were renamed, the function was not: the edited file imports a name its
    # module does not have.
    loader = "def get_cols(r):\n    return r\n"
    before = {"pkg/report.py": "from .loader import get_cols\n"}
    after = {"pkg/report.py": "from .loader import numeric_cols\n"}
    paths = {"pkg/__init__.py", "pkg/loader.py", "pkg/report.py", "pkg/sub/__init__.py"}
    texts = {
        "pkg/loader.py": loader,
        "pkg/__init__.py": "",
        "pkg/report.py": after["pkg/report.py"],
    }
    source = (paths, texts.get)
    [problem] = python_problems(before, after, None, source)
    assert (problem.kind, problem.path, problem.line) == ("missing-import", "pkg/report.py", 1)
    assert "'numeric_cols' from pkg/loader.py" in problem.text
    # Submodules, absolute names under the importer's folders, star-exporting modules: fine.
    fine = {"pkg/report.py": "from pkg import sub, loader\nfrom pkg.loader import get_cols\n"}
    assert python_problems(before, fine, None, source) == []
    star = {**texts, "pkg/loader.py": "from os.path import *\n"}
    assert python_problems(before, after, None, (paths, star.get)) == []
    # Not one of ours (the standard library, a package that is installed): not checked.
    other = {"pkg/report.py": "from json import nothing_like_this\n"}
    assert python_problems(before, other, None, source) == []
    # Already broken before the edit: not blamed on it.
    assert (
        python_problems(after, {"pkg/report.py": after["pkg/report.py"] + "x = 1\n"}, None, source)
        == []
    )


def test_added_unused_imports_are_found_with_their_lines() -> None:
    from git_gpte.edit.pycheck import added_unused_imports

    before = "import os\n\nprint(os.sep)\n"
    added = "import yaml\nfrom slugify import (\n    slugify,\n)\nfrom . import x\n"
    after = f"import os\n{added}\nprint(os.sep)\n"
    found = [(a.first, a.last, a.module, a.shadowed) for a in added_unused_imports(before, after)]
    assert found == [(2, 2, "yaml", False), (3, 5, "slugify", False)]
    used = after.replace("print(os.sep)", "print(os.sep, yaml, slugify)")
    assert added_unused_imports(before, used) == []
    # Listed in __all__: re-exported, so used.
    exported = after + '__all__ = ["yaml", "slugify"]\n'
    assert added_unused_imports(before, exported) == []
    # Used, but only as the file's own function of that name: the import is dead.
    shadowed = used + "\n\ndef slugify(text):\n    return text\n"
    assert [(a.module, a.shadowed) for a in added_unused_imports(before, shadowed)] == [
        ("slugify", True)
    ]
    # A star import the edit added is found whatever it binds (it hides undefined names);
    # one the file had is not.
    starred = after.replace("import yaml\n", "from typing import *\n")
    found_star = added_unused_imports(before, starred)[0]
    assert (found_star.first, found_star.module, found_star.star) == (2, "typing", True)
    assert added_unused_imports(starred, starred) == []


def test_a_function_that_only_calls_itself_is_a_problem_the_edit_made() -> None:
    # The real model copied a caller's line into the function it calls (minimark's slugify).
    before = {"m.py": "def slugify(text):\n    return text.lower()\n\n\nclass R:\n    pass\n"}
    after = {
        "m.py": (
            'def slugify(text):\n    """Doc."""\n    return slugify(text)\n\n\n'
            "class R:\n    def go(self, x):\n        return self.go(x)\n"
        )
    }
    found = [(p.kind, p.line, p.text.split(":")[0]) for p in python_problems(before, after)]
    assert found == [
        ("endless-call", 1, "slugify only calls itself"),
        ("endless-call", 7, "R.go only calls itself"),
    ]
    # Already so before the edit: not blamed on it; a call with a way out is no problem.
    assert python_problems(after, after) == []
    guarded = "def f(n):\n    return f(n - 1) if n else 0\n"
    assert python_problems({"m.py": "def f(n):\n    return 0\n"}, {"m.py": guarded}) == []


def test_a_parameter_the_edit_added_and_never_uses_is_a_change_left_half_done() -> None:
    before = (
        "def build_report(rows, title=None):\n    return [title, *rows]\n\n\n"
        "class Report:\n    def render(self, width):\n        return width\n"
    )
    half = before.replace("title=None):", "title=None, sort_by='total'):")
    (problem,) = python_problems({"r.py": before}, {"r.py": half})
    assert (problem.kind, problem.path, problem.line) == ("unused-parameter", "r.py", 1)
    assert "'sort_by'" in problem.text and "build_report" in problem.text
    done = half.replace(
        "return [title, *rows]", "return [title, *sorted(rows)] if sort_by else rows"
    )
    assert python_problems({"r.py": before}, {"r.py": done}) == []
    # Methods too; not a parameter that was there before, a ``_`` name, a stub, or a new function.
    method = before.replace("render(self, width)", "render(self, width, height)")
    assert [p.text.split()[0] for p in python_problems({"r.py": before}, {"r.py": method})] == [
        "Report.render"
    ]
    quiet = (
        before.replace("title=None)", "title=None, _unused=0)")
        + "\n\ndef new(a, b):\n    return a\n"
    )
    assert python_problems({"r.py": before}, {"r.py": quiet}) == []
    stub = "def hook(event):\n    raise NotImplementedError\n"
    added = stub.replace("(event)", "(event, context)")
    assert python_problems({"h.py": stub}, {"h.py": added}) == []


def test_a_new_handler_its_family_registers_and_it_does_not_is_half_done() -> None:
    # Seen: cmd_categories added beside cmd_add, cmd_list, …, never put in COMMANDS.
    before = (
        "def cmd_add(args):\n    return 1\n\n\ndef cmd_list(args):\n    return 2\n\n\n"
        'COMMANDS = {"add": cmd_add, "list": cmd_list}\n'
    )
    added = before.replace("COMMANDS", "def cmd_tags(args):\n    return 3\n\n\nCOMMANDS")
    (problem,) = python_problems({"cli.py": before}, {"cli.py": added})
    assert (problem.kind, problem.line) == ("unregistered", None)
    assert problem.text.startswith("cmd_tags is new and nothing refers to it, while cmd_add")
    wired = added.replace('"list": cmd_list}', '"list": cmd_list, "tags": cmd_tags}')
    assert python_problems({"cli.py": before}, {"cli.py": wired}) == []
    # A family only called (helpers), a lone sibling, tests, a private name: nothing to say.
    called = before.replace("COMMANDS = {", "RESULT = [cmd_add(1), cmd_list(2)]\nX = {")
    called = called.replace('"add": cmd_add, "list": cmd_list', "")
    assert (
        python_problems({"c.py": called}, {"c.py": called + "\n\ndef cmd_x(a):\n    pass\n"}) == []
    )
    tests = before.replace("cmd_", "test_")
    assert python_problems({"t.py": tests}, {"t.py": tests + "\n\ndef test_x():\n    pass\n"}) == []


def test_a_new_function_that_does_nothing_and_whose_result_is_used_is_a_placeholder() -> None:
    base = "def load(path):\n    return open(path).read()\n"
    stub = '\n\ndef _parse(text):\n    """Parse it."""\n    ...\n'
    used = base.replace("return open(path).read()", "return _parse(open(path).read())") + stub
    (problem,) = python_problems({"m.py": base}, {"m.py": used})
    assert (problem.kind, problem.line) == ("placeholder", 5)
    assert problem.text.startswith("_parse is new and does nothing")
    # Called only as a statement (a hook that may do nothing), decorated (an interface), or
    # there before the edit: not the edit's placeholder.
    hook = base.replace("    return", "    _parse(path)\n    return") + stub
    assert python_problems({"m.py": base}, {"m.py": hook}) == []
    abstract = used.replace("def _parse", "@abc.abstractmethod\ndef _parse")
    assert python_problems({"m.py": base}, {"m.py": "import abc\n" + abstract}) == []
    assert python_problems({"m.py": used}, {"m.py": used + "\n# more\n"}) == []
    # A body that does something is no placeholder.
    done = used.replace("    ...\n", "    return text.split()\n")
    assert python_problems({"m.py": base}, {"m.py": done}) == []


def test_a_logging_call_given_prints_keywords_is_a_type_error_the_edit_made() -> None:
    # The real model turned print(..., file=sys.stderr) into logger.warning(..., file=...),
    # committed: the project's tests never ran that branch (textstats/logging).
    before = "import sys\n\n\ndef load(path):\n    print(f'warning: {path}', file=sys.stderr)\n"
    after = (
        "import logging\nimport sys\n\nlog_it = logging.getLogger(__name__)\n\n\n"
        "def load(path):\n    log_it.warning(f'warning: {path}', file=sys.stderr)\n"
        "    logging.info('x', end='')\n"
    )
    found = [
        (p.kind, p.line, p.text.split(" (")[0])
        for p in python_problems({"t.py": before}, {"t.py": after})
    ]
    assert found == [
        ("bad-call", 8, "log_it.warning() takes no 'file' argument"),
        ("bad-call", 9, "logging.info() takes no 'end' argument"),
    ]
    # What logging takes is fine; a call already so before is not blamed on the edit; another
    # object's method of the same name is not a logger's.
    fine = after.replace(", file=sys.stderr", ", exc_info=True").replace(", end=''", "")
    assert python_problems({"t.py": before}, {"t.py": fine}) == []
    assert python_problems({"t.py": after}, {"t.py": after}) == []
    other = before + "\n\ndef warn(w):\n    w.warning('x', file=1)\n"
    assert python_problems({"t.py": before}, {"t.py": other}) == []


def test_an_undefined_name_close_to_one_of_the_files_says_which() -> None:
    # The 1.5B model wrote PRIORITY_BY_NAME for the module's _PRIORITY_BY_NAME, three times.
    before = {"m.py": "_BY_NAME = {'low': 1}\n\n\ndef parse(t):\n    return _BY_NAME[t]\n"}
    after = {"m.py": "_BY_NAME = {'low': 1}\n\n\ndef parse(t):\n    return BY_NAME[t]\n"}
    [problem] = python_problems(before, after)
    assert problem.text.endswith("never defined or imported (did you mean '_BY_NAME'?)")
    after = {"m.py": before["m.py"].replace("_BY_NAME[t]", "unrelated[t]")}
    assert "did you mean" not in python_problems(before, after)[0].text


def test_an_import_from_a_module_the_repository_does_not_have() -> None:
    # Seen with a 1.5B model: the answer added `from .hookspec import HookspecMarker` to a
    # package that has no hookspec module, an ImportError whenever the file is imported.
    paths = {"src/pkg/__init__.py", "src/pkg/_hooks.py", "src/pkg/_result.py"}
    before = {"src/pkg/_hooks.py": "from ._result import Result\n"}
    texts = {
        "src/pkg/_result.py": "class Result:\n    pass\n",
        "src/pkg/__init__.py": "",
        "src/pkg/hookspec.py": "class HookspecMarker:\n    pass\n",
    }
    source = (paths, texts.get)

    def problems(text: str, more: frozenset[str] = frozenset()) -> list[tuple[str, int, str]]:
        after = {"src/pkg/_hooks.py": text}
        found = python_problems(before, after, None, (paths | more, source[1]))
        return [(p.kind, p.line or 0, p.text) for p in found]

    relative = "from ._result import Result\nfrom .hookspec import HookspecMarker\n"
    [(kind, line, text)] = problems(relative)
    assert (kind, line) == ("missing-import", 2)
    assert text.startswith("imports from .hookspec, a module the repository does not have")
    absolute = "from ._result import Result\nfrom pkg.hookspec import HookspecMarker\n"
    assert [line for _, line, _ in problems(absolute)] == [2]
    # There after all: created by the same edit, a package, a compiled extension's source.
    for made in ("src/pkg/hookspec.py", "src/pkg/hookspec/core.py", "src/pkg/hookspec.c"):
        assert problems(relative, frozenset({made})) == []
    # Guarded by try (optional), already there before the edit, not ours: left alone.
    guarded = "try:\n    from .hookspec import HookspecMarker\nexcept ImportError:\n    pass\n"
    assert problems(guarded) == []
    assert problems("from elsewhere.hookspec import HookspecMarker\n") == []
    already = {"src/pkg/_hooks.py": "from ._version import version\n"}
    after = {"src/pkg/_hooks.py": "from ._version import version\nx = 1\n"}
    assert python_problems(already, after, None, source) == []


def test_a_new_logger_nothing_logs_on_is_a_change_not_finished() -> None:
    [problem] = unused_new_loggers({"noisy.py": NOISY}, {"noisy.py": SILENT})
    assert problem.kind == "unused-logger" and problem.line == 6
    assert "logger is a new logger and nothing logs on it" in problem.render()
    assert unused_new_loggers({"noisy.py": NOISY}, {"noisy.py": LOGGED}) == []
    # A logger the module had before is not the edit's to finish.
    assert unused_new_loggers({"noisy.py": SILENT}, {"noisy.py": SILENT}) == []
