"""What a whole-file reply lost by accident, put back (``git_gpte.edit.wholefile``)."""

from __future__ import annotations

from git_gpte.edit.wholefile import (
    defined_names,
    restore_dropped,
    restore_imports,
    restore_members,
    undo_damage,
)

MODULE = '''\
"""Shapes."""

import math


def area(r):
    return math.pi * r * r


@staticmethod
def helper():
    return 1


class Square:
    side = 1


def perimeter(r):
    return 2 * math.pi * r
'''


def _without(text: str, start: str, end: str | None) -> str:
    a = text.index(start)
    b = text.index(end) if end else len(text)
    return text[:a] + text[b:]


def test_a_definition_lost_in_the_middle_goes_back_where_it_was() -> None:
    after = _without(MODULE, "@staticmethod", "class Square")
    repair = restore_dropped(MODULE, after, "add a docstring to area")
    assert repair is not None and repair.text == MODULE
    assert repair.detail.endswith("left out: helper")


def test_definitions_lost_before_the_first_kept_one_go_above_it() -> None:
    after = _without(MODULE, "def area", "class Square")
    repair = restore_dropped(MODULE, after, "add a docstring to Square")
    assert repair is not None and repair.text == MODULE


def test_what_the_request_names_moves_or_removes_stays_out() -> None:
    after = _without(MODULE, "def perimeter", None).rstrip("\n") + "\n"
    assert restore_dropped(MODULE, after, "drop perimeter") is None
    assert restore_dropped(MODULE, after, "Remove the dead code") is None
    assert restore_dropped(MODULE, after, "fix area", defined_elsewhere={"perimeter"}) is None
    repair = restore_dropped(MODULE, after, "fix area")
    assert repair is not None and repair.text == MODULE


def test_a_dropped_constant_still_used_goes_back_where_it_was() -> None:
    # A real whole-file reply to "an item at its reorder level counts as low": the module's
    # ``FORMAT_VERSION = 1`` left out, still used by save() and load().
    before = (
        "import json\n\nFORMAT_VERSION = 1\nLIMIT = 3\n\n\nclass Store:\n"
        "    def save(self):\n        return json.dumps({'version': FORMAT_VERSION})\n\n"
        "    def is_low(self, n):\n        return n < LIMIT\n"
    )
    after = before.replace("FORMAT_VERSION = 1\n", "").replace("n < LIMIT", "n <= LIMIT")
    repair = restore_dropped(before, after, "an item at its limit counts as low")
    assert repair is not None
    assert repair.text == before.replace("n < LIMIT", "n <= LIMIT")
    assert repair.detail.endswith("left out: FORMAT_VERSION")
    # A constant the reply no longer uses, or now imports, was taken away on purpose.
    unused = after.replace("{'version': FORMAT_VERSION}", "{}")
    assert restore_dropped(before, unused, "an item at its limit counts as low") is None
    imported = "from .config import FORMAT_VERSION\n" + after
    assert restore_dropped(before, imported, "an item at its limit counts as low") is None
    # A name assigned twice at top level is not a constant git-gpte can put back.
    twice = before.replace("LIMIT = 3\n", "LIMIT = 3\nFORMAT_VERSION = 2\n")
    assert restore_dropped(twice, after, "an item at its limit counts as low") is None


def test_a_renamed_definition_is_not_put_back_under_its_old_name() -> None:
    after = MODULE.replace("def perimeter(r)", "def circumference(r)")
    assert restore_dropped(MODULE, after, "fix area") is None


LIMITER = (
    '"""Limits."""\n\n\nclass Limiter:\n    """Counts calls."""\n\n'
    "    def __init__(self, limit):\n        self.limit = limit\n\n"
    "    def allow(self, used):\n        return used < self.limit - 1\n\n"
    "    def left(self, used):\n        return self.limit - used\n\n\n"
    "def make():\n    return Limiter(3)\n"
)


