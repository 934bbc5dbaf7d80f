"""A new parameter passed down to the fixed value it replaces (edit/passdown.py)."""

from __future__ import annotations

from git_gpte.edit.passdown import Asked, asked_parameter, chains, passed_down
from tests.helpers.prefixed_config import CONFIG as PREFIXED

# The module with a call written one argument a line, and a parameter with a default first.
CONFIG = PREFIXED.replace(
    "key = key_of(name)", "key = key_of(\n            name,\n        )"
).replace(
    "def load(environ):\n    return read_env(environ)",
    "def load(environ, strict=False):\n    return dict(read_env(environ))",
)
ASKED = Asked("prefix", "load", '"APP_"')


def test_what_the_request_asks_is_read_with_its_default() -> None:
    request = (
        'Add a parameter env_prefix to load_settings, defaulting to "APP_", and use it '
        "instead of the fixed prefix when reading the environment."
    )
    assert asked_parameter(request) == Asked("env_prefix", "load_settings", '"APP_"')
    inline = "Add an optional argument sep=';' to split_row, used instead of the comma."
    assert asked_parameter(inline) == Asked("sep", "split_row", "';'")
    assert asked_parameter("Add a parameter sep to split_row, used instead of ','") is None
    assert asked_parameter('Add a parameter sep to split_row, defaulting to ","') is None


def test_the_parameter_goes_on_each_function_down_to_the_default_it_replaces() -> None:
    [chain] = chains(CONFIG, ASKED)
    assert [node.name for node in chain.functions] == ["load", "read_env", "key_of"]
    assert chain.target == "prefix"
    text = passed_down(CONFIG, ASKED, chain)
    assert text is not None
    assert 'def load(environ, strict=False, prefix="APP_"):' in text
    assert "return dict(read_env(environ, prefix=prefix))" in text
    assert 'def read_env(environ, prefix="APP_"):' in text
    # A call written one argument a line gets one more line.
    assert "key = key_of(\n            name,\n            prefix=prefix,\n        )" in text
    compile(text, "config.py", "exec")


def test_no_chain_where_the_value_is_not_a_default_or_a_call_passes_it_already() -> None:
    assert chains(CONFIG, Asked("prefix", "load", '"ENV_"')) == []
    assert chains(CONFIG, Asked("prefix", "key_of", '"APP_"')) == []  # already a parameter
    passing = CONFIG.replace("key_of(\n            name,\n        )", "key_of(name, PREFIX)")
    [chain] = chains(passing, ASKED)
    assert passed_down(passing, ASKED, chain) is None
