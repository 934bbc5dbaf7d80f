"""Requests whose words name a known shape of fix, which the answers missed: the fixes, tried.

Seen with the 1.5B model on the own tasks: settings/bool-case ("make the yes/no words
case-insensitive") answered with the code unchanged or still refusing 'True';
geometry/clockwise-area ("should always return the positive area") written back unchanged in
every run; textstats/empty-text ("crashes with ZeroDivisionError ... return 0.0 when the text
has no words") guarded with ``if not text``, which a blank text passes. A candidate is taken
only when a standing probe and the tests pass on it and on no other candidate.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import run_gpte
from tests.helpers.gate import GATE, GATE_TESTS, SWITCH, SWITCHED
from tests.helpers.gitrepo import Snapshot, git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env
from tests.helpers.markup import ESCAPE, ESCAPED, MARKUP, MARKUP_TESTS
from tests.helpers.noisy import LOG_IT, LOGGED, NOISY, NOISY_TESTS, SILENT
from tests.helpers.prefixed_config import CONFIG

WORDS = """\
YES = ("yes", "on", "true")
NO = ("no", "off", "false")


def parse_flag(text):
    text = text.strip()
    if text in YES:
        return True
    if text in NO:
        return False
    raise ValueError(f"not a yes/no word: {text!r}")


def read_flag(options, key):
    return parse_flag(options[key])
"""
WORDS_TESTS = """\
from words import read_flag


def test_words():
    assert read_flag({"a": "yes"}, "a") is True
    assert read_flag({"a": " off "}, "a") is False
"""
CASE = "read_flag refuses 'Yes' and 'OFF'. Make the yes/no words case-insensitive."
CASE_PROBE = (
    "```python\nfrom words import read_flag\nassert read_flag({'a': 'Yes'}, 'a') is True\n```"
)

SHAPES = """\
class Polygon:
    def __init__(self, points):
        self.points = list(points)

    def edges(self):
        return list(zip(self.points, self.points[1:] + self.points[:1]))

    @property
    def area(self):
        return sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges()) / 2


class Square:
    def __init__(self, side):
        self.side = side

    @property
    def area(self):
        return self.side * self.side
"""
SHAPES_TESTS = """\
from shapes import Polygon, Square


def test_areas():
    assert Polygon([(0, 0), (2, 0), (2, 2), (0, 2)]).area == 4
    assert Square(3).area == 9
"""
SIGN = "Polygon.area comes out negative when the points go clockwise. It should always be positive."
SIGN_PROBE = (
    "```python\nfrom shapes import Polygon\n"
    "assert Polygon([(0, 0), (0, 1), (1, 1), (1, 0)]).area == 1\n```"
)

STATS = """\
def mean(values):
    values = list(values)
    return sum(values) / len(values)


def ratio(part, whole):
    return part / whole
"""
STATS_TESTS = """\
from stats import mean


def test_mean():
    assert mean([1, 2, 3]) == 2
"""
ZERO = "mean([]) crashes with ZeroDivisionError. Make mean() return 0.0 when there are no values."
ZERO_PROBE = "```python\nfrom stats import mean\nassert mean([]) == 0.0\n```"
CONFIG_TESTS = """\
from config import load


def test_load():
    assert load({"APP_A": "1", "X": "2"}) == {"a": "1"}