def test_methods_a_kept_class_lost_go_back_where_they_were() -> None:
    # Seen with a small model: the class written back as the one method it fixed, without
    # the __init__ every caller needs (nothing undefined, nothing failing to parse).
    fixed = "    def allow(self, used):\n        return used < self.limit\n"
    after = (
        '"""Limits."""\n\n\nclass Limiter:\n' + fixed + "\n\ndef make():\n    return Limiter(3)\n"
    )
    repair = restore_members(LIMITER, after, "allow refuses the last call; fix the boundary")
    assert repair is not None
    assert repair.detail.endswith("left out: Limiter.__init__, Limiter.left")
    expected = LIMITER.replace("used < self.limit - 1", "used < self.limit")
    assert repair.text == expected.replace('    """Counts calls."""\n\n', "")


def test_methods_named_removed_or_renamed_stay_out() -> None:
    after = LIMITER.replace(
        "    def left(self, used):\n        return self.limit - used\n\n", ""
    ).replace("\n\n\n\ndef make", "\n\n\ndef make")
    assert restore_members(LIMITER, after, "take out Limiter.left") is None
    assert restore_members(LIMITER, after, "left is wrong, fix it") is None
    renamed = LIMITER.replace("def left(", "def remaining(")
    assert restore_members(LIMITER, renamed, "fix the boundary") is None
    # A class the reply wrote with none of the original's methods was rewritten: left alone.
    rewritten = (
        '"""Limits."""\n\n\nclass Limiter:\n    pass\n\n\ndef make():\n    return Limiter(3)\n'
    )
    assert restore_members(LIMITER, rewritten, "fix the boundary") is None


def test_text_that_does_not_parse_is_left_to_the_checks() -> None:
    assert restore_dropped(MODULE, "def broken(:\n", "fix") is None
    assert restore_dropped("def broken(:\n", "x = 1\n", "fix") is None
    assert defined_names("def broken(:\n") == set()
    assert defined_names(MODULE) == {"area", "helper", "Square", "perimeter"}


def test_a_damaged_line_is_taken_back_only_when_that_makes_the_file_parse() -> None:
    changed = MODULE.replace("return 1\n", "return 2\n")
    damaged = changed.replace('"""Shapes."""', '"""Shapes.')
    repair = undo_damage(MODULE, damaged)
    assert repair is not None and repair.text == changed
    # A lost line is a damage too.
    lost = changed.replace("    return math.pi * r * r\n", "")
    repair = undo_damage(MODULE, lost)
    assert repair is not None and repair.text == changed
    # Parsing already, or broken by something new: nothing to take back.
    assert undo_damage(MODULE, changed) is None
    assert undo_damage(MODULE, changed + "def new(:\n    pass\n") is None
    assert undo_damage("def broken(:\n", "def broken(\n") is None


def test_a_copied_line_that_lost_its_object_is_taken_back() -> None:
    # A real whole-file reply to "Rename normalize_sku … to clean_sku": three lines of the
    # argument parser copied without their ``add.``, undefined names the request never gives.
    before = (
        "import argparse\n\n\ndef build_parser():\n    parser = argparse.ArgumentParser()\n"
        "    add = parser.add_subparsers().add_parser('add')\n"
        "    add.add_argument('sku')\n    add.add_argument('--unit', default='each')\n"
        "    add.add_argument('--quantity', type=int, default=0)\n    return parser\n"
    )
    after = before.replace("    add.add_argument('--unit'", "    add_argument('--unit'")
    after = after.replace("    add.add_argument('--quantity'", "    add_argument('--quantity'")
    request = "Rename the function normalize_sku in inventory/models.py to clean_sku"
    repair = undo_damage(before, after, request)
    assert repair is not None and repair.text == before
    assert repair.detail == "took back line(s) 8 the reply had damaged in copying"
    # A name the request gives is its business (a rename under way), not damage.
    renamed = before.replace("add.add_argument('sku')", "add_sku('sku')")
    assert undo_damage(before, renamed, "use add_sku for the sku argument") is None
    # A word replaced, not lost, is a change the model meant (a helper it forgot to write).
    meant = before.replace("add.add_argument('sku')", "add.add_sku('sku')").replace(
        "    return parser", "    return make_parser(parser)"
    )
    assert undo_damage(before, meant, request) is None
    # Nothing new undefined: nothing to take back.
    assert undo_damage(before, before.replace("'each'", "'piece'"), request) is None


