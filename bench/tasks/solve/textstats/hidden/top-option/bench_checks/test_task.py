import textstats
from bench_checks.behaviour import check_behaviour

TEXT = "alpha " * 5 + "beta " * 4 + "gamma " * 3 + "delta " * 2 + "epsilon."


def common_section(out):
    lines = out.splitlines()
    start = lines.index("Most common words:")
    return [line.split()[0] for line in lines[start + 1:] if line.strip()]


def test_top_option(tmp_path, capsys):
    path = tmp_path / "words.txt"
    path.write_text(TEXT, encoding="utf-8")
    assert textstats.main(["--top", "2", str(path)]) == 0
    assert common_section(capsys.readouterr().out) == ["alpha", "beta"]
    assert textstats.main([str(path), "--top", "4"]) == 0
    assert common_section(capsys.readouterr().out) == ["alpha", "beta", "gamma", "delta"]


def test_default_is_ten(tmp_path, capsys):
    path = tmp_path / "many.txt"
    names = ["w" + chr(ord("a") + i) * 3 for i in range(12)]
    path.write_text(" ".join(names), encoding="utf-8")
    assert textstats.main([str(path)]) == 0
    assert len(common_section(capsys.readouterr().out)) == 10


def test_behaviour_unchanged():
    check_behaviour()
