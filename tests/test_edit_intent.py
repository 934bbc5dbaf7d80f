"""edit/intent.py: what a request literally asks of a named definition, checked on the text."""

from __future__ import annotations

from git_gpte.edit.intent import request_problems

CODE = '''\
class Cart:
    def add(self, item):
        self.items.append(item)


def total(items, rate=0.2):
    return sum(items) * (1 + rate)


def parse(text: str) -> int:
    """Read a count."""
    return int(text)
'''


def _kinds(request: str, code: str = CODE) -> list[str]:
    return [f"{p.line}: {p.text.split(',')[0]}" for p in request_problems(request, {"m.py": code})]


def test_a_docstring_asked_for_a_function_or_class() -> None:
    assert _kinds("Add a docstring to total.") == ["6: the request asks for a docstring on total"]
    assert _kinds("Write docstrings for the class `Cart`") == [
        "1: the request asks for a docstring on Cart"
    ]
    assert _kinds("add a docstring to parse()") == []  # it has one
    # a method named with its class: the method's docstring, not the class's
    assert _kinds("Add a docstring to Cart.add") == ["2: the request asks for a docstring on add"]
    done = CODE.replace("rate=0.2):\n", 'rate=0.2):\n    """The total with VAT."""\n')
    assert _kinds("Add a docstring to total.", done) == []


def test_type_hints_asked_for_listed_functions() -> None:
    assert _kinds("Add type hints to total, Cart.add and parse.") == [
        "6: the request asks for type hints on total",
        "2: the request asks for type hints on add",
    ]
    hinted = CODE.replace("def total(items, rate=0.2):", "def total(items: list[float], rate=0.2):")
    hinted = hinted.replace("def add(self, item):", "def add(self, item) -> None:")
    assert _kinds("add type annotations to the functions total and add", hinted) == []


def test_names_not_defined_and_other_requests_are_left_alone() -> None:
    assert _kinds("Add docstrings to all functions") == []
    assert _kinds("Add a docstring to render (in another module)") == []
    assert _kinds("Rename total to grand_total and update its callers") == []
    assert request_problems("Add a docstring to total.", {"m.py": "def total(:\n"}) == []
    assert request_problems("Add a docstring to total.", {"README.md": "def total(): pass"}) == []


def test_only_a_request_to_add_is_checked() -> None:
    assert _kinds("Remove the docstring in total; it is wrong.") == []
    assert _kinds("The annotations on total are wrong. Add a docstring to total.") == [
        "6: the request asks for a docstring on total"
    ]
    assert _kinds("Please document total with a docstring for total") == [
        "6: the request asks for a docstring on total"
    ]


def test_a_request_asks_to_change_tests_only_with_a_verb_of_changing() -> None:
    from git_gpte.edit.intent import asks_to_change_tests

    asking_for = ("add a test for parse_date", "Write unit tests", "fix the regression test")
    for asking in (*asking_for, "update acronym_test.py", "fix tests/test_io.py"):
        assert asks_to_change_tests(asking), asking
    passing = (
        "Don't change the names of existing functions, as they may be referenced from other "
        "code like unit tests, etc."
    )
    removed = "all other punctuation can be removed from the input"
    for other in ("add logging", passing, "make the tests pass", removed):
        assert not asks_to_change_tests(other), other
    assert not asks_to_change_tests("take a look at the test cases in dot_dsl_test.py")
    assert not asks_to_change_tests("not in the correct range. The tests will only pass if")
    # Callers in the tests follow a change of interface.
    assert asks_to_change_tests("rename load to read")


def test_edits_that_change_no_code_leave_the_request_undone() -> None:
    from git_gpte.edit.intent import code_unchanged

    before = "# --- helpers -----------\n\ndef f(x):\n    return x  # the value\n"
    damaged = "# --- helpers\n\ndef f(x):\n\n    return x\n"
    (problem,) = code_unchanged("make f case-insensitive", {"a.py": before}, {"a.py": damaged})
    assert problem.kind == "request" and "its code is unchanged" in problem.render()
    # a request about comments or layout, a real change, a new or deleted file: not this
    assert code_unchanged("fix the typo in the comment", {"a.py": before}, {"a.py": damaged}) == []
    changed = damaged.replace("return x", "return x.lower()")
    assert code_unchanged("make f case-insensitive", {"a.py": before}, {"a.py": changed}) == []
    assert code_unchanged("x", {"a.py": before}, {"a.py": damaged, "b.py": "y = 1\n"}) == []
    assert code_unchanged("x", {"a.py": before}, {"a.py": damaged, "c.py": None}) == []


