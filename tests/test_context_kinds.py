"""A file's kind told by its path: a tool's configuration written as code, files in dot
folders and markdown dialects (rarely what a change request is about), a docs tree's own code
and build scripts (code), and what only tests read (tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from git_gpte.context.languages import in_docs_tree, is_config, is_docs, is_prose
from tests.conftest import run_gpte
from tests.helpers.gitrepo import make_repo


@pytest.mark.parametrize(
    "path",
    [
        "vite.config.ts",
        "jest.config.js",
        "karma.conf.cjs",
        "packages/docs/next.config.mjs",
        ".configs/rollup.config.js",
        ".husky/pre-commit",
        ".github/actions/setup/index.js",
        "biome.jsonc",
        "renovate.json5",
    ],
)
def test_configuration_by_convention(path: str) -> None:
    assert is_config(path)


@pytest.mark.parametrize(
    "path", ["src/app/app.config.ts", "lib/config.js", "src/config/index.ts", "server.ts"]
)
def test_code_named_config_in_the_source_tree_is_code(path: str) -> None:
    assert not is_config(path)


@pytest.mark.parametrize("path", ["internal/readme/readme.go", "cobra/cmd/license_mit.go"])
def test_code_named_as_prose_is_a_docs_trees_code(path: str) -> None:
    # zap's readme.go writes its README; cobra's license_*.go hold license templates. Not in a
    # docs tree: a license template stating a copyright is not Sphinx's conf.py stating one.
    assert not is_prose(path) and is_docs(path) and not in_docs_tree(path)


@pytest.mark.parametrize("path", ["README", "LICENSE", "CHANGES.rst", "HISTORY.md", "AUTHORS"])
def test_prose_named_files_in_no_language_are_prose(path: str) -> None:
    assert is_prose(path) and not is_docs(path)


def test_a_program_writing_the_readme_ranks_above_the_readme(tmp_path: Path) -> None:
    # Seen on zap: "Make benchmarks more rigorous" changed internal/readme/readme.go, the
    # program that writes the README's benchmark tables; named as prose, it counted a
    # twentieth of code and was never sent.
    text = "benchmarks of the logger, rigorous timings\n"
    repo = make_repo(
        tmp_path / "r",
        {
            "internal/readme/readme.go": f"package main\n\n// {text}func main() {{}}\n",
            "README.md": f"# Logger\n\n{text}",
            "logger.go": "package zap\n\nfunc New() {}\n",
        },
    )
    scores = _scores(repo, "Make benchmarks more rigorous")
    assert scores["internal/readme/readme.go"] > 3 * scores["README.md"], scores


def test_markdown_dialects_are_prose() -> None:
    assert is_prose("docs/guide.mdx")
    assert is_prose(".cursor/rules/guidelines.mdc")


SERVER = "export function startServer(port: number) {\n  return listen(port);\n}\n"
VITE = (
    "export default {\n"
    "  server: { port: 5173, strictPort: true },\n"
    "  preview: { port: 4173 },\n"
    "};\n"
)


def _picks(repo: Path, request: str, tokens: int = 8000) -> list[dict[str, Any]]:
    done = run_gpte("context", "--json", "--tokens", str(tokens), request, cwd=repo)
    assert done.returncode == 0, done.stderr
    picks: list[dict[str, Any]] = json.loads(done.stdout)["picks"]
    return picks


def _scores(repo: Path, request: str, tokens: int = 8000) -> dict[str, float]:
    return {p["path"]: p["score"] for p in _picks(repo, request, tokens)}


def _sent(repo: Path, request: str, tokens: int) -> list[str]:
    return [p["path"] for p in _picks(repo, request, tokens)]


def test_a_tools_configuration_ranks_below_code_unless_asked_for(tmp_path: Path) -> None:
    # The configuration says "server" and "port" more often than the code does.
    repo = make_repo(tmp_path / "r", {"src/server.ts": SERVER, "vite.config.ts": VITE})
    plain = _scores(repo, "Change the server port")
    assert plain["src/server.ts"] > 2 * plain["vite.config.ts"]
    asked = _scores(repo, "Change the server port in the vite config")
    share = asked["vite.config.ts"] / asked["src/server.ts"]
    assert share > 2 * plain["vite.config.ts"] / plain["src/server.ts"]


def test_source_comes_before_prose_when_the_request_matches_nothing(tmp_path: Path) -> None:
    # Seen on cattrs: "Formatting." matched no file; ties broken by path alone put `LICENSE`
    # and forty other files before `setup.py`, which was never sent at any budget.
    files = {f"docs/notes_{n:02}.md": f"Release notes, part {n}.\n" for n in range(45)}
    files["setup.py"] = "from setuptools import setup\n\nsetup(name='demo', version='0.1')\n"
    repo = make_repo(tmp_path / "r", files)
    picks = _sent(repo, "Formatting.", 32000)
    assert picks[0] == "setup.py"


def test_a_documentation_trees_own_code_is_sent_before_prose(tmp_path: Path) -> None:
    # Seen on structlog: "Clarify contextvars.Token problems in intersphinx" changed Sphinx's
    # docs/conf.py, the one file saying "intersphinx"; ranked as configuration (0.05), it came
    # after every source file and was never sent. Code in a docs tree is code; its pages are
    # still prose.
    handlers = "".join(
        f"def handler_{n}(token):\n    # the token of the problem {n}\n    return token\n\n"
        for n in range(40)
    )
    repo = make_repo(
        tmp_path / "r",
        {
            **{f"src/pkg/mod{n}.py": handlers for n in range(6)},
            "docs/conf.py": "extensions = ['sphinx.ext.intersphinx']\n"
            "intersphinx_mapping = {'python': ('https://docs.python.org/3', None)}\n",
            "docs/index.rst": "Problems\n========\n\nThe intersphinx problems, the token.\n",
        },
    )
    picks = _sent(repo, "Clarify token problems in intersphinx", 2000)
    assert "docs/conf.py" in picks
    assert "docs/index.rst" not in picks[: picks.index("docs/conf.py")]


def test_a_tools_configuration_written_as_code_is_sent_before_data_configuration(
    tmp_path: Path,
) -> None:
    # Seen on immer: "fix: release and publish from 'main' rather than 'master' branch" changed
    # website/docusaurus.config.js, the one file naming the branch it deploys; ranked as
    # configuration (0.05) it came after every source file and was never sent at 4k. A tool's
    # configuration written as JavaScript is code; one written as JSON is still configuration.
    handlers = "".join(
        f"export function handle{n}(event) {{\n  // release the event {n}\n  return event;\n}}\n\n"
        for n in range(40)
    )
    branch = "  deploymentBranch: 'master',\n  publishBranch: 'master',\n"
    repo = make_repo(
        tmp_path / "r",
        {
            **{f"src/mod{n}.js": handlers for n in range(6)},
            "website/docusaurus.config.js": f"module.exports = {{\n{branch}}};\n",
            "website/deploy.json": '{"deploymentBranch": "master", "publishBranch": "master"}\n',
        },
    )
    picks = _sent(repo, "fix: release and publish from 'main' rather than 'master' branch", 2000)
    assert "website/docusaurus.config.js" in picks
    assert "website/deploy.json" not in picks[: picks.index("website/docusaurus.config.js")]


def test_a_tools_configuration_written_as_code_the_request_names_ranks_above_weaker_source(
    tmp_path: Path,
) -> None:
    # Seen on uuid: "test: increase wdio timout" changed wdio.conf.js. At three tenths of code
    # it came below a module that says "timeout" in passing.
    def functions(prefix: str, comment: str, count: int) -> str:
        return "".join(
            f"export function {prefix}{k}(task) {{\n  // {comment}\n  return task;\n}}\n\n"
            for k in range(count)
        )

    repo = make_repo(
        tmp_path / "r",
        {
            "src/runner.js": functions("retry", "increase the timeout of the task", 6),
            "src/queue.js": functions("queue", "a task waits for its timeout", 8)
            + functions("plain", "nothing to see", 6),
            **{f"src/mod{n}.js": functions(f"other{n}_", "add one", 10) for n in range(4)},
            "wdio.conf.js": "exports.config = {\n  specs: ['./test/browser/**/*.js'],\n"
            "  waitforTimeout: 10000,\n  mochaOpts: { timeout: 60000 },\n};\n",
        },
    )
    scores = _scores(repo, "Increase the wdio timeout", 4000)
    assert scores["src/runner.js"] > scores["wdio.conf.js"] > scores["src/queue.js"], scores


def test_a_documentation_sites_code_in_a_dot_folder_ranks_as_docs_code_for_a_docs_request(
    tmp_path: Path,
) -> None:
    # Seen on pinia: "docs: Add links for Mastering Pinia and Vue Certificate" changed
    # packages/docs/.vitepress/theme/index.ts; in a dot folder it ranked as configuration
    # (three tenths) although the request asked for docs, below the store's source.
    store = "".join(
        f"export function useStore{n}(pinia) {{\n  // add the links of store {n} of pinia\n"
        f"  return pinia.use({n});\n}}\n\n"
        for n in range(40)
    )
    theme = (
        "export default {\n  links: [\n    { text: 'Mastering Pinia', link: '/mastering' },\n"
        "  ],\n};\n"
    )
    repo = make_repo(
        tmp_path / "r",
        {
            **{f"src/store{n}.ts": store for n in range(6)},
            "packages/docs/.vitepress/theme/index.ts": theme,
        },
    )
    scores = _scores(repo, "docs: Add links for Mastering Pinia and Vue Certificate", 2000)
    assert scores["packages/docs/.vitepress/theme/index.ts"] > scores["src/store0.ts"], scores


def test_build_scripts_are_source_and_dist_is_build_output(tmp_path: Path) -> None:
    # fastify's build/build-validation.js writes lib/configValidator.js; hono's build/build.ts
    # bundles the package: build/ holds the scripts, dist/ what they make.
    script = "export function buildValidation(options) {\n  return compileSchema(options)\n}\n"
    repo = make_repo(
        tmp_path / "r",
        {
            "build/build-validation.js": script,
            "dist/validation.js": script.replace("options", "opts"),  # not a copy of it
            "lib/a.js": "x\n",
        },
    )
    scores = _scores(repo, "Build the validation schema")
    assert scores["build/build-validation.js"] > 2 * scores["dist/validation.js"]


@pytest.mark.parametrize(
    "cases", ["test-data/unit/check-narrowing.test", "testdata/narrowing/golden.go"]
)
def test_what_only_tests_read_ranks_as_tests(tmp_path: Path, cases: str) -> None:
    # mypy's test-data/unit/*.test (its type-checking cases) and Go's testdata/ (the go tool
    # skips it) ranked as source: a request about narrowing spent its budget on the cases.
    checker = "".join(
        f"def narrow_{n}(node):\n    # narrowing of the union {n}\n    return node\n\n"
        for n in range(20)
    )
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/checker.py": checker,
            cases: "[case testNarrowing]\n# narrowing narrowing union narrowing\n" * 30,
        },
    )
    scores = _scores(repo, "Fix narrowing of a union")
    assert scores.get(cases, 0.0) < 0.2 * scores["pkg/checker.py"]


def test_type_tests_rank_as_tests(tmp_path: Path) -> None:
    # tsd's index.test-d.ts says the option's name more often than the code does; it ranked
    # as source and took the place of the module that changes.
    code = (
        "".join(
            f"export function parse{n}(argv, options) {{\n  return argv.slice({n})\n}}\n"
            for n in range(10)
        )
        + "export function flags(argv, options) {\n  return options.isMultiple ? argv : [argv]\n}\n"
    )
    checks = "import {expectType} from 'tsd'\n" + "expectType(flags([], {isMultiple: true}))\n" * 20
    repo = make_repo(tmp_path / "r", {"index.js": code, "index.test-d.ts": checks})
    scores = _scores(repo, "Add `isMultiple` option for flags")
    assert scores.get("index.test-d.ts", 0.0) < 0.2 * scores["index.js"]


def test_stubs_and_declarations_rank_below_code_unless_the_request_is_about_types(
    tmp_path: Path,
) -> None:
    # multidict's __init__.pyi and a package's index.d.ts state every name of the code in
    # fewer words, and took budget from the module that changes.
    code = "".join(
        f"class Dict{n}:\n    def keys(self):\n        return list(self._items{n})\n\n"
        for n in range(12)
    )
    stub = "".join(f"class Dict{n}:\n    def keys(self) -> list[str]: ...\n" for n in range(12))
    declarations = "".join(f"export function keys{n}(d: object): string[]\n" for n in range(12))
    script = "".join(
        f"export function keys{n}(d) {{\n  return Object.keys(d)\n}}\n" for n in range(12)
    )
    repo = make_repo(
        tmp_path / "r",
        {
            "pkg/_dict.py": code,
            "pkg/__init__.pyi": stub,
            "index.js": script,
            "index.d.ts": declarations,
        },
    )
    plain = _scores(repo, "Force keys to str")
    assert plain.get("pkg/__init__.pyi", 0.0) < 0.2 * plain["pkg/_dict.py"]
    assert plain.get("index.d.ts", 0.0) < 0.2 * plain["index.js"]
    typed = _scores(repo, "Fix the types of keys")
    assert typed["index.d.ts"] > 0.3 * typed["index.js"]


def test_doc_inside_a_word_or_a_name_does_not_ask_for_prose(tmp_path: Path) -> None:
    # cookie's "Fix typo in JSDoc" sent HISTORY.md and README.md whole before index.js:
    # "JSDoc" split as identifiers are holds "doc"; so do "GoDocs" and `doc_id`.
    script = "".join(
        f"/**\n * Parse the cookie header we recieve, part {n}.\n * @param {{string}} str\n */\n"
        f"function parse{n}(str) {{\n  return str.split(';')\n}}\n\n"
        for n in range(6)
    )
    readme = "# cookie\n\nParse a cookie header we recieve.\n"
    repo = make_repo(tmp_path / "r", {"index.js": script, "README.md": readme})
    for request in ("Fix typo in JSDoc", "Corrections to parse GoDocs", "Add `doc_id` to parse"):
        scores = _scores(repo, request)
        assert scores.get("README.md", 0.0) < 0.2 * scores["index.js"], request
    docs = _scores(repo, "Fix typo in the docs")
    assert docs["README.md"] > 0.3 * docs["index.js"]
