"""Context selection on small real repositories: ranking, packing, the index, the CLI."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from git_gpte.context import pick_segments, select
from git_gpte.context.index import Candidate, ensure_indexed, list_candidates
from git_gpte.context.links import resolve_import, suffix_table
from git_gpte.context.pack import pack
from git_gpte.context.parse import parse_file
from git_gpte.context.rank import ChunkScore, FileScore, Ranking, analyse_request, rank
from git_gpte.context.store import FILENAME, IndexStore
from git_gpte.context.tokens import count_pieces, estimate_tokens, token_mode
from git_gpte.git import Repository
from tests.conftest import run_gpte
from tests.helpers.gitrepo import commit_all, git, make_repo, write_files
from tests.helpers.shop_repo import PY_FILES

JS_FILES = {
    "src/router.js": (
        "import { parseQuery } from './query.js';\n\n"
        "export class Router {\n"
        "  constructor() { this.routes = []; }\n"
        "  addRoute(path, handler) { this.routes.push({ path, handler }); }\n"
        "  match(url) {\n"
        "    const [path, qs] = url.split('?');\n"
        "    const route = this.routes.find((r) => r.path === path);\n"
        "    return route ? route.handler(parseQuery(qs)) : null;\n"
        "  }\n"
        "}\n"
    ),
    "src/query.js": (
        "export function parseQuery(qs) {\n"
        "  const out = {};\n"
        "  for (const part of (qs || '').split('&')) {\n"
        "    const [k, v] = part.split('=');\n"
        "    if (k) out[decodeURIComponent(k)] = decodeURIComponent(v || '');\n"
        "  }\n"
        "  return out;\n"
        "}\n"
    ),
    "src/logger.js": "export const log = (msg) => console.log(`[app] ${msg}`);\n",
}

GO_FILES = {
    "go.mod": "module example.com/store\n\ngo 1.21\n",
    "inventory/stock.go": (
        "package inventory\n\n"
        "// Stock counts items on hand.\n"
        "type Stock struct {\n\tcounts map[string]int\n}\n\n"
        "// Reserve takes n items of sku out of stock.\n"
        "func (s *Stock) Reserve(sku string, n int) error {\n"
        "\tif s.counts[sku] < n {\n\t\treturn ErrOutOfStock\n\t}\n"
        "\ts.counts[sku] -= n\n\treturn nil\n}\n"
    ),
    "inventory/errors.go": (
        'package inventory\n\nimport "errors"\n\nvar ErrOutOfStock = errors.New("out of stock")\n'
    ),
    "billing/invoice.go": (
        "package billing\n\n"
        "func InvoiceTotal(lines []int) int {\n\tt := 0\n"
        "\tfor _, l := range lines {\n\t\tt += l\n\t}\n\treturn t\n}\n"
    ),
}


def _repo(tmp_path: Path, files: dict[str, str | bytes]) -> Repository:
    root = make_repo(tmp_path / "r", files)
    return Repository.discover(root)


def rank_request(repo: Repository, request: str) -> dict[str, list[str]]:
    """Every candidate's reasons for ``request`` at HEAD."""
    commit = repo.resolve_commit("HEAD")
    files = list_candidates(repo, commit).files
    store = IndexStore(repo.state_dir())
    try:
        ensure_indexed(repo, store, files)
        return {f.cand.path: list(f.reasons) for f in rank(store, files, request).files}
    finally:
        store.close()


def _paths(sel: object) -> list[str]:
    return [p.path for p in sel.picks]  # type: ignore[attr-defined]