def test_edits_that_change_only_docstrings_leave_a_code_request_undone() -> None:
    # Seen (ledger/statement-end-date): a fix of a date range that only took a blank line out
    # of the function's docstring, committed as a success.
    from git_gpte.edit.intent import code_unchanged

    before = 'class A:\n    """An A.\n\n    More."""\n\n    def f(self):\n        """F."""\n'
    after = before.replace("An A.\n\n", "An A.\n").replace('"""F."""', '"""F, now."""')
    (problem,) = code_unchanged("include the end date", {"a.py": before}, {"a.py": after})
    assert "docstrings or imports differ" in problem.render()
    # a request about documentation is done by docstrings alone
    assert code_unchanged("document A.f better", {"a.py": before}, {"a.py": after}) == []
    assert code_unchanged("improve the docstrings", {"a.py": before}, {"a.py": after}) == []
    # A name imported another way is the same name (seen: `date`, newly imported, written
    # for `dt.date`), unless the request is about imports; another name is a change.
    typed = "import datetime as dt\n\n\ndef f(x: dt.date):\n    return x\n"
    same = "import datetime as dt\nfrom datetime import date\n\n\ndef f(x: date):\n    return x\n"
    (problem,) = code_unchanged("include the end date", {"a.py": typed}, {"a.py": same})
    assert "docstrings or imports differ" in problem.render()
    assert code_unchanged("import date from datetime", {"a.py": typed}, {"a.py": same}) == []
    # A parameter named like the import is the function's own (ledger/statement-end-date).
    shadowed = "def g(date):\n    return date or dt.date.today()\n"
    (problem,) = code_unchanged("r", {"a.py": typed + shadowed}, {"a.py": same + shadowed})
    assert "docstrings or imports differ" in problem.render()
    other = same.replace("from datetime import date", "from time import date")
    assert code_unchanged("include the end date", {"a.py": typed}, {"a.py": other}) == []
    # a body emptied of all but its docstring is a change
    emptied = before.replace('        """F."""\n', '        """F."""\n        return 1\n')
    assert code_unchanged("include the end date", {"a.py": before}, {"a.py": emptied}) == []


def test_a_function_or_method_asked_for_by_name() -> None:
    from git_gpte.edit.intent import added_definitions

    assert added_definitions("Add a method categories() to InventoryStore that returns") == [
        ("categories", "InventoryStore")
    ]
    assert added_definitions("Add a to_dict() method to the Summary class in report.py") == [
        ("to_dict", "Summary")
    ]
    assert added_definitions(
        'add a function `slugify` to utils.py, and a method get(key, sep=",")'
    ) == [
        ("slugify", None),
        ("get", None),
    ]
    for other in (
        "add a helper function that returns the total",
        "Rename the function total to grand_total",
        "log a warning that includes the decorated function's name",
        "Add a parameter strict=True to total; the method to_dict is wrong.",
        # seen (ratelimit/decorator-logging): a special name used, not a method to add
        "log a warning that includes the function's name, on a module-level logger "
        "(logging.getLogger(__name__)), before raising",
        "add the decorated function's __name__ to the message",
    ):
        assert added_definitions(other) == [], other


def test_a_method_asked_for_must_be_in_the_class_named() -> None:
    from git_gpte.edit.intent import missing_definitions

    def said(request: str, code: str = CODE) -> list[str]:
        return [p.render() for p in missing_definitions(request, {"m.py": code})]

    request = "Add a method clear() to Cart that empties it."
    assert said(request) == [
        "m.py:1: the request asks for a method clear in Cart, and Cart has none"
    ]
    elsewhere = CODE + "\n\ndef clear(cart):\n    cart.items = []\n"
    assert said(request, elsewhere) == [
        "m.py:1: the request asks for a method clear in Cart, and Cart has none"
    ]
    done = CODE.replace(
        "class Cart:\n", "class Cart:\n    def clear(self):\n        self.items = []\n\n"
    )
    assert said(request, done) == []
    assert said("Add a function slugify to m.py") == [
        "the request asks to add slugify, and no file defines it"
    ]
    assert (
        said("Add a function slugify to m.py", CODE + "\n\ndef slugify(s):\n    return s\n") == []
    )
    assert said("Add a method total_with_tax() to Invoice") == [
        "the request asks to add total_with_tax, and no file defines it"
    ]


