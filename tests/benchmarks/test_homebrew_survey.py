"""benchmarks/homebrew_survey.py runs each program of a corpus folder with `allegrex run`
from a scratch memory stick and tells how it ended: a program built with our SDK exits
after drawing on the debug screen; a file that is no PSP program is refused."""

import json
from pathlib import Path


from benchmarks.homebrew_survey import main

ROOT = Path(__file__).resolve().parents[2]


def test_the_survey_tells_how_each_program_ended_and_leaves_the_corpus_alone(tmp_path, capsys):
    import allegrex.sdk as sdk
    corpus = tmp_path / "corpus"
    (corpus / "hello").mkdir(parents=True)
    sdk.build([ROOT / "psp" / "apps" / "hello" / "main.c"], corpus / "hello" / "EBOOT.PBP")
    (corpus / "not-psp").mkdir()
    (corpus / "not-psp" / "EBOOT.PBP").write_bytes(b"MZ this is not a PSP program")
    report = tmp_path / "rows.json"
    assert main([str(corpus), "-j", "1", "--max-seconds", "5", "--timeout", "300", "--json", str(report)]) == 0
    rows = {row["name"]: row for row in json.loads(report.read_text())}
    hello = rows["hello"]
    assert hello["end"] == "exit" and 0 < hello["simulated_seconds"] < 5
    assert hello["screen"] > 0 and hello["audio_seconds"] == 0 and hello["unknown_imports"] == []
    assert rows["not-psp"]["end"] == "refused" and "not a PSP executable" in rows["not-psp"]["detail"]
    assert sorted(p.name for p in (corpus / "hello").iterdir()) == ["EBOOT.PBP"]  # hello.txt went to the scratch stick
    table = capsys.readouterr().out
    assert "2 programs: 1 exit, 1 refused" in table
