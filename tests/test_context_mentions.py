"""A dotted name in a request names a module only when few files have that module's name."""

from __future__ import annotations

import json
from pathlib import Path

from git_gpte.context.rank_signals import unambiguous_mentions
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo

EXAMPLES = [f"examples/{name}/app.js" for name in ("auth", "blog", "cache", "forms", "mvc")]


def test_a_dotted_name_many_files_have_names_none() -> None:
    paths = [*EXAMPLES, "lib/server.js", "shop/cart.py", "docs/app.md"]
    mentions = ("app.register", "shop.cart", "server.js", "cart.", "lib/server.js")
    # app.register would name five app.js files: a call on an object, not a module
    assert unambiguous_mentions(mentions, paths) == mentions[1:]
    assert unambiguous_mentions(("app.register",), EXAMPLES[2:]) == ("app.register",)  # three


def test_a_method_call_on_app_does_not_send_every_apps_file_first(tmp_path: Path) -> None:
    # Seen on express: "Added app.register() support for omitting leading ".""; every
    # example's app.js calls app.register() and was taken for the module the request named,
    # so the examples went first and the view module the commit changed was not sent at 4k.
    example = "".join(
        f"app.get('/page{n}', function (req, res) {{\n  res.render('page{n}', {{ n: {n} }})\n}})\n"
        for n in range(40)
    )
    server = "".join(
        f"// the app's handler {n}\nServer.prototype.handle{n} = function (req, res) {{\n"
        f"  return this.route(req, {n})\n}}\n"
        for n in range(30)
    )
    server += (
        "Server.prototype.register = function (ext, engine) {\n"
        "  this.engines[ext] = engine\n  return this\n}\n"
    )
    files = {path: "app.register('.html', html)\n" + example for path in EXAMPLES}
    files["lib/server.js"] = server
    repo = make_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    done = run_gpte(
        "context", "--json", "--tokens", "4000",
        'Added app.register() support for omitting leading "."', cwd=repo,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    picks = [p["path"] for p in json.loads(done.stdout)["picks"]]
    assert picks[0] == "lib/server.js", picks