STORE = """import logging

logger = logging.getLogger(__name__)


def load(path):
    items = read(path)
    print(f"Loaded {len(items)} items")
    return items


def check(items):
    for item in items:
        if item.low:
            logger.warning("low stock: %s", item)


def report(items):
    print("done")
"""


def test_prints_asked_to_become_logging_must_be_gone_where_named() -> None:
    from git_gpte.edit.intent import print_problems

    texts = {"inventory/store.py": STORE}
    asked = (
        "In inventory/store.py, replace the print() calls with logging on a module-level "
        "logger: the low-stock warning at WARNING level."
    )
    problems = print_problems(asked, texts)
    assert [(p.path, p.line) for p in problems] == [("inventory/store.py", 8)]
    assert "still calls print()" in problems[0].text
    # a function named: only its own prints count
    assert print_problems("In load, replace the print() call with a log message.", texts)
    assert not print_problems("In check, replace the print() call with logging.", texts)
    assert print_problems("Log at INFO instead of printing in report.", texts)
    # a path in the middle of the sentence (todo/storage-logging: its dot ended the sentence)
    named = "Replace the print() calls in inventory/store.py with logging at info level."
    assert [(p.path, p.line) for p in print_problems(named, texts)] == [("inventory/store.py", 8)]
    # nothing named, something kept, or not a request to log: left alone
    assert not print_problems("Replace the print() calls with logging.", texts)
    assert not print_problems(
        "In inventory/store.py, replace the print() calls with logging, except in report.", texts
    )
    assert not print_problems("In load, replace the print() call with a return value.", texts)


def test_a_special_method_asked_for_is_a_method_of_the_class_named() -> None:
    from git_gpte.edit.intent import added_definitions

    asked = "Add a __repr__ to SlidingWindowLimiter that returns e.g. SlidingWindowLimiter(5)."
    assert added_definitions(asked) == [("__repr__", "SlidingWindowLimiter")]
    assert added_definitions("Give Point an `__eq__` method.") == [("__eq__", None)]
    assert added_definitions("Remove the __repr__ from Point.") == []


def test_the_literal_left_is_replaced_where_the_constant_exists() -> None:
    from git_gpte.edit.intent import complete_constant

    asked = "Put 0.5 in a constant named HALF and use it everywhere instead of the literal."
    text = (
        "def early(x=0.5):\n    return x\n\n\nHALF = 0.5\n\n\n"
        "def f(x):\n    return -0.5 * x + 0.5 * 2 + len('0.5')  # 0.5\n\n\n"
        "LATER = (0.5, 5)\n"
    )
    done, places = complete_constant(asked, "m.py", text)
    assert places == 3
    assert done == text.replace("-0.5 * x + 0.5", "-HALF * x + HALF").replace(
        "(0.5, 5)", "(HALF, 5)"
    )
    # untouched: not asked everywhere, a file without the constant, not Python
    assert complete_constant(asked.replace("everywhere", "in f"), "m.py", text)[1] == 0
    assert complete_constant(asked, "m.py", text.replace("HALF = ", "H = "))[1] == 0
    assert complete_constant(asked, "m.txt", text) == (text, 0)