def test_a_long_stretch_is_taken_back_only_when_every_line_lost_characters_only() -> None:
    options = ("--unit", "--quantity", "--reorder-level", "--reorder-quantity", "--note")
    before = (
        "import argparse\n\n\ndef build_parser():\n    parser = argparse.ArgumentParser()\n"
        "    add = parser.add_subparsers().add_parser('add')\n"
        + "".join(f"    add.add_argument('{o}')\n" for o in options)
        + "    return parser\n"
    )
    after = before.replace("    add.add_argument(", "    add_argument(")
    repair = undo_damage(before, after, "Rename normalize_sku to clean_sku")
    assert repair is not None and repair.text == before
    # Five lines changed in other ways too are a change the model meant, not a copy's damage.
    rewritten = after.replace("')\n", "', help='x')\n")
    assert undo_damage(before, rewritten, "Rename normalize_sku to clean_sku") is None


def test_a_name_that_starts_like_a_removing_verb_does_not_make_a_request_remove() -> None:
    # "clean_sku" is a name, not "clean up": the definition the reply lost is put back.
    before = "def main():\n    return 1\n\n\ndef helper():\n    return 2\n"
    after = "def main():\n    return 1\n"
    repair = restore_dropped(before, after, "Rename normalize_sku to clean_sku everywhere")
    assert repair is not None and "def helper():" in repair.text
    assert restore_dropped(before, after, "remove the helper") is None
    assert restore_dropped(before, after, "Clean up the module") is None


def test_lines_changed_only_in_trailing_white_space_are_given_back() -> None:
    from git_gpte.edit.wholefile import keep_trailing_space

    before = "class A:\n    x = 1\n\n    def f(self):\n        return 1  \n"
    after = "class A:\n    x = 1\n    \n    def f(self):\n        return 2\n"
    repair = keep_trailing_space(before, after, "make f return 2")
    assert repair is not None
    assert repair.text == "class A:\n    x = 1\n\n    def f(self):\n        return 2\n"
    assert repair.detail == "kept the file's own trailing white space on 1 line(s)"
    assert keep_trailing_space(before, after, "remove trailing whitespace") is None
    assert keep_trailing_space(before, before, "anything") is None


def test_continued_lines_copied_with_other_indentation_are_given_back() -> None:
    from git_gpte.edit.wholefile import keep_continuation_indent

    before = (
        'def f(a, b):\n    x = g(a,\n          b)\n    s = """doc\n      kept"""\n    return x\n'
    )
    after = before.replace("          b)", " b)").replace("return x", "return x + 1")
    repair = keep_continuation_indent(before, after, "make f add one")
    assert repair is not None and repair.text == before.replace("return x", "return x + 1")
    assert repair.detail == "kept the file's own indentation of 1 continued line(s)"
    # a string's lines and a statement's indentation are the model's to change
    assert keep_continuation_indent(before, before.replace("      kept", "kept"), "x") is None
    moved = before.replace("    return x", "    if x:\n        return x")
    assert keep_continuation_indent(before, moved, "x") is None
    assert keep_continuation_indent(before, after, "fix the indentation") is None
    assert keep_continuation_indent(before, "def f(:\n", "x") is None


