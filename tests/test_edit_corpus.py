"""gpt-engineer's real improve-mode replies: each case ends as the corpora README says."""

from __future__ import annotations

import pytest

from git_gpte.edit import apply_reply, parse_reply
from tests.conftest import SHARED, run_gpte
from tests.helpers.gitrepo import make_repo

CASES = SHARED / "corpora" / "gpte-improve"
pytestmark = pytest.mark.skipif(not CASES.exists(), reason="shared corpora absent")

FILES = {
    "apps_benchmark_6": "main.py",
    "apps_benchmark_6_v2": "main.py",
    "controller": "controller.py",
    "create_two_new_files": "main.py",
    "simple_calculator": "calculator.py",
    "task_master": "taskmaster.py",
    "temperature_converter": "temperatureconverter.py",
    "theo_case": "dockerfile",
    "vgvishesh_example": "src/components/SocialLinks.tsx",
    "vgvishesh_example_2": "src/App.tsx",
    "wheaties_example": "VMClonetest.ps1",
    "zbf_yml_missing": "src/main/resources/application.yml",
}


def case(name: str):  # type: ignore[no-untyped-def]
    code = (CASES / f"{name}_code").read_text(encoding="utf-8")
    reply = (CASES / f"{name}_chat").read_text(encoding="utf-8")
    path = FILES[name]
    return code, apply_reply({path: code}, parse_reply(reply), known_paths=[path])


def test_apps_benchmark_6_new_file_then_edit() -> None:
    _, r = case("apps_benchmark_6")
    text = r.files["main.py"]
    assert text is not None and not r.refused
    assert text.count("# Implementation will be added here") == 1
    assert "    pass\n" not in text and text.index("max_damage") < text.index("def main")


def test_apps_benchmark_6_v2_no_duplicated_comment() -> None:
    _, r = case("apps_benchmark_6_v2")
    text = r.files["main.py"] or ""
    assert (
        text.count("# Implementation will be added here") == 1 and "return blows_required" in text
    )


def test_controller_eight_blank_lines_for_six() -> None:
    _, r = case("controller")
    text = r.files["controller.py"] or ""
    assert not r.refused and "goring comment" not in text and "self.next_move = None" in text


def test_create_two_new_files_holds_only_code() -> None:
    _, r = case("create_two_new_files")
    assert set(r.files) == {"service_history_evaluator.py", "main.py"}
    assert (r.files["main.py"] or "").startswith("import sys\n")
    assert "```" not in "".join(t or "" for t in r.files.values())


def test_simple_calculator_no_duplicated_def_and_main_created() -> None:
    code, r = case("simple_calculator")
    assert "main.py" in r.files
    text = r.files.get("calculator.py") or code
    assert text.count("def power") == 1


def test_task_master_never_deletes_load_tasks() -> None:
    _, r = case("task_master")
    text = r.files["taskmaster.py"] or ""
    assert "def load_tasks_from_file" in text and "import datetime\n" in text
    for report in r.refused:
        assert report.detail
    assert "lines = file.readlines()" in text
    assert text.count("def ") == (CASES / "task_master_code").read_text().count("def ")


def test_temperature_converter_all_applied() -> None:
    _, r = case("temperature_converter")
    assert not r.refused and len(r.reports) == 9
    assert 'return f"Base Temperature: {self.base_temp} {self.scale}"' in (
        r.files["temperatureconverter.py"] or ""
    )


def test_theo_case_given_twice_no_duplication() -> None:
    _, r = case("theo_case")
    assert (r.files["dockerfile"] or "").count('CMD ["python", "run.py"]') == 1
    assert (r.files["run.py"] or "").count("import uvicorn") == 1 and not r.refused


def test_vgvishesh_example_refused_file_unchanged() -> None:
    _, r = case("vgvishesh_example")
    assert r.files == {} and len(r.refused) == 1 and r.refused[0].detail


def test_vgvishesh_example_2_applied() -> None:
    _, r = case("vgvishesh_example_2")
    text = r.files["src/App.tsx"] or ""
    assert not r.refused and "const THEME_DARK = 'dark';" in text and "toggleTheme" in text


def test_wheaties_one_line_hunks() -> None:
    code, r = case("wheaties_example")
    text = r.files["VMClonetest.ps1"] or ""
    # 29 of 30 apply; the last removes a closing brace after the file's last line, which the
    # file does not have: applying it would append a stray "}", so it is refused.
    assert r.applied_count == 29 and len(r.refused) == 1
    assert "'}'" in r.refused[0].detail
    assert text.startswith("\ufeff") and len(text.splitlines()) == len(code.splitlines())


def test_zbf_yml_missing_edits_the_new_file_without_crashing() -> None:
    _, r = case("zbf_yml_missing")
    local = r.files["src/main/resources/application-local.yml"] or ""
    assert local.startswith("spring:\n  datasource:\n    url: jdbc:h2:mem:testdb")
    assert "stage-rds-endpoint" in (r.files["src/main/resources/application.yml"] or "")
    assert any(x.path.endswith("application-local.yml") and x.hunk == 2 for x in r.reports)


def test_corrected_diff_from_missing_lines() -> None:
    expected = (CASES / "corrected_diff_from_missing_lines").read_text()
    # A file holding exactly the lines the expected (corrected) diff shows, at its line numbers.
    old_side: dict[int, str] = {}
    start = 0
    for line in expected.splitlines():
        if line.startswith("@@"):
            start = int(line.split()[1][1:].split(",")[0])
        elif line[:1] in (" ", "-") and not line.startswith("---"):
            old_side[start] = line[1:]
            start += 1
    lines = [old_side.get(i, f"filler {i}") for i in range(1, max(old_side) + 5)]
    file_text = "\n".join(lines) + "\n"
    # The LLM's diff: the corrected one without the 4 comment lines it skipped, old numbers.
    skipped = {"#", "#comment"}
    body = [ln for ln in expected.splitlines() if ln[1:] not in skipped or not ln.startswith(" ")]
    body = [
        ln.replace("@@ -12,7 +12,8 @@", "@@ -12,3 +12,4 @@").replace(
            "@@ -39,4 +40,5 @@", "@@ -35,4 +36,5 @@"
        )
        for ln in body
    ]
    reply = "```diff\n" + "\n".join(body) + "\n```\n"
    r = apply_reply({"example.txt": file_text}, parse_reply(reply), known_paths=["example.txt"])
    assert not r.refused
    assert r.corrected_diff("example.txt").strip() == expected.strip()


@pytest.mark.parametrize("name", sorted(FILES))
def test_every_case_through_git_gpte_apply(tmp_path, name: str) -> None:  # type: ignore[no-untyped-def]
    code, r = case(name)
    repo = make_repo(tmp_path / "r", {FILES[name]: code})
    proc = run_gpte("apply", str(CASES / f"{name}_chat"), cwd=repo)
    assert "Traceback" not in proc.stderr
    expected_code = 0 if not r.refused else (1 if r.applied_count else 6)
    assert proc.returncode == expected_code, proc.stdout + proc.stderr
    for path, text in r.files.items():
        target = repo / path
        assert (target.read_text(encoding="utf-8") if text is not None else None) == text