def test_a_literal_moved_into_a_constant_everywhere_is_gone_elsewhere() -> None:
    from git_gpte.edit.intent import literal_problems

    asked = (
        "The tolerance 1e-9 is written out in several places in geometry.py. Put it in a "
        "module-level constant named EPSILON and use that constant everywhere."
    )
    half = (
        "EPSILON = 1e-9\n\n\ndef f(x):\n    return x < EPSILON\n\n\n"
        "def g(x):\n    return x < 1e-09\n"
    )
    problems = literal_problems(asked, {"geometry.py": half})
    assert [(p.path, p.line) for p in problems] == [("geometry.py", 9)]
    done = half.replace("x < 1e-09", "x < EPSILON")
    assert literal_problems(asked, {"geometry.py": done}) == []
    # not "everywhere", two numbers, or no file defining the constant: not checked
    assert literal_problems(asked.replace(" everywhere", " in f"), {"geometry.py": half}) == []
    assert literal_problems(asked.replace("1e-9", "1e-9 or 1e-6"), {"geometry.py": half}) == []
    assert literal_problems(asked, {"geometry.py": half.replace("EPSILON = ", "TOL = ")}) == []


def test_every_definition_a_request_lists_as_made_to_change_is_changed() -> None:
    from git_gpte.edit.intent import listed_unchanged

    before = (
        "def mean(xs):\n    return sum(xs) / len(xs)\n\n\n"
        "def spread(xs):\n    return max(xs) - min(xs)\n\n\n"
        "def ratio(xs):\n    return xs[0] / xs[-1]\n"
    )
    after = before.replace("/ len(xs)", "/ len(xs) if xs else 0.0").replace(
        "max(xs) - min(xs)", "max(xs) - min(xs) if xs else 0.0"
    )
    ask = "Empty input crashes. Make mean, spread and ratio() return 0.0 for an empty list."
    problems = listed_unchanged(ask, {"s.py": before}, {"s.py": after})
    assert [(p.kind, p.path, p.line) for p in problems] == [("request", "s.py", 9)]
    assert "ratio to change too" in problems[0].text
    done = after.replace("xs[0] / xs[-1]", "xs[0] / xs[-1] if xs else 0.0")
    assert listed_unchanged(ask, {"s.py": before}, {"s.py": done}) == []
    # None of them changed is another check's business; one name is no list; nor is a name
    # the files do not define once, nor "make" followed by anything but the names.
    assert listed_unchanged(ask, {"s.py": before}, {"s.py": before}) == []
    assert listed_unchanged("Make mean return 0.0", {"s.py": before}, {"s.py": after}) == []
    assert listed_unchanged("Make mean and median safe", {"s.py": before}, {"s.py": after}) == []
    use = "Make the report use mean and ratio"
    assert listed_unchanged(use, {"s.py": before}, {"s.py": after}) == []


def test_prints_asked_to_go_with_no_place_named_must_be_fewer() -> None:
    from git_gpte.edit.intent import prints_kept

    base = {"m.py": "def parse(t):\n    if not t:\n        print('unclosed')\n    return t\n"}
    logged = "import logging\n\nlogger = logging.getLogger(__name__)\n\n\n" + base["m.py"]
    request = (
        "When a block is never closed, the parser prints a warning to stderr. Log it instead "
        "at WARNING level on a module-level logger and remove the print."
    )
    found = prints_kept(request, base, {"m.py": logged})
    assert [(p.path, p.line) for p in found] == [("m.py", 8)]
    assert "print() calls to go" in found[0].render()
    done = logged.replace("print('unclosed')", "logger.warning('unclosed')")
    assert prints_kept(request, base, {"m.py": done}) == []
    assert prints_kept("Replace the prints with logging.", base, {"m.py": logged}) != []
    # not asked, negated, or some kept: left to the model
    for other in (
        "Add a logger to m.py.",
        "Log the warning too, but do not remove the print.",
        "Replace the prints with logging, except the one for the usage line.",
    ):
        assert prints_kept(other, base, {"m.py": logged}) == []


SAVING = '''\
class Store:
    def save(self, path):
        """Write the store."""
        tmp = path + ".tmp"
        return tmp
'''


