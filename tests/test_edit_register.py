"""A new handler wired in where its family is registered (edit/register.py)."""

from __future__ import annotations

from git_gpte.edit.register import register_new_handlers

CLI = """\
import argparse


def build_parser():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("add", help="add an item")
    add.add_argument("name")
    sub.add_parser("list", help="list the items")
    sub.add_parser("clear-all", help="remove every item")
    return parser


def cmd_add(args):
    return 1


def cmd_list(args):
    return 2


def cmd_clear_all(args):
    return 3


COMMANDS = {
    "add": cmd_add,
    "list": cmd_list,
    "clear-all": cmd_clear_all,
}
"""
NEW = '''

def cmd_show_tags(args):
    """Print the tags."""
    return 4
'''


def _added(text: str) -> str:
    return text.replace("\n\nCOMMANDS", NEW + "\n\nCOMMANDS")


def test_the_new_handler_gets_its_entry_and_its_subcommand_keyed_as_its_family() -> None:
    repair = register_new_handlers(CLI, _added(CLI))
    assert repair is not None
    assert repair.text == _added(CLI).replace(
        '    "clear-all": cmd_clear_all,\n',
        '    "clear-all": cmd_clear_all,\n    "show-tags": cmd_show_tags,\n',
    ).replace(
        '    sub.add_parser("clear-all", help="remove every item")\n',
        '    sub.add_parser("clear-all", help="remove every item")\n'
        '    sub.add_parser("show-tags", help="Print the tags")\n',
    )
    assert repair.detail == (
        "registered what was written and never wired in: cmd_show_tags as 'show-tags' in "
        "COMMANDS, and sub.add_parser('show-tags') beside the others"
    )


def test_a_subcommand_the_answer_declared_itself_is_not_declared_again() -> None:
    declared = CLI.replace(
        "    return parser", '    sub.add_parser("show-tags")\n    return parser'
    )
    repair = register_new_handlers(declared, _added(declared))
    assert repair is not None
    assert repair.text.count('add_parser("show-tags"') == 1
    assert '"show-tags": cmd_show_tags,' in repair.text


def test_a_last_entry_without_its_comma_gets_one() -> None:
    bare = CLI.replace('"clear-all": cmd_clear_all,\n}', '"clear-all": cmd_clear_all  # last\n}')
    repair = register_new_handlers(bare, _added(bare))
    assert repair is not None
    assert '"clear-all": cmd_clear_all,  # last\n    "show-tags": cmd_show_tags,\n}' in repair.text


def test_tables_of_other_shapes_are_left_to_the_retry() -> None:
    # On one line, keyed by another rule, or the handler already referred to: nothing done.
    one_line = CLI.replace(
        '{\n    "add": cmd_add,\n    "list": cmd_list,\n    "clear-all": cmd_clear_all,\n}',
        '{"add": cmd_add, "list": cmd_list, "clear-all": cmd_clear_all}',
    )
    assert register_new_handlers(one_line, _added(one_line)) is None
    other = CLI.replace('"add": cmd_add', '"new": cmd_add')
    assert register_new_handlers(other, _added(other)) is None
    wired = _added(CLI).replace("    return 4", "    return 4\n\n\nALIASES = [cmd_show_tags]")
    assert register_new_handlers(CLI, wired) is None
    assert register_new_handlers(CLI, CLI) is None


def test_a_handler_defined_below_its_table_is_moved_above_it() -> None:
    # Placed after main(), below COMMANDS: the table is built on import, before it exists.
    after = CLI + NEW
    repair = register_new_handlers(CLI, after)
    assert repair is not None
    assert "(moved above COMMANDS)" in repair.detail
    assert repair.text.index("def cmd_show_tags") < repair.text.index("COMMANDS = {")
    assert repair.text.endswith('    "show-tags": cmd_show_tags,\n}\n')
    assert "return 3\n\n\ndef cmd_show_tags(args):" in repair.text
    compile(repair.text, "cli.py", "exec")