def test_docstrings_dropped_in_rewriting_are_put_back() -> None:
    from git_gpte.edit.wholefile import keep_docstrings

    before = (
        'def escape(text):\n    """Escape HTML."""\n    return text\n\n\n'
        'class R:\n    """Renders."""\n\n    def go(self, x):\n        """Go.\n\n'
        '        Really.\n        """\n        return x\n'
    )
    after = (
        "def escape(text):\n    return text.replace('&', '&amp;')\n\n\n"
        'class R:\n    """Renders."""\n\n    def go(self, x):\n        return x\n'
    )
    repair = keep_docstrings(before, after, "escape ampersands")
    assert repair is not None
    assert repair.text == (
        'def escape(text):\n    """Escape HTML."""\n    return text.replace(\'&\', \'&amp;\')\n\n\n'
        'class R:\n    """Renders."""\n\n    def go(self, x):\n        """Go.\n\n'
        '        Really.\n        """\n        return x\n'
    )
    assert repair.detail == "put back the docstring(s) the reply had dropped: R.go, escape"
    assert keep_docstrings(before, after, "remove the docstrings") is None
    assert keep_docstrings(before, before, "anything") is None


def test_the_module_docstring_a_rewrite_dropped_goes_back_above_its_first_statement() -> None:
    from git_gpte.edit.wholefile import keep_docstrings

    before = '#!/usr/bin/env python3\n"""Tools.\n\nSmall ones."""\n\nimport os\n'
    after = "#!/usr/bin/env python3\nimport os\nimport sys\n"
    repair = keep_docstrings(before, after, "import sys")
    assert repair is not None
    assert (
        repair.text
        == '#!/usr/bin/env python3\n"""Tools.\n\nSmall ones."""\n\nimport os\nimport sys\n'
    )
    assert repair.detail == "put back the docstring(s) the reply had dropped: the module"
    assert keep_docstrings(before, after, "drop the module docstring") is None


def test_an_import_the_reply_dropped_for_a_name_it_still_uses_is_given_back() -> None:
    before = (
        '"""CLI."""\n\nimport sys\n\nfrom .report import build_report, filter_by_date\n\n\n'
        "def main(rows):\n    rows = filter_by_date(rows)\n    print(build_report(rows))\n"
        "    sys.exit(0)\n"
    )
    # The import line written from memory: five names of the module, not the one it uses.
    after = before.replace(
        "from .report import build_report, filter_by_date",
        "from .report import build_report, count_by, format_table",
    ).replace("print(build_report(rows))", "print(build_report(rows, sort_by='name'))")
    repair = restore_imports(before, after, "Add a --sort option")
    assert repair is not None
    assert repair.text == after.replace(
        "format_table\n", "format_table\nfrom .report import filter_by_date\n"
    )
    assert repair.detail == "imported again what the reply dropped: filter_by_date"
    # A plain import, dropped with its line.
    assert "import sys" in restore_imports(before, after.replace("import sys\n", "")).text
    # A name the request gives is a rename under way; an import still there, nothing to do.
    assert restore_imports(before, after, "rename filter_by_date to keep_dates") is None
    assert restore_imports(before, before.replace("(rows)\n", "(rows, 1)\n")) is None


def test_a_standard_module_used_and_never_imported_is_imported() -> None:
    from git_gpte.edit.wholefile import import_stdlib

    before = '"""Totals."""\nimport sys\n\n\ndef total(xs):\n    return sum(xs)\n'
    after = before.replace(
        "    return", "    logging.getLogger(__name__).info('%s', xs)\n    return"
    )
    repair = import_stdlib(before, after)
    assert repair is not None and "logging" in repair.detail
    assert repair.text.startswith('"""Totals."""\nimport sys\nimport logging\n\n')
    assert import_stdlib(None, "def f(p):\n    return os.path.join(p, 'x')\n") is not None
    # used bare (not a module use), undefined before, not from the standard library, or a
    # module of the repository's own that ``import`` would find first: left to the checks
    assert import_stdlib(before, before.replace("sum(xs)", "sum(xs, json)")) is None
    assert import_stdlib(after, after) is None
    assert import_stdlib(before, before.replace("sum(xs)", "numpy.sum(xs)")) is None
    assert import_stdlib(before, after, local={"logging"}) is None