def test_a_named_function_changed_only_in_its_annotations_is_not_changed() -> None:
    from git_gpte.edit.intent import annotations_only

    annotated = SAVING.replace("(self, path):", "(self, path: str | Path) -> str:")
    request = "Store.save raises TypeError when given a pathlib.Path; make it accept one too."
    found = annotations_only(request, {"s.py": SAVING}, {"s.py": annotated})
    assert [(p.line, p.text) for p in found] == [
        (
            2,
            "the only change to Store.save is its type annotations, which change nothing it "
            "does when it runs: make the change the request asks of Store.save",
        )
    ]
    # Its docstring too changes nothing it does; a change to its code is a change.
    redoc = annotated.replace("Write the store.", "Write the store to path.")
    assert annotations_only(request, {"s.py": SAVING}, {"s.py": redoc})
    documented = SAVING.replace("Write the store.", "Write the store to path.")
    assert annotations_only(request, {"s.py": SAVING}, {"s.py": documented}) == []
    fixed = annotated.replace("path + ", "str(path) + ")
    assert annotations_only(request, {"s.py": SAVING}, {"s.py": fixed}) == []
    # A function the request does not name, or a request about types, is not judged so.
    unnamed = "Make saving accept a Path"
    assert annotations_only(unnamed, {"s.py": SAVING}, {"s.py": annotated}) == []
    hints = "Add type hints to Store.save"
    assert annotations_only(hints, {"s.py": SAVING}, {"s.py": annotated}) == []


def test_a_default_the_edits_give_is_the_one_the_request_writes() -> None:
    from git_gpte.edit.intent import default_problems

    before = "def get(key, default=None):\n    pass\n\n\ndef other(sep=';'):\n    pass\n"
    request = 'Add a parameter sep="," to get (get(key, default=None, sep=",")).'
    wrong = before.replace("default=None)", "default=None, sep=';')")
    found = default_problems(request, {"m.py": before}, {"m.py": wrong})
    assert [(p.line, p.text) for p in found] == [
        (1, "the request asks for sep=',', and get gives sep the default ';'")
    ]
    # as asked (keyword-only too), or a parameter the edits left as it was: nothing said
    right = before.replace("default=None)", "default=None, *, sep=',')")
    assert default_problems(request, {"m.py": before}, {"m.py": right}) == []
    assert default_problems(request, {"m.py": before}, {"m.py": before}) == []
    # a default that is no literal, or a request that writes none, is not judged
    computed = before.replace("default=None)", "default=None, sep=SEP)")
    assert default_problems(request, {"m.py": before}, {"m.py": computed}) == []
    assert default_problems("Add a sep parameter to get", {"m.py": before}, {"m.py": wrong}) == []
    # written as something else than a parameter: an HTML attribute, a repr, another function
    for other in ('`3. c` should render as <ol sep=",">', 'repr gives Point(sep=",")'):
        assert default_problems(other, {"m.py": before}, {"m.py": wrong}) == []
    assert default_problems('put(sep=",")', {"m.py": before}, {"m.py": wrong}) == []
    assert default_problems('get(sep="\\")', {"m.py": before}, {"m.py": wrong}) == []


def test_logging_asked_for_a_function_must_be_in_it() -> None:
    # Seen on cachetools: asked to add logging to hashkey, the model logged in another
    # function of the module.
    logged = CODE.replace(
        "    return sum", "    logger.debug('total of %s', items)\n    return sum"
    )
    request = "Add logging to total: log a debug message with the items"
    assert _kinds(request) == ["6: the request asks for logging in total"]
    assert _kinds(request, logged) == []
    elsewhere = CODE.replace("        self.items", "        log.info(item)\n        self.items")
    assert _kinds("add debug logging in `total`", elsewhere) == [
        "7: the request asks for logging in total"  # a line lower: one line was added above
    ]
    assert _kinds("Add logging to the module") == []


def test_the_requests_these_checks_judge_alone_are_told_from_changes_of_behaviour() -> None:
    from git_gpte.edit.intent import checked_by_kind

    for request in (
        "Add a docstring to summarize.",
        "Add type hints to apply_discount and parse_quantity.",
        "Add logging to apply_discount: log the amount at debug level.",
        "In textstats.py, replace the print() call with a warning logged on a module logger.",
        "Put the tolerance 1e-9 in a module-level constant named EPSILON and use it everywhere.",
    ):
        assert checked_by_kind(request), request
    for request in (
        "parse_quantity should raise ValueError when the text is not a positive integer.",
        "Account statements leave out transactions made on the last day of the period.",
        "Add a method categories() to InventoryStore that returns the sorted categories.",
    ):
        assert not checked_by_kind(request), request
