"""A rewritten function's old body put back where the answer meant it (git_gpte.edit.oldbody)."""

from __future__ import annotations

from git_gpte.edit.oldbody import inline_self_calls, keep_body_after_guards, keep_lost_definers

CHUNKS = '''def chunked(items, n):
    """Lists of n items."""
    # the last one may be shorter
    out = [items[i : i + n] for i in range(0, len(items), n)]
    if out and len(out[-1]) < n:
        return out
    else:
        return out


class Cache:
    def __init__(self, maxsize, getsizeof=None):
        self.maxsize = maxsize
        self.getsizeof = getsizeof
'''


def test_a_function_written_as_its_new_checks_alone_keeps_its_old_body_after_them() -> None:
    guard = "    if n == 0:\n        raise ValueError('n must be at least 1')\n"
    docstring = '    """Lists of n items."""\n'
    written = CHUNKS.replace(docstring, docstring + guard)
    start, end = written.index("    # the last"), written.index("\n\nclass Cache")
    written = written[:start] + written[end:]
    repair = keep_body_after_guards(CHUNKS, written)
    assert repair is not None and repair.detail.endswith("after the new checks: chunked")
    assert repair.text == CHUNKS.replace("    # the last", guard + "    # the last")
    # the old body there, a check that also has the old body, or a function that only checked
    # before: nothing to put back
    assert keep_body_after_guards(CHUNKS, repair.text) is None
    # the checks and the old body's end, its first lines lost: the body whole after them
    size_check = "        if maxsize < 0:\n            raise ValueError(maxsize)\n"
    lost_head = CHUNKS.replace("        self.maxsize = maxsize\n", size_check)
    repair = keep_body_after_guards(CHUNKS, lost_head)
    assert repair is not None and repair.detail.endswith(": Cache.__init__")
    assert repair.text == CHUNKS.replace(
        "        self.maxsize", size_check + "        self.maxsize"
    )
    own_end = lost_head.replace("self.getsizeof = getsizeof", "self.getsizeof = None")
    assert keep_body_after_guards(CHUNKS, own_end) is None  # not the old body's end
    # an old check the new one took the place of, before the same end: replaced, not lost
    limits = "def limited(f, key):\n    if f():\n        raise RuntimeError(key)\n    return key\n"
    optional = limits.replace("if f():", "if f() and key:")
    assert keep_body_after_guards(limits, optional) is None
    checks = "def check(n):\n    if n < 0:\n        raise ValueError(n)\n"
    stricter = checks.replace("n < 0", "n <= 0")
    assert keep_body_after_guards(checks, stricter) is None


def test_a_call_of_the_function_itself_with_its_own_parameters_is_its_old_body() -> None:
    wrapper = (
        "    def __init__(self, maxsize, getsizeof=None):\n"
        "        if maxsize < 0:\n"
        "            raise ValueError('maxsize must be non-negative')\n"
        "        Cache.__init__(self, maxsize, getsizeof)\n"
    )
    old = CHUNKS[CHUNKS.index("    def __init__") :]
    written = CHUNKS.replace(old, wrapper)
    repair = inline_self_calls(CHUNKS, written)
    assert repair is not None and repair.detail.endswith("stood for: Cache.__init__")
    assert repair.text == CHUNKS.replace(
        "        self.maxsize = maxsize\n",
        "        if maxsize < 0:\n"
        "            raise ValueError('maxsize must be non-negative')\n"
        "        self.maxsize = maxsize\n",
    )
    # self.method(...) and return f(...) too
    assert inline_self_calls(CHUNKS, written.replace("Cache.__init__(self, ", "self.__init__("))
    returned = CHUNKS.replace(
        '    """Lists of n items."""\n',
        '    """Lists of n items."""\n    if n < 1:\n        raise ValueError(n)\n'
        "    return chunked(items, n)\n",
    )
    start, end = returned.index("    # the last"), returned.index("\n\nclass Cache")
    repair = inline_self_calls(CHUNKS, returned[:start] + returned[end:])
    assert repair is not None and "    if n < 1:\n" in repair.text
    assert repair.text.count("return out") == 2 and "return chunked" not in repair.text


def test_a_call_of_itself_that_is_real_recursion_is_left_alone() -> None:
    recursive = "def walk(node):\n    for child in node:\n        walk(child)\n"
    more = recursive.replace("walk(child)", "walk(child)\n    print(node)")
    assert inline_self_calls(recursive, more) is None  # other arguments
    halving = "def half(n):\n    return n // 2\n"
    early = "def half(n):\n    half(n)\n    return n\n"
    assert inline_self_calls(halving, early) is None  # the old body returns before the end
    super_call = CHUNKS.replace(
        "        self.maxsize = maxsize\n", "        super().__init__(self, maxsize)\n"
    )
    assert inline_self_calls(CHUNKS, super_call) is None  # the parent's, not its own


def test_a_call_of_a_name_the_function_binds_itself_is_not_a_call_of_itself() -> None:
    """Seen on jinja: ``pformat`` imports ``pformat`` from ``pprint`` and returns
    ``pformat(obj)``; taken for a call of itself, its old body was put in once per answer."""
    wrapper = (
        "def pformat(obj):\n"
        '    """Format an object."""\n'
        "    from pprint import pformat\n\n"
        "    return pformat(obj)\n"
    )
    assert inline_self_calls(wrapper, wrapper.replace("Format an", "Format any")) is None
    assigned = "def area(r):\n    area = lambda r: 3 * r * r\n    return area(r)\n"
    assert inline_self_calls("def area(r):\n    return 3 * r * r\n", assigned) is None


TOTALS = """LIMIT = 10


def totals(rows, key):
    seen = {}
    for row in rows:
        seen[row[key]] = seen.get(row[key], 0) + row["n"]
    if not seen:
        return None
    names = sorted(seen)
    names.append("total")
    return [(name, seen.get(name, sum(seen.values()))) for name in names[:LIMIT]]
"""


def test_a_lost_line_setting_a_name_still_used_comes_back_before_what_replaced_it() -> None:
    dropped = '    names = sorted(seen)\n    names.append("total")\n'
    lost = TOTALS.replace(dropped, "    names.sort()\n")
    repair = keep_lost_definers(TOTALS, lost)
    assert repair is not None
    assert repair.detail == "put back the lines that set names, lost in the rewrite"
    assert repair.text == TOTALS.replace(
        '    names.append("total")\n', '    names.append("total")\n    names.sort()\n'
    )


def test_lost_lines_that_return_or_set_nothing_used_stay_out() -> None:
    # The `if not seen: return None` went too: it returns, so it is the answer's to drop.
    lost = TOTALS.replace("    if not seen:\n        return None\n", "").replace(
        "    seen = {}\n", ""
    )
    repair = keep_lost_definers(TOTALS, lost)
    assert repair is not None
    assert "if not seen" not in repair.text
    assert "    seen = {}\n    for row in rows:" in repair.text


def test_names_the_rewrite_binds_itself_or_the_module_defines_are_left_alone() -> None:
    rebound = TOTALS.replace("    names = sorted(seen)\n", "    names = list(seen)\n")
    assert keep_lost_definers(TOTALS, rebound) is None
    constant = TOTALS.replace("    seen = {}\n", "    seen = {}\n    cap = LIMIT\n")
    assert keep_lost_definers(constant, TOTALS) is None  # cap is no longer used: nothing lost
