"""JavaScript functions defined by assignment (CommonJS: ``res.send = function send() {}``) are
definitions of their own: chunks named for them, found by a request that names them."""

from __future__ import annotations

from pathlib import Path

from git_gpte.context.parse import parse_file
from tests.helpers.context_cli import excerpt_spans
from tests.helpers.gitrepo import make_repo

COMMONJS = """\
var res = module.exports = {};

exports.parse = (text) => text.split('&');

/**
 * Send a response.
 */
res.send = function send(body) {
  this.body = body;
  return this;
};

Router.prototype.route = async function(path) {
  return this.stack[path];
};

res.locals = {};

module.exports.createApp = function createApp() {
  return {};
};
"""


def test_assigned_functions_are_definitions_named_by_their_property() -> None:
    record = parse_file("lib/response.js", COMMONJS)
    named = {c.name: (c.start, c.end) for c in record.chunks if c.kind == "function"}
    assert named["parse"] == (3, 3)
    assert named["send"][0] <= 5 and named["send"][1] == 11  # with the comment above it
    assert named["route"][0] <= 13 and named["route"][1] == 15
    assert named["createApp"][0] <= 19 and named["createApp"][1] == 21
    assert "locals" not in named  # an object, not a function


def test_a_module_exported_whole_is_no_definition() -> None:
    # ``module.exports = function xhrAdapter(config) { return new Promise(...) }`` wraps the
    # whole module in one statement: as a definition, no excerpt of it could be cut.
    text = "module.exports = function createServer(opts) {\n  return opts;\n};\n"
    record = parse_file("index.js", text)
    assert [c.name for c in record.chunks if c.kind == "function"] == []


def test_a_doc_comment_set_apart_by_a_blank_line_goes_with_its_function() -> None:
    doc = "".join(f" * Line {i} of how engines are registered.\n" for i in range(30))
    text = (
        "var cache = {};\n\nfunction first() {\n  return 1;\n}\n\n"
        f"/**\n{doc} */\n\nfunction register(ext, engine) {{\n  cache[ext] = engine;\n}}\n"
    )
    record = parse_file("lib/view.js", text)
    register = next(c for c in record.chunks if c.name == "register")
    assert register.start <= 7 and register.end == 7 + 30 + 1 + 1 + 3


def _method(name: str, i: int) -> str:
    body = "".join(f"  this.set('X-Step-{i}-{k}', String(value + {k}));\n" for k in range(6))
    return f"res.{name} = function {name}(value) {{\n{body}  return this;\n}};\n"


def test_the_cli_sends_the_assigned_function_the_request_names(tmp_path: Path) -> None:
    names = [f"step{i}" for i in range(30)]
    names[17] = "redirect"
    text = "var res = module.exports = {};\n\n" + "\n".join(
        _method(name, i) for i, name in enumerate(names)
    )
    root = make_repo(tmp_path / "r", {"lib/response.js": text})
    lines = text.split("\n")
    start = lines.index("res.redirect = function redirect(value) {") + 1
    spans = excerpt_spans(root, "res.redirect() should keep the status the caller set", 200)
    assert any(s <= start and start + 8 <= e for s, e in spans), spans  # all of redirect
