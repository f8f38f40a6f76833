"""docs/benchmarking.md cannot drift from the tools: its console and python examples run
in order in one scratch folder (the VFPU tutorial's mechanism, tests/lab/lab_tutorial.py)
and each must print exactly the output block shown under it."""

import pytest

from tests.lab.lab_tutorial import ROOT, examples, run_example, workspace

DOC = ROOT / "docs" / "benchmarking.md"
EXAMPLES = examples(DOC.read_text())


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Every example's output, run in document order (later ones use earlier ones' builds)."""
    folder = workspace(tmp_path_factory.mktemp("benchmarking"))
    return [run_example(ex, folder) for ex in EXAMPLES]


def test_the_walk_through_goes_from_a_build_to_an_ab_comparison():
    commands = [ex.body for ex in EXAMPLES if ex.kind == "console"]
    assert commands[0].startswith("$ allegrex cc -g --strip psp/apps/saxpy/")
    for needed in ("allegrex run ", "--symbols", "--annotate saxpy_vfpu", "--by-line", "bench kernel", "--cold",
                   "--compare saxpy_vfpu2", "--callgrind", "--speedscope"):
        assert any(needed in c for c in commands), needed
    assert [ex.kind for ex in EXAMPLES].count("python") == 1
    assert DOC.read_text().count("```console") + DOC.read_text().count("```python") == len(EXAMPLES)


@pytest.mark.parametrize("k", range(len(EXAMPLES)), ids=[ex.title[:60] for ex in EXAMPLES])
def test_example_prints_what_the_doc_shows(outputs, k):
    assert outputs[k] == EXAMPLES[k].expected