def test_a_standard_name_used_and_never_imported_is_imported_from_its_module() -> None:
    from git_gpte.edit.wholefile import import_stdlib_names

    before = "import os\n\n\nclass Store:\n    def save(self, path):\n        return path\n"
    after = before.replace("(self, path):", "(self, path: Union[str, Path]) -> Optional[str]:")
    repair = import_stdlib_names(before, after)
    assert repair is not None
    assert repair.detail.endswith("never imported: Optional, Path, Union")
    assert repair.text.startswith(
        "import os\nfrom pathlib import Path\nfrom typing import Optional, Union\n\n"
    )
    # Undefined before, bound in the file, or a module of the repository's own: left alone.
    assert import_stdlib_names(after, after) is None
    bound = "Path = str\n" + after
    partly = import_stdlib_names(before, bound)
    assert partly is not None and partly.detail.endswith("never imported: Optional, Union")
    assert import_stdlib_names(before, after, local={"typing", "pathlib"}) is None
    assert import_stdlib_names(before, before.replace("path):", "path: Frob):")) is None


def test_a_standard_module_is_imported_among_the_standard_imports() -> None:
    from git_gpte.edit.wholefile import import_stdlib

    before = "import json\nimport os\n\nfrom .models import Item\n\n\ndef f():\n    return Item\n"
    after = before.replace("    return Item", "    logging.warning('x')\n    return Item")
    repair = import_stdlib(before, after)
    assert repair is not None
    assert repair.text.startswith("import json\nimport os\nimport logging\n\nfrom .models import")


def test_comment_rulers_shortened_in_copying_are_given_back() -> None:
    from git_gpte.edit.wholefile import keep_comment_rulers

    before = "x = 1\n\n# --- items -----------------\n# Keep this, it matters.\ny = 2\n"
    after = "x = 1\n\n# --- items---\n# Keep this: it really matters.\ny = 3\n"
    repair = keep_comment_rulers(before, after)
    assert repair is not None and repair.detail == "kept the file's own comment rulers on 1 line(s)"
    assert (
        repair.text
        == "x = 1\n\n# --- items -----------------\n# Keep this: it really matters.\ny = 3\n"
    )
    # a request about comments changes them as it likes; an unchanged file needs nothing
    assert keep_comment_rulers(before, after, "tidy the comments") is None
    assert keep_comment_rulers(before, before) is None


LOGGED = '''"""Reading text."""
import sys

from .paths import resolve


def load(path):
    try:
        return open(resolve(path)).read()
    except UnicodeDecodeError:
        logger.warning("%s is not UTF-8", path)
        return ""
'''


def test_a_logger_used_and_never_defined_is_defined_after_the_imports() -> None:
    from git_gpte.edit.wholefile import define_logger

    before = LOGGED.replace('        logger.warning("%s is not UTF-8", path)\n', "")
    repair = define_logger(before, LOGGED)
    assert repair is not None and repair.detail.endswith(": logger")
    assert repair.text.startswith(
        '"""Reading text."""\nimport sys\nimport logging\n\nfrom .paths import resolve\n\n'
        "logger = logging.getLogger(__name__)\n\n\ndef load(path):\n"
    )
    # `logging` already imported: only the definition; a new file gets one too
    imported = LOGGED.replace("import sys\n", "import logging\nimport sys\n")
    fixed = define_logger(before, imported)
    assert fixed is not None and fixed.text.count("import logging") == 1
    assert define_logger(None, "def f():\n    log.info('x')\n") is not None


def test_a_logger_name_used_otherwise_is_left_to_the_checks() -> None:
    from git_gpte.edit.wholefile import define_logger

    before = LOGGED.replace('        logger.warning("%s is not UTF-8", path)\n', "")
    assert define_logger(before, LOGGED.replace("logger.warning(", "logger(")) is None
    assert define_logger(before, LOGGED.replace("logger.warning(", "logger.send(")) is None
    # undefined before as well, the repository's own logging module, logging bound elsewhere
    assert define_logger(LOGGED, LOGGED) is None
    assert define_logger(before, LOGGED, local={"logging"}) is None
    other = LOGGED.replace("import sys\n", "import sys\nfrom .compat import logging\n")
    assert define_logger(before, other) is None
    # the original defined it: a lost definition is put back as it was, elsewhere
    own = LOGGED.replace("import sys\n", 'import sys\nlogger = make_logger("app")\n')
    assert define_logger(own, LOGGED) is None


