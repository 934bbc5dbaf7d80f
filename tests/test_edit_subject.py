"""The function a request is about, left as it was while other code changed (edit/subject.py).

Seen with the 1.5B model: asked that jinja's ``generate_lorem_ipsum`` refuse min > max, it
changed another class's ``__repr__`` and added a constant; asked that humanize's ``metric``
refuse a precision under 1, it rewrote ``naturaldelta``.
"""

from __future__ import annotations

import json
from pathlib import Path

from git_gpte.edit.subject import subject_unchanged
from tests.conftest import run_gpte
from tests.helpers.gitrepo import git, make_repo
from tests.helpers.llm_server import LLMServer, self_hosted_env

UTILS = '''"""Helpers."""

WORDS = "a b c d e f"


class Missing:
    def __repr__(self):
        return "missing"


def _pick(words, count):
    return words.split()[:count]


def lorem(n=5, low=2, high=4):
    """Some words."""
    return " ".join(_pick(WORDS, n))


def other(x):
    return x + 1
'''
REQUEST = "lorem should raise ValueError when low is greater than high"


def _problems(after: str, request: str = REQUEST) -> list[str]:
    return [p.text for p in subject_unchanged(request, {"u.py": UTILS}, {"u.py": after})]


def test_the_named_function_left_as_it_was_while_other_code_changed_is_a_problem() -> None:
    unrelated = UTILS.replace('return "missing"', 'return "<Missing>"')
    found = _problems(unrelated)
    assert len(found) == 1 and "change to lorem, and lorem is as it was" in found[0]
    assert "Missing.__repr__" in found[0]
    # a constant of its own added beside it counts as other code too
    assert _problems(unrelated + '\nLOREM = "x y"\n')
    # the function written anew in another module (seen on werkzeug: import_string added to
    # _internal.py, the one in utils.py as it was)
    copy = "def lorem(n=5, low=2, high=4):\n    if low > high:\n        raise ValueError\n"
    elsewhere = subject_unchanged(REQUEST, {"u.py": UTILS}, {"u.py": UTILS, "v.py": copy})
    assert [(p.path, p.line) for p in elsewhere] == [("u.py", 15)]
    # a method named with its class, a function in backticks, "Make ... " all name it
    assert _problems(unrelated, "Make `lorem()` refuse low > high")


def test_a_change_the_function_reaches_or_a_change_to_it_is_no_problem() -> None:
    fixed = UTILS.replace(
        '    """Some words."""\n',
        '    """Some words."""\n    if low > high:\n        raise ValueError("low > high")\n',
    )
    assert _problems(fixed) == []
    # through a helper it calls, or a constant it reads
    assert _problems(UTILS.replace("[:count]", "[: max(count, 0)]")) == []
    assert _problems(UTILS.replace('"a b c d e f"', '"a b c"')) == []
    # two steps away (lorem uses _pick, _pick uses _split) is reached; three steps are not
    chain = UTILS.replace("words.split()[:count]", "_split(words)[:count]") + (
        "\n\ndef _split(words):\n    return _tokens(words)\n"
        "\n\ndef _tokens(words):\n    return words.split()\n"
    )
    src = {"u.py": chain}
    assert (
        subject_unchanged(
            REQUEST,
            src,
            {"u.py": chain.replace("return _tokens(words)", "return _tokens(words or '')")},
        )
        == []
    )
    far = chain.replace("return words.split()", "return words.split(' ')")
    assert subject_unchanged(REQUEST, src, {"u.py": far})
    # module-level code that is not an import or a named assignment: not judged
    assert _problems(UTILS + "\nprint(other(1))\n") == []
    # requests that open with no single function of the files
    unrelated = UTILS.replace('return "missing"', 'return "<Missing>"')
    assert _problems(unrelated, "The words should be shorter") == []
    assert _problems(unrelated, "Rename lorem to ipsum") == []
    assert _problems(unrelated, "missing should be spelled out") == []


def test_improve_asks_again_for_the_named_function(tmp_path: Path, llm_server: LLMServer) -> None:
    repo = make_repo(
        tmp_path / "r",
        {
            "u.py": UTILS,
            "test_u.py": "from u import lorem\n\n\ndef test_lorem():\n"
            "    assert lorem(2) == 'a b'\n",
        },
    )
    wrong = (
        "u.py\n```python\nclass Missing:\n    def __repr__(self):\n"
        "        return '<Missing>'\n```\n"
    )
    right = (
        "u.py\n```python\ndef lorem(n=5, low=2, high=4):\n"
        '    """Some words."""\n'
        "    if low > high:\n"
        "        raise ValueError('low is greater than high')\n"
        '    return " ".join(_pick(WORDS, n))\n```\n'
    )
    llm_server.queue(wrong, right)
    done = run_gpte(
        "improve", REQUEST, "--json", "--edit-format", "definitions", "--no-probe",
        cwd=repo, env=self_hosted_env(llm_server), timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    asked = llm_server.requests[1].body["messages"][-1]["content"]
    assert "change to lorem, and lorem is as it was" in asked
    text = git(repo, "show", f"{json.loads(done.stdout)['branch']}:u.py")
    assert "raise ValueError" in text and 'return "missing"' in text
    corrected = json.loads(done.stdout)["corrected"]
    assert any("not to what the request is about" in line for line in corrected)