"""
PASS_DOWN = (
    'Add a parameter prefix to load, defaulting to "APP_", and use it instead of the fixed '
    "prefix when reading the environment."
)
PASS_DOWN_PROBE = (
    "```python\nfrom config import load\n"
    "assert load({'MY_A': '1'}, prefix='MY_') == {'a': '1'}\n```"
)
# A probe that passes on the code before: it stands for nothing.
USELESS = "```python\nfrom words import read_flag\nassert read_flag({'a': 'no'}, 'a') is False\n```"


def _repo(tmp_path: Path, name: str, module: str, tests: str) -> Path:
    return make_repo(tmp_path / "r", {f"{name}.py": module, f"tests/test_{name}.py": tests})


def _improve(
    root: Path, llm_server: LLMServer, request: str, *replies: str
) -> subprocess.CompletedProcess[str]:
    """``improve request`` with no retry, the model answering ``replies`` in turn."""
    llm_server.queue(*replies)
    env = self_hosted_env(llm_server, GPTE_PROBE="")
    return run_gpte("improve", request, "--max-retries", "0", cwd=root, env=env, timeout=300)


def _unchanged(name: str, module: str) -> str:
    """An answer writing the module back as it was."""
    return f"{name}.py\n```python\n{module}```\n"


def _committed(root: Path, name: str) -> str:
    """``name``.py on the branch improve made."""
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    return git(root, "show", f"{branch}:{name}.py")


def _fixed(
    root: Path, llm_server: LLMServer, request: str, name: str, module: str, probe: str
) -> tuple[subprocess.CompletedProcess[str], str, str]:
    """``improve request`` on ``root``, the model writing ``name``.py back as it was and then
    ``probe``; it must commit: the run, its branch and ``name``.py on it."""
    done = _improve(root, llm_server, request, _unchanged(name, module), probe, probe)
    assert done.returncode == 0, done.stderr
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    return done, branch, git(root, "show", f"{branch}:{name}.py")


def test_a_word_compared_in_one_case_is_lower_cased_where_the_probe_says(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Two candidates: `key` in read_flag, `text` in parse_flag (which read_flag calls); the
    # probe passes on the second only.
    root = _repo(tmp_path, "words", WORDS, WORDS_TESTS)
    before = Snapshot.take(root)
    done, branch, text = _fixed(root, llm_server, CASE, "words", WORDS, CASE_PROBE)
    assert "trying 2 value(s) the functions the request names compare, lower-cased" in done.stderr
    assert text == WORDS.replace("text in", "text.lower() in")
    body = git(root, "log", "-1", "--format=%B", branch)
    assert "found by trying the values the functions the request names compare" in body
    assert "`text` lower-cased where it is compared in parse_flag (words.py:7)" in body
    run_id = body.split("Gpte-Run: ")[1].split()[0]
    shown = run_gpte("log", "show", run_id, cwd=root, env=self_hosted_env(llm_server)).stdout
    assert "found by trying the values the functions the request names compare" in shown
    before.assert_unchanged(root, new_branches=(branch,))


def test_a_negative_result_is_made_positive_in_the_method_the_request_names(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # Square.area is not Polygon.area, and edges() returns a list: one candidate.
    root = _repo(tmp_path, "shapes", SHAPES, SHAPES_TESTS)
    done, _, text = _fixed(root, llm_server, SIGN, "shapes", SHAPES, SIGN_PROBE)
    assert "trying abs() of 1 value(s) the functions the request names return" in done.stderr
    shoelace = "sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges()) / 2"
    assert text == SHAPES.replace(f"return {shoelace}", f"return abs({shoelace})")


def test_a_division_by_zero_is_guarded_with_the_value_the_request_gives(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    root = _repo(tmp_path, "stats", STATS, STATS_TESTS)
    _, _, text = _fixed(root, llm_server, ZERO, "stats", STATS, ZERO_PROBE)
    guarded = "    values = list(values)\n    if not values:\n        return 0.0\n    return sum"
    assert text == STATS.replace("    values = list(values)\n    return sum", guarded)


def test_a_new_parameter_is_passed_down_to_the_default_it_replaces(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The model added the parameter and never passed it on (settings/env-prefix).
    root = _repo(tmp_path, "config", CONFIG, CONFIG_TESTS)
    done, _, text = _fixed(root, llm_server, PASS_DOWN, "config", CONFIG, PASS_DOWN_PROBE)
    said = "`prefix` passed down through read_env to key_of's `prefix` in load (config.py:19)"
    assert f"{said}: the probe and the checks pass" in done.stderr
    assert text == (
        CONFIG.replace("def read_env(environ):", 'def read_env(environ, prefix="APP_"):')
        .replace("key_of(name)", "key_of(name, prefix=prefix)")
        .replace("def load(environ):", 'def load(environ, prefix="APP_"):')
        .replace("read_env(environ)\n", "read_env(environ, prefix=prefix)\n")
    )


def test_a_parameter_passed_down_may_be_taken_on_the_tests_alone_not_verified(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The 1.5B model's probes for settings/env-prefix read the machine's own environment and
    # stood for nothing; the one chain the tests allow is committed with exit 1.
    root = _repo(tmp_path, "config", CONFIG, CONFIG_TESTS)
    useless = "```python\nfrom config import load\nassert load({}) == {}\n```"
    done = _improve(root, llm_server, PASS_DOWN, _unchanged("config", CONFIG), useless, useless)
    assert done.returncode == 1, done.stderr
    assert "no probe stands to judge them" in done.stderr
    assert "the only one the tests allow (not verified)" in done.stderr
    branch = git(root, "branch", "--list", "gpte/*").strip(" *\n")
    assert "key_of(name, prefix=prefix)" in git(root, "show", f"{branch}:config.py")


def test_a_new_flag_returns_the_asked_value_where_the_function_raised(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The model gave the flag the default False (ratelimit/decorator-no-raise): the intent
    # check refuses it, and the one candidate on the base passes the probe and the tests.
    root = _repo(tmp_path, "gate", GATE, GATE_TESTS)
    wrong = GATE.replace("name=None):", "name=None, strict=False):")
    probe = (
        "```python\nfrom gate import guarded\n\n@guarded(lambda x: x > 0, strict=False)\n"
        "def f(x):\n    return x\n\nassert f(-1) is None\nassert f(2) == 2\n```"
    )
    done = _improve(root, llm_server, SWITCH, _unchanged("gate", wrong), probe, probe)
    assert done.returncode == 0, done.stderr
    said = "`strict` added, None returned in place of 1 raise(s) of Refused in guarded (gate.py:9)"
    assert f"{said}: the probe and the checks pass" in done.stderr
    assert _committed(root, "gate") == SWITCHED


def test_a_value_written_bare_goes_through_the_function_the_others_go_through(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The model rewrote the escaping function itself, or nothing (minimark/escape-href).
    root = _repo(tmp_path, "markup", MARKUP, MARKUP_TESTS)
    probe = (
        "```python\nfrom markup import link\n"
        "assert link('/a?x=1&y=2', 'a') == '<a href=\"/a?x=1&amp;y=2\">a</a>'\n```"
    )
    done, _, text = _fixed(root, llm_server, ESCAPE, "markup", MARKUP, probe)
    said = "`url` put through escape() as the other values there in link (markup.py:6)"
    assert f"{said}: the probe and the checks pass" in done.stderr
    assert text == ESCAPED


def test_probes_written_about_the_answers_change_are_written_again_for_the_candidates(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The answer added a function nothing calls, and the probes checked it (minimark's
    # escape_href): on the candidate they fail on their own, and are asked for again there.
    root = _repo(tmp_path, "markup", MARKUP, MARKUP_TESTS)
    added = "\n\ndef escape_url(url):\n    return url.replace('&', '&amp;')\n"
    about_answer = "```python\nfrom markup import escape_url\nassert escape_url('&') == '&'\n```"
    about_link = (
        "```python\nfrom markup import link\n"
        "assert link('/a?x=1&y=2', 'a') == '<a href=\"/a?x=1&amp;y=2\">a</a>'\n```"
    )
    answer = _unchanged("markup", MARKUP + added)
    done = _improve(root, llm_server, ESCAPE, answer, about_answer, about_link)
    assert done.returncode == 0, done.stderr
    assert "the probes were written about the answers' change: asking again" in done.stderr
    assert "the probe and the checks pass" in done.stderr
    assert _committed(root, "markup") == ESCAPED


def test_a_print_the_request_asks_to_log_is_logged_on_the_tests_alone_not_verified(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The model added the logger, removed the print and logged nothing
    # (minimark/log-unclosed-fence); its probe passed on the code before.
    # A print in the tests shares the request's words too: it is not the code's to log.
    tests = NOISY_TESTS + '    print("warning: a blank line was skipped, as it should be")\n'
    root = _repo(tmp_path, "noisy", NOISY, tests)
    useless = "```python\nfrom noisy import read\nassert read(['a']) == ['a']\n```"
    done = _improve(root, llm_server, LOG_IT, _unchanged("noisy", SILENT), useless, useless)
    assert done.returncode == 1, done.stderr
    said = "the print made logger.warning() in the module (noisy.py:10)"
    assert f"{said}: the only one the tests allow (not verified)" in done.stderr
    assert _committed(root, "noisy") == LOGGED


def test_without_a_probe_that_passes_these_candidates_are_not_taken(
    tmp_path: Path, llm_server: LLMServer
) -> None:
    # The tests pass on the right candidate and fail on none: still, only a probe may choose.
    root = _repo(tmp_path, "words", WORDS, WORDS_TESTS)
    before = Snapshot.take(root)
    done = _improve(root, llm_server, CASE, _unchanged("words", WORDS), USELESS, USELESS)
    assert done.returncode != 0
    assert "none taken without a probe that passes on one" in done.stderr
    assert git(root, "branch", "--list", "gpte/*").strip() == ""
    before.assert_unchanged(root)