def test_root_logger_calls_the_edit_adds_go_to_the_module_logger() -> None:
    # Seen (inventory/store-logging): the module logger defined as asked, and the warning
    # logged with logging.warning, a record on the root logger the module's filters miss.
    from git_gpte.edit.wholefile import use_module_logger

    before = "import logging\n\n\ndef load(p):\n    logging.info('kept %s', p)\n    print(p)\n"
    after = before.replace(
        "import logging\n", "import logging\n\nlog = logging.getLogger(__name__)\n"
    ).replace("    print(p)", "    logging.warning('low %s', p)")
    repair = use_module_logger(before, after)
    assert repair is not None and "module's logger (log)" in repair.detail
    assert "    log.warning('low %s', p)\n" in repair.text
    assert "    logging.info('kept %s', p)\n" in repair.text  # the module's own line stays
    # no module logger, or logging not the standard module: nothing to do
    assert use_module_logger(before, before.replace("print(p)", "logging.warning(p)")) is None
    assert use_module_logger(before, after, local={"logging"}) is None


def test_root_logger_calls_get_the_module_logger_the_request_asks_for() -> None:
    # Seen (todo/storage-logging): asked to log "through a module-level logger
    # (logging.getLogger(__name__))", the model wrote logging.info(...), no logger, no import.
    from git_gpte.edit.wholefile import logger_asked_for

    before = "import sqlite3\n\n\ndef add(t):\n    print(f'Added {t}')\n    return t\n"
    after = before.replace("print(", "logging.info(")
    request = "Replace the print() calls with logging through a module-level logger "
    request += "(logging.getLogger(__name__))."
    repair = logger_asked_for(before, after, request=request)
    assert repair is not None and "module's logger (logger)" in repair.detail
    assert repair.text == (
        "import sqlite3\nimport logging\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "def add(t):\n    logger.info(f'Added {t}')\n    return t\n"
    )
    # Not asked for in so many words, a module with a logger, or `logger` taken: left alone.
    assert logger_asked_for(before, after, request="log instead of printing") is None
    taken = after.replace("    return t", "    logger = t\n    return logger")
    assert logger_asked_for(before, taken, request=request) is None
    assert logger_asked_for(before, after, local={"logging"}, request=request) is None


def test_a_logger_the_edit_made_a_class_attribute_becomes_the_modules() -> None:
    # Seen (inventory/store-logging, asked for "a module-level logger"): the logger put in the
    # class body, the warning logged with logging.warning, the load message on cls.logger.
    from git_gpte.edit.wholefile import use_module_logger

    before = (
        'import logging\n\n\nclass Store:\n    """Items."""\n\n'
        "    def sell(self):\n        print('low')\n\n"
        "    @classmethod\n    def load(cls):\n        print('loaded')\n"
    )
    after = (
        before.replace(
            '    """Items."""\n', '    """Items."""\n    log = logging.getLogger(__name__)\n'
        )
        .replace("print('low')", "logging.warning('low')")
        .replace("print('loaded')", "cls.log.info('loaded')")
    )
    repair = use_module_logger(before, after)
    assert repair is not None
    assert repair.text == (
        "import logging\n\n\nlog = logging.getLogger(__name__)\n\n\nclass Store:\n"
        '    """Items."""\n\n    def sell(self):\n        log.warning(\'low\')\n\n'
        "    @classmethod\n    def load(cls):\n        log.info('loaded')\n"
    )
    assert "class Store the module's (log)" in repair.detail and "root logger" in repair.detail
    # A class logger that was there before stays where it is.
    assert use_module_logger(after, after.replace("logging.warning", "cls.log.warning")) is None


STORE = """\
import logging

logger = logging.getLogger(__name__)


class Store:
    def reopen(self, task_id):
        self.touch(task_id)
        return self.get(task_id)

    def load(self, path):
        items = self.read(path)
        print("loaded", len(items))
        return items

    def numbers(self):
        for n in range(3):
            yield n
"""