def test_python_ranking_finds_the_file_and_follows_links(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    head = repo.resolve_commit("HEAD")
    sel = select(repo, head, "the discount code should be case-insensitive", 4000)
    assert _paths(sel)[0] == "shop/pricing.py"
    top = sel.picks[0]
    assert any("discount" in r for r in top.reasons)
    # the cart uses apply_discount: linked, so it is ranked too
    assert "shop/cart.py" in _paths(sel)
    assert sel.skipped["logo.png"] == "binary or not UTF-8"
    assert "secret" in sel.skipped[".env"]


def test_identifier_named_in_the_request_lifts_its_definition(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "shipping_cost is wrong for 0 kg", 4000)
    assert _paths(sel)[0] == "shop/shipping.py"
    assert any("defines shipping_cost" in r for r in sel.picks[0].reasons)


def test_javascript_ranking_and_import_links(tmp_path: Path) -> None:
    repo = _repo(tmp_path, JS_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "query parameters with a plus sign", 4000)
    assert _paths(sel)[0] == "src/query.js"
    record = parse_file("src/router.js", JS_FILES["src/router.js"])  # type: ignore[arg-type]
    assert record.imports == ["./query.js"]
    assert ("Router", 1) in record.defs


def test_go_ranking_by_identifier(tmp_path: Path) -> None:
    repo = _repo(tmp_path, GO_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "Reserve must not go below zero stock", 4000)
    assert _paths(sel)[0] == "inventory/stock.go"
    record = parse_file("inventory/stock.go", GO_FILES["inventory/stock.go"])  # type: ignore[arg-type]
    names = [c.name for c in record.chunks]
    assert "Stock" in names and "Reserve" in names


def test_go_imports_link_the_package_directory_not_the_standard_library() -> None:
    files = {
        **GO_FILES,
        "cmd/shop/main.go": (
            'package main\n\nimport (\n\t"fmt"\n\t"example.com/store/inventory"\n)\n\n'
            "func main() {\n\tfmt.Println(inventory.Stock{})\n}\n"
        ),
        "inventory/stock_test.go": "package inventory\n",
    }
    record = parse_file("cmd/shop/main.go", files["cmd/shop/main.go"])
    assert record.imports == ["fmt", "example.com/store/inventory"]
    by_suffix = suffix_table(sorted(files))
    assert resolve_import("cmd/shop/main.go", "fmt", "go", by_suffix) == []
    assert resolve_import("cmd/shop/main.go", "example.com/store/inventory", "go", by_suffix) == [
        "inventory/errors.go",
        "inventory/stock.go",
    ]


def test_a_language_is_one_row_of_the_table_imports_included(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A language added to the table (and nowhere else) is chunked and its imports link."""
    from git_gpte.context import languages

    def resolve(importer: str, target: str, by_suffix: languages.Suffixes) -> list[str]:
        return list(by_suffix.get(target + ".lua", []))

    spec = languages.LanguageSpec(
        "lua",
        {},
        frozenset(),
        imports=(re.compile(r"require\(?\s*['\"]([\w/]+)['\"]"),),
        resolve=resolve,
    )
    monkeypatch.setitem(languages.SPECS, "lua", spec)
    monkeypatch.setitem(languages.EXTENSIONS, ".lua", "lua")
    record = parse_file("app/main.lua", 'local util = require("lib/util")\n')
    assert record.lang == "lua" and record.imports == ["lib/util"]
    by_suffix = suffix_table(["app/main.lua", "lib/util.lua"])
    assert resolve_import("app/main.lua", "lib/util", "lua", by_suffix) == ["lib/util.lua"]


def test_chunks_partition_the_file_and_never_split_a_definition() -> None:
    text = PY_FILES["shop/cart.py"]
    assert isinstance(text, str)
    record = parse_file("shop/cart.py", text)
    starts = [c.start for c in record.chunks]
    ends = [c.end for c in record.chunks]
    assert starts[0] == 1 and ends[-1] == record.lines
    assert all(s == e + 1 for s, e in zip(starts[1:], ends[:-1], strict=True))
    assert record.chunks[0].kind == "header"
    assert "decimal" in "\n".join(text.split("\n")[: record.chunks[0].end])


def _compat_module() -> str:
    body = "".join(f"        value = value * {i}\n" for i in range(30))
    return (
        "import sys\n\nPY2 = sys.version_info[0] == 2\n\n"
        "if PY2:\n"
        "    def to_text(value):\n        return value.decode('utf-8')\n\n"
        f"    def scale(value):\n{body}        return value\n"
        "else:\n"
        "    def to_text(value):\n        return str(value)\n\n"
        "    def open_stream(name):\n        return open(name, 'rb')\n\n\n"
        "def after():\n    return None\n"
    )


def test_a_long_statement_holding_definitions_is_chunked_by_them() -> None:
    text = _compat_module()
    record = parse_file("compat.py", text)
    lines = text.split("\n")
    by_name = {c.name: c for c in record.chunks if c.name}
    assert {"to_text", "scale", "open_stream", "after"} <= set(by_name)
    block = record.chunks[by_name["scale"].parent or 0]
    assert block.kind == "block" and block.signature == "if PY2:"
    opener = lines.index("    def open_stream(name):") + 1
    assert by_name["open_stream"].start <= opener <= by_name["open_stream"].end
    starts = [c.start for c in record.chunks]
    ends = [c.end for c in record.chunks]
    assert all(s == e + 1 for s, e in zip(starts[1:], ends[:-1], strict=True))
    # the same in C: functions inside #ifdef
    c_body = "".join(f"    x += {i};\n" for i in range(40))
    c_text = (
        "#include <stdio.h>\n\n#ifdef _WIN32\n"
        f"static int win_width(void) {{\n    int x = 0;\n{c_body}    return x;\n}}\n\n"
        "static int win_height(void) {\n    return 24;\n}\n#endif\n"
    )
    c_names = {c.name for c in parse_file("term.c", c_text).chunks}
    assert {"win_width", "win_height"} <= c_names


def _long_method_module() -> str:
    """A class whose ``load`` runs to 130 lines; ``retry_limit`` is set deep inside it."""
    steps = "".join(
        f"        step_{i} = source.read({i})\n"
        f"        if step_{i}:\n            seen.append(step_{i})\n"
        for i in range(40)
    )
    return (
        'import json\n\n\nclass Loader:\n    """Reads settings."""\n\n'
        "    def __init__(self):\n        self.seen = []\n\n"
        '    def load(self, source):\n        """Every step of loading."""\n'
        "        seen = self.seen\n"
        f"{steps}        retry_limit = 3\n        seen.append(retry_limit)\n{steps}"
        "        return json.dumps(seen)\n"
    )


def test_a_long_method_is_cut_into_parts_under_its_signature() -> None:
    text = _long_method_module()
    record = parse_file("loader.py", text)
    starts = [c.start for c in record.chunks]
    ends = [c.end for c in record.chunks]
    assert starts[0] == 1 and ends[-1] == record.lines
    assert all(s == e + 1 for s, e in zip(starts[1:], ends[:-1], strict=True))
    head_index = next(i for i, c in enumerate(record.chunks) if c.name == "Loader.load")
    head = record.chunks[head_index]
    parts = [c for c in record.chunks if c.kind == "part"]
    assert len(parts) >= 3 and all(c.parent == head_index for c in parts)
    assert all(c.end - c.start < 60 and not c.name for c in parts)
    # the class's header is the head's parent; the name stays with the head
    assert record.chunks[head.parent or 0].name == "Loader"
    assert dict(record.defs)["load"] == head_index
    # short definitions stay whole
    assert next(c for c in record.chunks if c.name == "Loader.__init__").kind == "method"


def test_a_change_deep_in_a_long_method_is_sent_as_its_part(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"app/loader.py": _long_method_module(), **PY_FILES})
    lines = _long_method_module().split("\n")
    target = lines.index("        retry_limit = 3") + 1
    res = run_gpte(
        "context",
        "raise retry_limit to 5",
        "--format",
        "lines",
        "--tokens",
        "500",
        cwd=repo.root,
    )
    assert res.returncode == 0, res.stderr
    spans = [
        (int(a), int(b))
        for path, a, b in re.findall(r"^(\S+?):(\d+)-(\d+)$", res.stdout, re.M)
        if path == "app/loader.py"
    ]
    assert any(a <= target <= b for a, b in spans), res.stdout
    sent = {n for a, b in spans for n in range(a, b + 1)}
    # with the method's and the class's first lines, not the whole 250-line method
    assert lines.index("    def load(self, source):") + 1 in sent
    assert lines.index("class Loader:") + 1 in sent
    assert len(sent) < 120


def test_locate_gives_a_long_function_all_its_parts(tmp_path: Path) -> None:
    from git_gpte.context import locate

    repo = _repo(tmp_path, {"app/loader.py": _long_method_module()})
    (hit,) = locate(repo, repo.resolve_commit("HEAD"), ["Loader.load"])["Loader.load"]
    lines = _long_method_module().split("\n")
    assert hit.start <= lines.index("    def load(self, source):") + 1
    assert hit.end == len(lines) - 1  # the last line of its last part


def test_best_definitions_are_the_functions_matching_the_request_best(tmp_path: Path) -> None:
    from git_gpte.context import best_definitions

    module = (
        "class Renderer:\n    def render_list(self, items, start):\n"
        "        return '<ol>' + ''.join(items) + '</ol>'\n\n"
        "    def render_heading(self, text):\n        return '<h1>' + text + '</h1>'\n\n\n"
        "def parse(text):\n    return text.splitlines()\n"
    )
    repo = _repo(tmp_path, {"mark.py": module, "other.py": "def ordered_list_start():\n    pass\n"})
    commit = repo.resolve_commit("HEAD")
    request = "an ordered list that starts at 3 should render with its start number"
    found = best_definitions(repo, commit, request, ["mark.py"], limit=5)
    assert [p.name for p in found][:1] == ["Renderer"]  # a small class is one chunk
    assert all(p.path == "mark.py" for p in found)  # the pathspec narrows
    assert "parse" not in [p.name for p in found]  # matches nothing of the request
    assert len(best_definitions(repo, commit, request, limit=1)) == 1


def test_definitions_nested_deeper_in_a_compat_block_are_chunks_of_their_own() -> None:
    # if WIN: / try: import colorama / except ImportError: pass / else: def ... (click's _compat)
    filler = "".join(f"            value_{i} = {i}\n" for i in range(30))
    text = (
        "import sys\n\nWIN = sys.platform == 'win32'\n\n\nif WIN:\n"
        "    def argv_encoding():\n        return 'mbcs'\n\n"
        "    try:\n        import colorama\n    except ImportError:\n        pass\n    else:\n"
        f"        def wrap_stream(stream):\n{filler}            return stream\n\n"
        "        def winterm_size():\n            return 80, 24\n"
        "else:\n    def argv_encoding():\n        return 'utf-8'\n"
    )
    record = parse_file("compat.py", text)
    lines = text.split("\n")
    size = next(c for c in record.chunks if c.name == "winterm_size")
    assert lines[size.start - 1 : size.end][0].strip() in ("", "def winterm_size():")
    assert size.end - size.start <= 3
    other = [c for c in record.chunks if c.name == "argv_encoding"]
    assert len(other) == 2 and all(c.end - c.start <= 4 for c in other)


def test_an_edit_inside_a_compat_block_costs_one_function(tmp_path: Path) -> None:
    repo = _repo(tmp_path, {"pkg/compat.py": _compat_module(), **PY_FILES})
    sel = select(repo, repo.resolve_commit("HEAD"), "open_stream should open text", 150)
    pick = next(p for p in sel.picks if p.path == "pkg/compat.py")
    assert not pick.whole
    opener = _compat_module().split("\n").index("    def open_stream(name):") + 1
    assert any(r.start <= opener <= r.end for r in pick.ranges)


def test_o200k_budgets_count_pieces_not_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Words with their space, digits, punctuation runs, line breaks: about one token each.
    assert count_pieces("    return value + 10\n") == 7
    assert count_pieces("a" * 20) == 3  # a long run costs once per eight characters
    # CJK and emoji run nearly a token per character; Cyrillic words stay a piece each.
    assert count_pieces("# 计算用户的折扣") >= 8
    assert count_pieces("✨ fix") == 3
    assert count_pieces("Привет мир") == 2
    # A line of 400 characters or more is data or minified code: counted by its bytes too.
    base64 = "sourceMappingURL=data:application/json;base64," + "eyJ2ZXJzaW9uIjozLCJzb3" * 40
    assert count_pieces(base64) >= 0.7 * len(base64)
    assert count_pieces("x = 1\n" + base64 + "\n") >= count_pieces(base64) + 4
    # Two files of the same size: indented code and a dense table. Bytes say they cost the
    # same; in o200k the table costs more, and the estimate says so.
    sparse = "".join(f"def f{i}(value):\n        return value\n\n\n" for i in range(40))
    dense = "".join(f"T{i}=[{','.join(str(n) for n in range(i, i + 9))}]\n" for i in range(80))
    dense = dense[: len(sparse)]
    monkeypatch.setenv("GPTE_CONTEXT_TOKENIZER", "o200k")
    token_mode.cache_clear()
    try:
        costs = {}
        for name, text in (("sparse.py", sparse), ("dense.py", dense)):
            record = parse_file(name, text)
            assert record.pieces == count_pieces(text)
            assert sum(c.pieces for c in record.chunks) >= record.pieces - len(record.chunks)
            costs[name] = estimate_tokens(record.nbytes, record.pieces)
        assert costs["dense.py"] > 1.5 * costs["sparse.py"]
        assert estimate_tokens(len(sparse)) == estimate_tokens(len(dense))
        # A piece of TypeScript is more of a token than a piece of Python.
        assert estimate_tokens(0, 1000, "typescript") > estimate_tokens(0, 1000, "python")
    finally:
        token_mode.cache_clear()


def test_packing_leaves_a_slack_that_shrinks_as_the_budget_grows(tmp_path: Path) -> None:
    from git_gpte.context.pack import _slack

    # Estimates run a few percent under the real count for some files: a small budget packed
    # to the last token went over it; a large one evens the errors out.
    assert [_slack(b) for b in (2048, 4096, 8192, 16384, 32768)] == [40, 81, 40, 20, 10]
    files = {f"pkg/m{i}.py": f"def discount_{i}(a):\n    return a * {i}\n" * 20 for i in range(60)}
    root = make_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    repo = Repository.discover(root)
    sel = select(repo, repo.resolve_commit("HEAD"), "discount", 4096, map_share=0.0)
    assert 0 < sum(p.tokens for p in sel.picks) <= 4096 - 81


def test_small_budget_sends_excerpts_with_the_file_line_numbers(tmp_path: Path) -> None:
    body = "".join(f"def helper_{i}(x):\n    return x + {i}\n\n\n" for i in range(60))
    body += "def parse_header_links(value):\n    return value.split(',')\n"
    repo = _repo(tmp_path, {"pkg/util.py": "import re\n\n\n" + body})
    sel = select(repo, repo.resolve_commit("HEAD"), "parse_header_links drops spaces", 200)
    pick = sel.picks[0]
    assert not pick.whole and pick.tokens <= 200
    segments = pick_segments(repo, pick)
    text = "\n".join(s.text for s in segments)
    assert "def parse_header_links" in text and "helper_30" not in text
    lines = (tmp_path / "r" / "pkg/util.py").read_text().split("\n")
    for seg in segments:
        assert seg.text.split("\n")[0] == lines[seg.start - 1]


def test_incremental_index_reparses_only_changed_blobs(tmp_path: Path) -> None:
    files = {f"mod{i}.py": f"def f{i}():\n    return {i}\n" for i in range(10)}
    root = make_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    repo = Repository.discover(root)
    store = IndexStore(repo.state_dir())
    first = list_candidates(repo, repo.resolve_commit("HEAD")).files
    assert ensure_indexed(repo, store, first) == 10
    write_files(root, {"mod1.py": "X = 1\n", "mod2.py": "Y = 2\n", "new.py": "Z = 3\n"})
    commit_all(root, "three files")
    second = list_candidates(repo, repo.resolve_commit("HEAD")).files
    assert ensure_indexed(repo, store, second) == 3
    assert ensure_indexed(repo, store, second) == 0
    store.close()


def test_corrupt_or_foreign_index_is_rebuilt(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    head = repo.resolve_commit("HEAD")
    path = repo.state_dir() / FILENAME
    path.write_bytes(b"this is not a database" * 100)
    sel = select(repo, head, "discount", 4000)
    assert _paths(sel)[0] == "shop/pricing.py"
    conn = sqlite3.connect(path)
    conn.execute("UPDATE meta SET value = 'foreign' WHERE key = 'schema'")
    conn.commit()
    conn.close()
    assert _paths(select(repo, head, "discount", 4000))[0] == "shop/pricing.py"


def test_damaged_rows_are_indexed_again_through_the_cli(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    first = run_gpte("context", "discount", "--format", "lines", cwd=repo.root)
    assert first.returncode == 0, first.stderr
    conn = sqlite3.connect(repo.state_dir() / FILENAME)
    conn.execute("UPDATE blobs SET data = x'00112233'")
    conn.commit()
    conn.close()
    again = run_gpte("context", "discount", "--format", "lines", cwd=repo.root)
    assert again.returncode == 0, again.stderr
    assert again.stdout == first.stdout and "shop/pricing.py" in again.stdout


def test_a_locked_index_is_waited_for_and_kept(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    assert run_gpte("context", "discount", cwd=repo.root).returncode == 0
    write_files(repo.root, {"shop/new.py": "def fresh():\n    return 1\n"})
    commit_all(repo.root, "a new file to index")
    holder = sqlite3.connect(
        repo.state_dir() / FILENAME, isolation_level=None, check_same_thread=False
    )
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO meta VALUES ('holder', 'was here')")
    # The lock is given up once the run says it waits (a fixed delay lost the race on a loaded
    # machine: the run started after the lock was gone).
    proc = subprocess.Popen(
        ["git", "gpte", "context", "fresh discount", "--format", "lines"],
        cwd=repo.root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    said = proc.stderr.readline()
    holder.execute("COMMIT")
    out, rest = proc.communicate(timeout=120)
    assert proc.returncode == 0, said + rest
    assert "waiting for another git-gpte run" in said
    kept = holder.execute("SELECT value FROM meta WHERE key = 'holder'").fetchone()
    assert kept == ("was here",)  # the other process's index was waited for, not discarded
    assert "shop/new.py" in out
    holder.close()


def test_concurrent_runs_share_the_index(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": f"def func_{i}(a):\n    return a * {i}\n" for i in range(150)}
    root = make_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    code = (
        "import sys\n"
        "from git_gpte.context import select\n"
        "from git_gpte.git import Repository\n"
        "r = Repository.discover(sys.argv[1])\n"
        "s = select(r, r.resolve_commit('HEAD'), 'func_7 multiplies', 2000)\n"
        "print(s.picks[0].path)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", code, str(root)], stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    outs = [p.communicate(timeout=120)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0]
    assert outs == ["pkg/m7.py"] * 4


def test_cli_lines_json_and_pathspecs(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    git(root, "checkout", "-q", "--detach")
    query = tmp_path / "q.txt"
    query.write_text("the discount code should be case-insensitive")
    res = run_gpte("context", "--format", "lines", "--tokens", "3000", "-f", str(query), cwd=root)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.split()
    assert lines[0].split(":")[0] == "shop/pricing.py"
    for line in lines:
        path, _, span = line.partition(":")
        assert (root / path).is_file()
        if span:
            start, end = map(int, span.split("-"))
            assert 1 <= start <= end
    res = run_gpte("context", "--json", "discount", "shop/cart.py", cwd=root)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert [p["path"] for p in data["picks"]] == ["shop/cart.py"]
    assert data["picks"][0]["reasons"]
    res = run_gpte("context", "discount", cwd=root / "shop")
    assert res.returncode == 0 and "shop/pricing.py" in res.stdout and "left out" in res.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "no request given"),
        (("--json", "--format", "lines", "x"), "cannot be combined"),
        (("x", "nosuch/path.py"), "did not match any tracked file"),
        (("-f", "/nonexistent/q.txt"), "cannot read the prompt file"),
        (("--tokens", "0", "x"), "--tokens"),
        (("   ",), "the request is empty"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path: Path, args: tuple[str, ...], message: str) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    res = run_gpte("context", *args, cwd=root)
    assert res.returncode == 2
    assert message in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_cli_outside_a_repository(tmp_path: Path) -> None:
    res = run_gpte("context", "x", cwd=tmp_path)
    assert res.returncode == 3 and "not a git repository" in res.stderr


def test_budget_from_git_config(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    git(root, "config", "gpte.contextTokens", "50")
    res = run_gpte("context", "--json", "discount", cwd=root)
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["budget"] == 50 and data["tokens"] <= 50


def test_budget_from_the_environment_wins_over_git_config(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    git(root, "config", "gpte.contextTokens", "5000")
    res = run_gpte("context", "--json", "discount", cwd=root, env={"GPTE_CONTEXT_TOKENS": "40"})
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["budget"] == 40
    res = run_gpte(
        "context",
        "--json",
        "--tokens",
        "60",
        "discount",
        cwd=root,
        env={"GPTE_CONTEXT_TOKENS": "40"},
    )
    assert json.loads(res.stdout)["budget"] == 60


def test_select_stays_the_function_after_use(tmp_path: Path) -> None:
    import git_gpte.context as context

    repo = _repo(tmp_path, PY_FILES)
    context.select(repo, repo.resolve_commit("HEAD"), "discount", 1000)
    assert callable(context.select)
    assert context.format_lines(context.select(repo, repo.resolve_commit("HEAD"), "x", 10)) == []


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        (
            "src/lib.rs",
            "use std::fmt;\n\npub struct Point { x: i32 }\n\nimpl Point {\n"
            "    pub fn norm(&self) -> i32 { self.x.abs() }\n}\n\nfn main() {}\n",
            {"Point", "main"},
        ),
        (
            "App.java",
            "package a;\nimport java.util.List;\n\npublic class App {\n  void run() {}\n}\n",
            {"App"},
        ),
        (
            "util.c",
            '#include "util.h"\n\nstatic int clamp(int v) {\n  return v < 0 ? 0 : v;\n}\n',
            {"clamp"},
        ),
        (
            "lib/shop.rb",
            "require 'json'\n\nmodule Shop\n  class Cart\n    def total\n      0\n    end\n"
            "  end\nend\n",
            {"Shop"},
        ),
        (
            "web/api.ts",
            "import { x } from './x';\n\nexport interface Opts { a: number }\n\n"
            "export function fetchAll(o: Opts): number {\n  return o.a;\n}\n",
            {"Opts", "fetchAll"},
        ),
    ],
)
def test_definitions_in_other_languages(path: str, source: str, expected: set[str]) -> None:
    record = parse_file(path, source)
    assert record.lang is not None
    assert expected <= {name for name, _ in record.defs}
    assert record.chunks[0].start == 1 and record.chunks[-1].end == record.lines
    assert record.imports


def test_a_file_named_by_a_word_of_the_request_is_lifted_whatever_its_ending(
    tmp_path: Path,
) -> None:
    # "policy" names policies.py (the stemmer's -ies -> -y), query_builder.py is named by its
    # identifier; the quick pre-check on names must lose neither.
    files = {
        "app/policies.py": "def check(user):\n    return user.admin\n",
        "app/query_builder.py": "def build(parts):\n    return ' '.join(parts)\n",
        **PY_FILES,
    }
    repo = _repo(tmp_path, files)
    ranking = rank_request(repo, "the policy check lets everyone in")
    assert any("its name is in the request" in r for r in ranking["app/policies.py"])
    ranking = rank_request(repo, "query_builder drops the last part")
    assert any("its name is in the request" in r for r in ranking["app/query_builder.py"])
    ranking = rank_request(repo, "the query drops the last part")
    assert not any("its name is in the request" in r for r in ranking["app/query_builder.py"])


def test_text_files_get_paragraph_chunks() -> None:
    text = "\n".join(f"line {i}" + ("\n" if i % 25 == 0 else "") for i in range(200)) + "\n"
    record = parse_file("notes/design.txt", text)
    assert record.lang is None and len(record.chunks) > 2
    assert all(c.end - c.start < 80 for c in record.chunks)


def test_gpteignore_and_size_rules_apply_before_indexing(tmp_path: Path) -> None:
    files = dict(PY_FILES)
    files[".gpteignore"] = "vendor/\n"
    files["vendor/discount_lib.py"] = "def discount():\n    return 'discount discount'\n"
    files["data/discounts.csv"] = "discount," * 40_000
    root = make_repo(tmp_path / "r", files)
    repo = Repository.discover(root)
    sel = select(repo, repo.resolve_commit("HEAD"), "discount", 8000)
    assert sel.skipped["vendor/discount_lib.py"] == "excluded by .gpteignore"
    assert "limit" in sel.skipped["data/discounts.csv"]
    assert "vendor/discount_lib.py" not in _paths(sel)
    conn = sqlite3.connect(repo.state_dir() / FILENAME)
    indexed = conn.execute("SELECT count(*) FROM blobs").fetchone()[0]
    conn.close()
    candidates = list_candidates(repo, repo.resolve_commit("HEAD")).files
    assert indexed == len(candidates)  # nothing left out was read into the index


def test_the_listing_of_a_tree_is_kept_and_follows_the_ignore_file(tmp_path: Path) -> None:
    from git_gpte.context.index import eligible_entries
    from git_gpte.context.listing_cache import DIRECTORY

    files = dict(PY_FILES)
    files["vendor/discount_lib.py"] = "def discount():\n    return 1\n"
    root = make_repo(tmp_path / "r", files)
    repo = Repository.discover(root)
    head = repo.resolve_commit("HEAD")
    first = eligible_entries(repo, head)
    kept = list((repo.state_dir() / DIRECTORY).glob("*.pickle"))
    assert len(kept) == 1
    again = eligible_entries(repo, head)
    assert again == first and again is not first
    # The work tree's ignore file counts for HEAD: a new listing, not the kept one.
    (root / ".gpteignore").write_text("vendor/\n")
    ignored = eligible_entries(repo, head)
    assert ignored.skipped["vendor/discount_lib.py"] == "excluded by .gpteignore"
    assert len(list((repo.state_dir() / DIRECTORY).glob("*.pickle"))) == 2
    # A damaged file is computed again, and written again.
    (root / ".gpteignore").unlink()
    kept[0].write_bytes(b"not a pickle")
    assert eligible_entries(repo, head) == first
    assert eligible_entries(repo, head) == first
    # Different limits, a different listing.
    small = eligible_entries(repo, head, max_bytes=10, index_max=10)
    assert "shop/cart.py" in small.skipped


def test_lock_files_and_logs_get_nothing_unless_the_request_names_them(tmp_path: Path) -> None:
    files = dict(PY_FILES)
    lock = "".join(f"discount-{n}@1.0.{n}: integrity sha512-{'Ab9' * 20}\n" for n in range(300))
    files["yarn.lock"] = lock
    files["build.log"] = "discount applied\n" * 200
    root = make_repo(tmp_path / "r", files)
    repo = Repository.discover(root)
    head = repo.resolve_commit("HEAD")
    sel = select(repo, head, "discount", 16000)
    assert "yarn.lock" not in _paths(sel) and "build.log" not in _paths(sel)
    assert "yarn.lock" in _paths(select(repo, head, "update the discount in yarn.lock", 16000))


def test_cold_build_reports_progress_in_one_line_without_a_terminal(tmp_path: Path) -> None:
    files = {f"pkg/m{i}.py": f"def func_{i}(a):\n    return a * {i}\n" * 30 for i in range(400)}
    root = make_repo(tmp_path / "r", files)  # type: ignore[arg-type]
    res = run_gpte("context", "func_7", env={"CI": "true"}, cwd=root)
    assert res.returncode == 0, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if "indexing" in ln]
    assert len(lines) <= 1  # only shown when the build takes over a second, then once
    res = run_gpte("-q", "context", "func_7", cwd=root)
    assert res.returncode == 0 and res.stderr == ""


def test_a_path_named_in_the_request_comes_first(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "tidy up shop/shipping.py please", 4000)
    assert _paths(sel)[0] == "shop/shipping.py"
    assert any("named in the request" in r for r in sel.picks[0].reasons)


def test_a_link_in_the_request_names_no_file() -> None:
    query = analyse_request(
        "use shutil.get_terminal_size, see https://docs.python.org/3/library/shutil.html "
        "and www.example.com/setup.py; the change goes in shop/cart.py"
    )
    assert set(query.path_mentions) == {"shutil.get_terminal_size", "shop/cart.py", "cart.py"}
    assert "shutil" in query.terms  # the link's words still count


def test_a_quoted_word_naming_a_module_comes_first(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "add type hints in `shipping`", 4000)
    assert _paths(sel)[0] == "shop/shipping.py"
    assert "named in the request (shipping)" in sel.picks[0].reasons
    # unquoted, the same word is only a word
    plain = select(repo, repo.resolve_commit("HEAD"), "add type hints in shipping", 4000)
    assert not any("named in the request" in r for r in plain.picks[0].reasons)


def test_a_rename_reaches_the_files_that_use_the_name(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "rename apply_discount to discounted", 4000)
    paths = _paths(sel)
    assert paths[0] == "shop/pricing.py"
    assert {"shop/cart.py", "shop/__init__.py"} <= set(paths)


def test_map_lists_further_files_with_their_definitions(tmp_path: Path) -> None:
    files = dict(PY_FILES)
    for i in range(12):
        body = "".join(f"def step_{i}_{j}(order):\n    return order\n\n\n" for j in range(40))
        files[f"shop/flow{i}.py"] = "import shop\n\n\n" + body
    repo = _repo(tmp_path, files)
    sel = select(repo, repo.resolve_commit("HEAD"), "order step flow", 1500, map_share=0.3)
    assert sel.map and sel.tokens <= 1500
    sent = set(_paths(sel))
    assert all(entry.path not in sent for entry in sel.map)
    flows = [e for e in sel.map if e.path.startswith("shop/flow")]
    assert flows and all(e.signatures[0].text.startswith("def step_") for e in flows)
    text = context_render_map(sel)
    assert flows[0].path in text and "def step_" in text


def context_render_map(sel: object) -> str:
    from git_gpte.context import render_map

    return render_map(sel)  # type: ignore[arg-type]


def test_whole_pick_segment_is_the_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path, PY_FILES)
    sel = select(repo, repo.resolve_commit("HEAD"), "shipping cost", 4000)
    pick = next(p for p in sel.picks if p.path == "shop/shipping.py")
    assert pick.whole
    (segment,) = pick_segments(repo, pick)
    assert segment.text == PY_FILES["shop/shipping.py"]
    assert (segment.start, segment.end) == (1, 4)


def test_bad_budget_in_git_config_is_one_line(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", PY_FILES)
    git(root, "config", "gpte.contextTokens", "lots")
    res = run_gpte("context", "discount", cwd=root)
    assert res.returncode != 0 and len(res.stderr.strip().splitlines()) == 1
    assert "lots" in res.stderr


def test_an_excerpt_of_a_top_file_comes_with_its_module_header(tmp_path: Path) -> None:
    # Every function matches the request better than the header does; the header (imports,
    # constants) is sent with the first excerpt all the same.
    header = '"""Redirect helpers."""\nimport os\nimport re\nimport sys\n\nLIMIT = 3\n\n\n'
    body = "".join(
        f"def redirect_step_{i}(url):\n    '''Follow one redirect.'''\n"
        f"    return url.replace('http', 'https') * {i}\n\n\n"
        for i in range(40)
    )
    repo = _repo(tmp_path, {"web/redirects.py": header + body})
    sel = select(repo, repo.resolve_commit("HEAD"), "redirect steps loop", 300)
    pick = sel.picks[0]
    assert not pick.whole and pick.tokens <= 300
    assert pick.ranges[0].start == 1
    text = "\n".join(s.text for s in pick_segments(repo, pick))
    assert "import re" in text and "LIMIT = 3" in text and "def redirect_step_" in text


def _scored(path: str, text: str, score: float) -> FileScore:
    """A ranked file built from text, for packing tests that set the ranking by hand."""
    return FileScore(
        Candidate(path, "0" * 40, len(text.encode())), parse_file(path, text), score=score
    )


@pytest.fixture
def bytes4_budgets(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Budgets in UTF-8 bytes / 4 (exact counts) for the packing tests, whatever the machine
    has cached; the choice is forgotten afterwards even when the test fails."""
    monkeypatch.setenv("GPTE_CONTEXT_TOKENIZER", "bytes4")
    token_mode.cache_clear()
    yield
    token_mode.cache_clear()


def test_a_good_file_sent_in_part_is_completed_before_lesser_chunks(
    bytes4_budgets: None,
) -> None:
    # Ranked: top.py (sent whole up front), two chunks of a.py, then many chunks of lesser
    # files, then the rest of a.py. The first round of chunks ends at three quarters of the
    # budget; a.py's rest is then cheap against what is left, so a.py goes whole before the
    # lesser chunks take the rest.

    def source(prefix: str, count: int, pad: int) -> str:
        return "".join(
            f"def {prefix}_{i}(value):\n    return value + {i}  # {'x' * pad}\n\n\n"
            for i in range(count)
        )

    scored = _scored
    top = scored("top.py", source("main", 2, 20), 1.0)
    part = scored("a.py", "import os\n\n\n" + source("step", 8, 200), 0.4)
    others = [scored(f"o{n}.py", source(f"other{n}", 20, 150), 0.3) for n in range(4)]
    assert part.record is not None and top.record is not None
    chunks = [ChunkScore(part, i, 0.9 - 0.01 * i, []) for i in range(3)]
    chunks += [
        ChunkScore(f, i, 0.5 - 0.001 * (20 * n + i), [])
        for n, f in enumerate(others)
        for i in range(len(f.record.chunks) if f.record else 0)
    ]
    chunks += [ChunkScore(part, i, 0.05, []) for i in range(3, len(part.record.chunks))]
    ranking = Ranking([top, part, *others], chunks)
    picks, _ = pack(ranking, 4000)
    by_path = {p.path: p for p in picks}
    assert by_path["top.py"].whole and by_path["a.py"].whole
    assert sum(p.tokens for p in picks) <= 4000


def test_a_small_file_among_the_best_goes_whole_behind_a_big_one(
    bytes4_budgets: None,
) -> None:
    # big.py outranks everything, is too large to send whole, and its chunks alone could fill
    # the budget; tiny.py, ranked behind it, costs little: it goes whole before any chunk.

    scored = _scored
    body = "".join(
        f"def step_{i}(value):\n    return value + {i}  # {'x' * 80}\n\n\n" for i in range(200)
    )
    big = scored("big.py", body, 1.0)
    tiny = scored("tiny.py", "TAX = 0.2\n\n\ndef with_tax(amount):\n    return amount * 1.2\n", 0.4)
    assert big.record is not None and tiny.record is not None
    chunks = [ChunkScore(big, i, 1.0 - 0.001 * i, []) for i in range(len(big.record.chunks))]
    chunks += [ChunkScore(tiny, i, 0.01, []) for i in range(len(tiny.record.chunks))]
    picks, _ = pack(Ranking([big, tiny], chunks), 3000)
    by_path = {p.path: p for p in picks}
    assert not by_path["big.py"].whole
    assert by_path["tiny.py"].whole
    assert sum(p.tokens for p in picks) <= 3000


def test_a_file_among_the_best_three_goes_whole_up_to_an_eighth_of_the_budget(
    bytes4_budgets: None,
) -> None:
    # mid.py and lesser.py cost ~10% of the budget each: whole for the second-best file, not
    # for the fifth, whose excerpts must earn their place like any other file's.
    big_text = "".join(
        f"def step_{i}(v):\n    return v + {i}  # {'x' * 80}\n\n\n" for i in range(200)
    )
    mid_text = "".join(
        f"def mid_{i}(v):\n    return v * {i}  # {'y' * 40}\n\n\n" for i in range(15)
    )
    big = _scored("big.py", big_text, 1.0)
    mid = _scored("mid.py", mid_text, 0.6)
    others = [_scored(f"other{n}.py", big_text, 0.55) for n in range(2)]
    lesser = _scored("lesser.py", mid_text.replace("mid_", "low_"), 0.5)
    assert big.record is not None
    chunks = [ChunkScore(big, i, 1.0 - 0.001 * i, []) for i in range(len(big.record.chunks))]
    picks, _ = pack(Ranking([big, mid, *others, lesser], chunks), 3000)
    assert {p.path for p in picks if p.whole} == {"mid.py"}
    assert sum(p.tokens for p in picks) <= 3000


def test_the_chunks_using_a_named_identifier_are_sent_for_a_rename(tmp_path: Path) -> None:
    steps = "".join(
        f"def checkout_step_{i}(order):\n    # checkout step {i} of the order pipeline\n"
        + (
            "    return apply_discount(order.total, order.code)\n\n\n"
            if i == 17
            else f"    return order.total + {i}\n\n\n"
        )
        for i in range(40)
    )
    repo = _repo(tmp_path, {**PY_FILES, "shop/checkout.py": steps})
    sel = select(repo, repo.resolve_commit("HEAD"), "rename apply_discount to discounted", 700)
    pick = next(p for p in sel.picks if p.path == "shop/checkout.py")
    assert not pick.whole
    line = steps.split("\n").index("def checkout_step_17(order):") + 1
    assert any(r.start <= line <= r.end for r in pick.ranges)
    assert any("uses apply_discount" in r for r in pick.reasons)


def test_the_best_three_files_go_whole_whatever_their_score(
    bytes4_budgets: None,
) -> None:
    # second.py scores far below first.py (a name the request spells out lifts first.py) but is
    # still the second-best file: whole while it fits in half of what is left. fourth.py, as
    # weak and as large, is not.
    text = "".join(f"def part_{i}(v):\n    return v + {i}  # {'z' * 60}\n\n\n" for i in range(25))
    files = [
        _scored("first.py", text.replace("part_", "first_"), 1.0),
        _scored("second.py", text.replace("part_", "second_"), 0.3),
        _scored("third.py", text.replace("part_", "third_"), 0.29),
        _scored("fourth.py", text.replace("part_", "fourth_"), 0.28),
    ]
    picks, _ = pack(Ranking(files, []), 12000)
    assert [p.path for p in picks if p.whole] == ["first.py", "second.py", "third.py"]


def test_context_and_a_dry_run_work_when_git_gpte_cannot_write_in_git(tmp_path: Path) -> None:
    # .git/gpte cannot be created (here: a file is in its place; a read-only .git is the same
    # to git-gpte): what only reads still works, with an index in memory.
    repo = _repo(tmp_path, PY_FILES)
    state = repo.state_dir()
    for leftover in sorted(state.rglob("*"), reverse=True):
        leftover.unlink() if leftover.is_file() else leftover.rmdir()
    state.rmdir()
    state.write_text("not a directory\n")
    listed = run_gpte("context", "discount", "--format", "lines", cwd=repo.root)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == "shop/pricing.py"
    plan = run_gpte("improve", "-n", "--json", "discount", "--model", "gpt-4o", cwd=repo.root)
    assert plan.returncode == 0, plan.stderr
    assert "shop/pricing.py" in json.loads(plan.stdout)["files"]


def test_the_listing_reads_in_the_requests_words_best_first(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        {**PY_FILES, "LICENSE": "MIT License\n\nPermission is hereby granted...\n" * 30},
    )
    listed = run_gpte("context", "computing discounts elapsed", cwd=repo.root).stdout
    said = {w for m in re.findall(r"matches (.+)", listed) for w in m.split(", ")}
    assert said and said <= {"computing", "discounts", "elapsed"}, said  # not "comput", "elaps"
    scores = [float(s) for s in re.findall(r"score (\d+\.\d+)", listed)]
    assert scores == sorted(scores, reverse=True)
    assert "(0 definitions)" not in listed and "score 0.000" not in listed


def test_build_output_and_copies_of_the_source_give_way_to_the_source(tmp_path: Path) -> None:
    """A bundle in dist/ and a generated copy of a module (zod's deno/lib/ of src/) repeat the
    source: the source is sent, the copies get none of the budget their text would cost."""
    body = "".join(
        f"export function parseQuery{n}(text: string): string[] {{\n"
        f"  const parts = text.split('&').map((p) => p.trim());\n"
        f"  return parts.filter((p) => p.length > {n});\n}}\n\n"
        for n in range(12)
    )
    files: dict[str, str | bytes] = {
        "src/query.ts": body,
        "deno/lib/query.ts": "// generated\n" + body,
        "dist/query.js": body.replace(": string[]", "").replace(": string", ""),
        "src/other.ts": "export const unrelated = 1;\n",
    }
    repo = _repo(tmp_path, files)
    sel = select(repo, repo.resolve_commit("HEAD"), "parseQuery3 drops empty parts", 400)
    picked = {p.path: p for p in sel.picks}
    assert _paths(sel)[0] == "src/query.ts"
    # The copy's functions are not sent again (its own header may be).
    copy = picked.get("deno/lib/query.ts")
    assert copy is None or (not copy.whole and all(r.end <= 2 for r in copy.ranges))
    # The bundle counts a fifth of the source.
    commit = repo.resolve_commit("HEAD")
    candidates = list_candidates(repo, commit).files
    store = IndexStore(repo.state_dir())
    try:
        scores = {f.cand.path: f.score for f in rank(store, candidates, "parseQuery3").files}
    finally:
        store.close()
    assert scores["dist/query.js"] < 0.5 * scores["src/query.ts"]


def test_files_that_are_not_source_count_only_when_the_request_is_about_them(
    tmp_path: Path,
) -> None:
    files: dict[str, str | bytes] = {
        "app/server.py": "def serve(port):\n    # the python version decides the event loop\n"
        "    return port\n",
        ".github/workflows/ci.yml": "name: ci\non: push\njobs:\n  test:\n    steps:\n"
        "      - uses: actions/setup-python@v5\n        with:\n          python-version: '3.11'\n",
        "docs/serving.md": "# Serving\n\nThe server listens on a port.\n",
    }
    repo = _repo(tmp_path, files)
    commit = repo.resolve_commit("HEAD")
    candidates = list_candidates(repo, commit).files
    store = IndexStore(repo.state_dir())
    try:
        ensure_indexed(repo, store, candidates)

        def scores(request: str) -> dict[str, float]:
            return {f.cand.path: f.score for f in rank(store, candidates, request).files}

        code = scores("the python version of the server")
        ci = scores("run the CI workflow on python version 3.12")
        docs = scores("document the serving port in the docs")
    finally:
        store.close()
    assert code["app/server.py"] > 5 * code[".github/workflows/ci.yml"]
    assert ci[".github/workflows/ci.yml"] > 5 * code[".github/workflows/ci.yml"]
    assert docs["docs/serving.md"] > 5 * code["docs/serving.md"]


def test_the_facts_of_many_blobs_are_read_in_one_pass_and_the_same(tmp_path: Path) -> None:
    from git_gpte.context.parse import parse_file
    from git_gpte.context.store import BlobFacts, stored

    store = IndexStore(tmp_path)
    try:
        rows = [
            stored(f"b{n:04}:python", parse_file(f"m{n}.py", f"x{n} = {n}\n" * (n % 5 + 1)), None)
            for n in range(1200)
        ]
        store.put(rows)
        store.put(
            [
                stored("bin:text", None, None),
                stored("key:python", parse_file("k.py", "k = 1\n"), "a key"),
            ]
        )
        few = ["b0007:python", "nope:python"]
        many = [*(row.key for row in rows[:900]), "bin:text", "key:python", "nope:python"]

        def fresh(keys: list[str]) -> tuple[BlobFacts, dict[str, str | None]]:
            other = IndexStore(tmp_path)
            try:
                facts = other.facts(keys)
                return facts, {key: facts.status(key) for key in keys}
            finally:
                other.close()

        by_lookup, few_statuses = fresh(few)
        assert few_statuses == {"b0007:python": "ok", "nope:python": None}
        assert by_lookup.lengths["b0007:python"] == sum(rows[7].terms.values()) > 0
        whole, statuses = fresh(many)  # 902 of 1,202 rows: one pass over the table
        assert len(whole.lengths) == 1202 and statuses["bin:text"] == "binary"
        assert statuses["key:python"] == "secret:a key" and statuses["nope:python"] is None
        assert whole.lengths["b0007:python"] == by_lookup.lengths["b0007:python"]
        assert store.missing(many) == ["nope:python"] and store.missing(few) == ["nope:python"]
    finally:
        store.close()


def test_token_counts_are_kept_but_never_waited_for(tmp_path: Path) -> None:
    # The counts are a cache: while another run holds the write lock they are not kept, and
    # the run does not wait for it.
    import time

    store, other = IndexStore(tmp_path), IndexStore(tmp_path)
    try:
        store.keep_counts({b"a" * 20: 7})
        assert other.count(b"a" * 20) == 7 and other.count(b"b" * 20) is None
        other.conn.execute("BEGIN IMMEDIATE")
        started = time.monotonic()
        store.keep_counts({b"b" * 20: 9})
        assert time.monotonic() - started < 1.0
        other.conn.execute("COMMIT")
        assert store.count(b"b" * 20) is None
        store.keep_counts({b"b" * 20: 9})
        assert other.count(b"b" * 20) == 9
    finally:
        store.close()
        other.close()


def test_exact_counts_fill_the_budget_the_estimates_left_and_never_pass_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where the budget's encoding is on the machine, the selection is counted exactly and
    # packed again with what the estimates overshot: more is sent, never more than the
    # budget. (A tokenizer of whole words stands in for o200k, which CI machines lack.)
    import git_gpte.context.engine as engine
    from git_gpte.context.exact import cost

    files = {
        f"pkg/mod{i}.py": "".join(
            f"def handler_{i}_{j}(request, retries):\n    return request.retry(retries) + {j}\n\n\n"
            for j in range(30)
        )
        for i in range(12)
    }
    repo_dir = make_repo(tmp_path / "r", files)
    repo = Repository.discover(repo_dir)

    def words(text: str) -> int:
        return len(re.findall(r"\w+|[^\w\s]", text))

    def dense(text: str) -> int:
        return len(text) // 2

    request = "retry the request handlers"
    monkeypatch.setattr(engine, "o200k_counter", lambda: None)
    estimated = select(repo, "HEAD", request, 2000, map_share=0.0)
    monkeypatch.setattr(engine, "o200k_counter", lambda: words)
    exact = select(repo, "HEAD", request, 2000, map_share=0.0)
    texts = {path: git(repo_dir, "show", f"HEAD:{path}") for path in files}
    before = cost(estimated.picks, texts, words)
    after = cost(exact.picks, texts, words)
    assert exact.tokens_exact and not estimated.tokens_exact
    assert before < after <= 2000, (before, after)
    assert sum(p.tokens for p in exact.picks) <= after
    # A tokenizer that counts more than the estimates: the selection shrinks to fit.
    monkeypatch.setattr(engine, "o200k_counter", lambda: dense)
    shrunk = select(repo, "HEAD", request, 2000, map_share=0.0)
    assert cost(estimated.picks, texts, dense) > 2000 >= cost(shrunk.picks, texts, dense)

    # ... and when what it undercounts is the best file (emoji-dense notes), packing again in
    # a smaller budget keeps that file and drops the rest: still never over.
    def skewed(text: str) -> int:
        return words(text) * (12 if "handler_0_" in text or "handler_1_" in text else 1)

    monkeypatch.setattr(engine, "o200k_counter", lambda: skewed)
    for budget in (700, 1000, 2000, 3000):
        fitted = select(repo, "HEAD", request, budget, map_share=0.0)
        assert cost(fitted.picks, texts, skewed) <= budget, budget


def test_exact_counts_are_kept_so_a_warm_selection_loads_no_encoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loading o200k costs as much as a warm selection on 2,000 files: the index keeps the
    # counts, and the same selection again counts nothing. Where the encoding does not load
    # after all, the estimates stand. (A tokenizer of whole words stands in for o200k.)
    import git_gpte.context.engine as engine
    from git_gpte.context import exact

    files = {
        f"pkg/mod{i}.py": "".join(
            f"def handler_{i}_{j}(request):\n    return request.retry({j})\n\n\n" for j in range(20)
        )
        for i in range(6)
    }
    repo = Repository.discover(make_repo(tmp_path / "r", files))
    counted: list[str] = []

    def words(text: str) -> list[str]:
        counted.append(text)
        return re.findall(r"\w+|[^\w\s]", text)

    monkeypatch.setattr(exact, "_o200k_encode", lambda: words)
    monkeypatch.setattr(engine, "o200k_counter", exact.O200k)
    first = select(repo, "HEAD", "retry the request handlers", 1500, map_share=0.0)
    assert first.tokens_exact and counted
    counted.clear()
    again = select(repo, "HEAD", "retry the request handlers", 1500, map_share=0.0)
    assert again == first and not counted

    def broken() -> list[str]:
        raise exact.EncodingUnavailable("o200k_base")

    monkeypatch.setattr(exact, "_o200k_encode", broken)
    elsewhere = Repository.discover(make_repo(tmp_path / "s", files))  # an index of no counts
    estimated = select(elsewhere, "HEAD", "retry the request handlers", 1500, map_share=0.0)
    assert not estimated.tokens_exact


def test_a_short_definition_between_two_excerpts_is_sent_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A change near two chosen functions often touches the one between them."""
    from git_gpte.context import exact, pack

    monkeypatch.setattr(exact, "GROW_LINES", 0)  # the gap alone, not excerpts grown

    filler = "".join(
        f"def filler_{n}(value):\n    total = value * {n}\n    return total + {n}\n\n\n"
        for n in range(120)
    )
    text = filler + (
        "def frobnicate_widget(widget):\n    return widget.frob()\n\n\n"
        "def helper_between(x):\n    return x + 1\n\n\n"
        "def unfrobnicate_widget(widget):\n    return widget.unfrob()\n"
    )
    repo = _repo(tmp_path, {"widgets.py": text})
    head = repo.resolve_commit("HEAD")
    between = text.splitlines().index("def helper_between(x):") + 1

    def sent(gap: int) -> bool:
        monkeypatch.setattr(pack, "GAP_LINES", gap)
        sel = select(repo, head, "frobnicate_widget and unfrobnicate_widget", 600, map_share=0.0)
        pick = next(p for p in sel.picks if p.path == "widgets.py")
        assert not pick.whole
        return any(r.start <= between <= r.end for r in pick.ranges)

    assert not sent(0)
    assert sent(30)


def test_tests_the_request_is_not_about_get_only_what_the_source_leaves(tmp_path: Path) -> None:
    # Seen (attrs, "More f-strings"): a 32k budget spent on excerpts of tests, a changelog and
    # tox.ini while the module the commit changed went in part.
    files = dict(PY_FILES)
    files["tests/test_discount.py"] = "".join(
        f"def test_discount_{n}():\n    assert apply_discount({n}, 10) == {n} * 0.9\n\n\n"
        for n in range(400)
    )
    files["shop/rates.py"] = '"""Discount rates."""\n\n\n' + "".join(
        f"def rate_{n}(amount):\n    return amount * {n} / 100\n\n\n" for n in range(400)
    )
    root = make_repo(tmp_path / "r", files)

    def lines(*args: str, tokens: str = "3000") -> list[str]:
        done = run_gpte("context", *args, "--format", "lines", "--tokens", tokens, cwd=root)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    plain = lines("discount")
    assert any(line.startswith("shop/rates.py:") for line in plain)
    assert not [line for line in plain if line.startswith("tests/")]
    # Asked for by the request or chosen by a pathspec, tests are ranked as source is.
    assert any(line.startswith("tests/test_discount.py:") for line in lines("add a discount test"))
    assert lines("discount", "tests")[0].startswith("tests/test_discount.py:")
    # A pathspec that only leaves files out chooses none.
    for spec in (":(exclude)README.md", ":!README.md"):
        assert not [line for line in lines("discount", spec) if line.startswith("tests/")]
    # With room left once the source is in, they are sent too (a small repository: all of it).
    roomy = lines("discount", tokens="8000")
    assert "shop/rates.py" in roomy
    assert roomy[-1].startswith("tests/test_discount.py:")


def test_json_says_which_files_the_request_points_at(tmp_path: Path) -> None:
    # A file that defines a name the request gives is pointed at; one reached only by its
    # words or its links is not (a model writing whole files is shown only the former).
    root = make_repo(tmp_path / "r", PY_FILES)
    res = run_gpte("context", "--json", "make apply_discount accept a lower-case code", cwd=root)
    assert res.returncode == 0, res.stderr
    pointed = {p["path"]: p["pointed"] for p in json.loads(res.stdout)["picks"]}
    assert pointed["shop/pricing.py"] is True
    assert pointed.get("shop/cart.py") is False and pointed.get("shop/shipping.py") is not True


def test_the_selection_is_the_same_whatever_the_hash_seed(tmp_path: Path) -> None:
    # A name two files define links each to its user; which reason a link kept followed a
    # set's order, which changes with each process's hash seed.
    files = {
        "report.py": "def render_report(rows):\n    return format_rows(rows) + summary(rows)\n",
        "plain.py": "def format_rows(rows):\n    return str(rows)\n\n\ndef summary(rows):\n"
        "    return ''\n",
        "fancy.py": "def format_rows(rows):\n    return repr(rows)\n\n\ndef summary(rows):\n"
        "    return '!'\n",
    }
    repo = make_repo(tmp_path / "r", files)
    outputs = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        subprocess.run(["rm", "-rf", str(repo / ".git" / "gpte")], check=True)
        done = run_gpte(
            "context", "render_report", "--json", cwd=repo, env={"PYTHONHASHSEED": seed},
            process=True,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_tests_the_request_asks_for_rank_below_source_unless_it_names_the_file() -> None:
    # Seen on mux: a squashed commit's "* correct request mocking in tests" had mux_test.go
    # take most of an 8k budget from the regexp.go it changed.
    from git_gpte.context.rank_signals import file_prior
    from git_gpte.context.request import analyse_request
    from git_gpte.context.weights import WEIGHTS

    asking = analyse_request("Correct request mocking in tests")
    assert asking.wants_tests == 1.0
    assert file_prior("mux_test.go", asking, WEIGHTS) == WEIGHTS.test_asked < 1.0
    # Asked for only below the first line, tests count as the words there do: less.
    asking = analyse_request("Fix route regexp matching\n\n* correct request mocking in tests")
    assert asking.wants_tests == WEIGHTS.body_term
    assert WEIGHTS.test < file_prior("mux_test.go", asking, WEIGHTS) < WEIGHTS.test_asked
    assert file_prior("regexp.go", asking, WEIGHTS) == 1.0
    # werkzeug's test.py is its test client: named, it ranks as source.
    client = analyse_request("make the test Client follow redirects")
    assert file_prior("src/werkzeug/test.py", client, WEIGHTS) == 1.0
    assert file_prior("tests/test_wsgi.py", client, WEIGHTS) == WEIGHTS.test_asked
    not_asking = analyse_request("Fix route regexp matching")
    assert file_prior("mux_test.go", not_asking, WEIGHTS) == WEIGHTS.test


def test_a_kind_asked_for_below_the_first_line_ranks_between_asked_and_not(
    tmp_path: Path,
) -> None:
    from git_gpte.context.weights import WEIGHTS

    repo = make_repo(
        tmp_path / "r",
        {
            "src/headers.py": "def parse_header(text):\n    # one header line\n"
            "    return text.split(':', 1)\n",
            "tests/test_headers.py": "from src.headers import parse_header\n\n\n"
            "def test_parse_header():\n    assert parse_header('a: b') == ['a', ' b']\n",
        },
    )

    def share(request: str) -> float:
        done = run_gpte("context", "--json", "--tokens", "8000", request, cwd=repo)
        assert done.returncode == 0, done.stderr
        score = {p["path"]: p["score"] for p in json.loads(done.stdout)["picks"]}
        return score["tests/test_headers.py"] / score["src/headers.py"]

    # "pytest" asks for tests and is in no file: the test's prior alone differs.
    title = share("Parse header lines, with pytest")
    body = share("Parse header lines\n\n* with pytest")
    neither = share("Parse header lines")
    assert neither < body < title
    asked_below = WEIGHTS.test + WEIGHTS.body_term * (WEIGHTS.test_asked - WEIGHTS.test)
    assert body / title == pytest.approx(asked_below / WEIGHTS.test_asked, rel=0.02)


def test_a_request_naming_a_version_number_finds_the_files_holding_the_version(
    tmp_path: Path,
) -> None:
    # Seen on jinja: "master is 2.7-dev" changes setup.py's and __init__.py's version.
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": "__version__ = '2.6'\n",
            "pkg/master.py": "def master_key(items):\n    return sorted(items)[0]\n",
            "setup.py": "from setuptools import setup\n\nsetup(name='pkg', version='2.6')\n",
        },
    )
    done = run_gpte("context", "--json", "--tokens", "4000", "master is 2.7-dev", cwd=repo)
    assert done.returncode == 0, done.stderr
    score = {p["path"]: p["score"] for p in json.loads(done.stdout)["picks"]}
    assert score.get("setup.py", 0) > 0 and score.get("pkg/__init__.py", 0) > 0
    assert analyse_request("fix the cache").terms == ("fix", "cache")
    assert analyse_request("").terms == ()  # a library caller's empty request: no terms
    assert "version" in analyse_request("Release 0.7.2").terms


def test_a_request_naming_a_version_number_finds_where_earlier_releases_were_made(
    tmp_path: Path,
) -> None:
    # Seen on alembic: "Version 1.3.3 placeholder" changes __init__.py's __version__, which
    # says "version" once where the migration modules say it everywhere. Earlier commits
    # naming a version number changed it, whatever their other words.
    versions = "".join(
        f"def version_step_{i}(version, versions):\n    return versions.next_version(version)\n\n"
        for i in range(12)
    )
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": "from .migrate import upgrade\n\n__version__ = '1.0'\n",
            "pkg/migrate.py": "def upgrade(version):\n    return version\n",
            "pkg/steps.py": versions,
            "CHANGES.md": "# Changes\n",
        },
    )
    _releases_then_work(
        repo,
        lambda release: {
            "pkg/__init__.py": f"from .migrate import upgrade\n\n__version__ = '{release}'\n",
            "CHANGES.md": f"# Changes\n\n## {release}\n",
        },
        lambda n: {"pkg/cli.py": f"def main():\n    return {n}\n"},
    )
    _assert_release_file_first(repo, "Version 1.2 placeholder")
    assert analyse_request("Version 1.2 placeholder").names_version
    assert not analyse_request("Use the version table\n\nsince 1.2").names_version


@pytest.mark.parametrize(
    ("request_text", "release"),
    [
        ("Bump dev version and update changelog", True),
        ("- bump version num", True),
        ("bump revision number", True),
        ("bump for development", True),
        ("Start new development cycle", True),
        ("Fix internal type annotations and bump mypy version", False),  # a dependency's
        ("Bump `p-cancelable`", False),
        ("bump finished and mocha", False),
        # Anywhere in the line, a change of the version or a release's preparation.
        ("Blacken and update version time", True),
        ("fix: updated version in the fastify.js", True),
        ("version bump for pypi release", True),
        ("Prep for release", True),
        ("bumping for release", True),
        ("Increment version to 1.9.10.dev0", True),  # PEP 440's dot before "dev"
        ("Update go version, add tools for verification", False),  # a runtime's
        ("update version of ruff", False),
        ("Replace acquire()/release() calls with context manager", False),
    ],
)
def test_a_release_said_without_a_number_is_a_release(request_text: str, release: bool) -> None:
    assert analyse_request(request_text).names_version is release


@pytest.mark.parametrize(
    "request_text", ["bump revision number", "Blacken and update version time", "Prep for release"]
)
def test_a_bump_without_a_number_finds_where_earlier_releases_were_made(
    tmp_path: Path, request_text: str
) -> None:
    # Seen on gunicorn ("bump revision number"), packaging ("bump for development") and
    # pyparsing ("Prep for release"): the files holding the version, which the request's
    # words do not name.
    steps = "".join(f"def revision_step_{i}(value):\n    return value + {i}\n\n" for i in range(12))
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/__init__.py": "from .steps import revision_step_0\n\n__version__ = '0.9'\n",
            "pkg/steps.py": steps,
        },
    )
    _releases_then_work(
        repo,
        lambda release: {
            "pkg/__init__.py": f"from .steps import revision_step_0\n\n__version__ = '{release}'\n"
        },
        lambda n: {"pkg/cli.py": f"def main():\n    return {n}\n", "pkg/app.py": f"APP = {n}\n"},
    )
    _assert_release_file_first(repo, request_text)


def _releases_then_work(
    repo: Path,
    release_files: Callable[[str], dict[str, str | bytes]],
    work_files: Callable[[int], dict[str, str | bytes]],
) -> None:
    """Releases 1.0 and 1.1, then six commits of other work (the latest commits change none
    of the release's files)."""
    for release in ("1.0", "1.1"):
        write_files(repo, release_files(release))
        commit_all(repo, f"Release {release}")
    for n in range(6):
        write_files(repo, work_files(n))
        commit_all(repo, "Work on the command line")


def _assert_release_file_first(repo: Path, request: str) -> None:
    done = run_gpte("context", "--json", "--tokens", "4000", request, cwd=repo)
    assert done.returncode == 0, done.stderr
    picks = json.loads(done.stdout)["picks"]
    assert picks[0]["path"] == "pkg/__init__.py", [(p["path"], p["score"]) for p in picks]
    assert "changed by earlier releases" in picks[0]["reasons"]


@pytest.mark.parametrize(
    "request_text",
    [
        "x" * 400_000,  # one word
        "a." * 200_000,  # a dotted name of 200,000 parts
        "a-" * 200_000,  # a run a link's scheme was looked for in
        " ".join(f"shop/f{i}.py" for i in range(40_000)),  # a pasted listing of paths
    ],
)
def test_a_huge_request_selects_in_linear_time(tmp_path: Path, request_text: str) -> None:
    """A log or a minified file pasted as the request: each pattern looked for in it starts
    only where a run of its characters starts, and the paths it names are capped, so the
    selection is made (what took minutes for these now takes a second)."""
    repo = _repo(tmp_path, PY_FILES)
    prompt = tmp_path / "request.txt"
    prompt.write_text(request_text + "\nthe change goes in shop/shipping.py")
    res = run_gpte("context", "--format", "lines", "--tokens", "2000", "-f", str(prompt),
                   cwd=repo.root)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()


def test_a_request_names_at_most_so_many_paths() -> None:
    names = [f"pkg/mod{i}.py" for i in range(100)]
    query = analyse_request(" ".join(names) + " " + "a." * 300 + "b")
    assert query.path_mentions == tuple(names[:64])