def test_a_return_value_a_rewritten_function_dropped_is_put_back() -> None:
    from git_gpte.edit.wholefile import keep_returns

    # The 1.5B model, asked for logging: a log line where `return self.get(task_id)` was.
    after = STORE.replace(
        "        return self.get(task_id)\n",
        "        logger.info('reopened %s', task_id)\n",
    ).replace(
        '        items = self.read(path)\n        print("loaded", len(items))\n'
        "        return items\n",
        "        logger.info('x')\n",
    )
    repair = keep_returns(STORE, after, "replace the print() calls with logging")
    assert repair is not None
    assert "        logger.info('reopened %s', task_id)\n        return self.get(task_id)\n" in (
        repair.text
    )
    assert "return items" not in repair.text  # `items` is no longer bound in load
    assert "        logger.info('x')\n\n    def numbers" in repair.text
    assert repair.detail == "put back the return value the reply had dropped: Store.reopen"
    assert keep_returns(STORE, after, "make reopen return nothing") is None
    ends_raising = after.replace(
        "        logger.info('reopened %s', task_id)\n", "        raise KeyError\n"
    )
    assert keep_returns(STORE, ends_raising) is None  # a function ending in a raise returns nothing
    assert keep_returns(STORE, STORE) is None


def test_tests_added_to_a_module_are_taken_out() -> None:
    from git_gpte.edit.wholefile import drop_new_tests

    # The 1.5B model wrote geometry.py back with the test file it was shown appended.
    before = "import math\n\n\ndef area(r):\n    return math.pi * r * r\n"
    after = before + "\n\ndef test_area():\n    assert area(1) > 3\n\n\nclass TestArea:\n"
    after += "    def test_zero(self):\n        assert area(0) == 0\n"
    repair = drop_new_tests(before, after)
    assert repair is not None and repair.text == before
    assert repair.detail == "took out the tests the reply added to a module: test_area, TestArea"
    first = "import math\n\n\ndef test_first():\n    pass\n\n\ndef area(r):\n"
    leading = drop_new_tests(before, first + "    return math.pi * r * r\n")
    assert leading is not None and leading.text == before
    assert drop_new_tests(after, after) is None  # tests the module had stay


def test_a_last_return_that_slid_into_the_block_above_it_is_moved_out() -> None:
    from git_gpte.edit.wholefile import return_out_of_block

    before = (
        "def pick(items):\n    for item in items:\n        if item:\n            break\n"
        "    else:\n        item = None\n    return item\n"
    )
    slid = before.replace("    return item\n", "        return item\n")
    repair = return_out_of_block(before, slid, "name the loop variable better")
    assert repair is not None and repair.text == before
    assert repair.detail == "moved the last return back out of the block it slid into: pick"
    # All the block held: written again after it, the block keeping its own.
    alone = slid.replace("        item = None\n", "")
    repair = return_out_of_block(before, alone)
    assert repair is not None
    assert repair.text.endswith("    else:\n        return item\n    return item\n")
    assert return_out_of_block(before, slid, "return None when nothing is found") is None
    assert return_out_of_block(before, before) is None
    other = slid.replace("        return item\n", "        return items\n")
    assert return_out_of_block(before, other) is None  # not the same return


def test_a_constant_only_a_put_back_definition_reads_goes_back_too() -> None:
    # Seen in a reply holding only a new handler: main() was put back, and with it the
    # COMMANDS table it reads, which the reply itself never used.
    before = (
        "def cmd_a(args):\n    return 1\n\n\nCOMMANDS = {'a': cmd_a}\n\n\n"
        "def main(name):\n    return COMMANDS[name](None)\n"
    )
    after = "def cmd_b(args):\n    return 2\n"
    repair = restore_dropped(before, after, "add a b command")
    assert repair is not None
    assert repair.detail.endswith("left out: cmd_a, main, COMMANDS")
    assert "COMMANDS = {'a': cmd_a}" in repair.text and "def cmd_b" in repair.text
