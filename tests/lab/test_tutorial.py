"""docs/vfpu-tutorial.md cannot drift from the simulator: every example block is run
through `allegrex vfpu` and must print exactly the output block shown under it."""

import re

import pytest

from lab_tutorial import TUTORIAL, examples, run_example

TEXT = TUTORIAL.read_text()
EXAMPLES = examples(TEXT)


def test_the_tutorial_has_8_to_12_lessons_each_with_examples():
    lessons = re.findall(r"^## Lesson (\d+):", TEXT, re.M)
    assert 8 <= len(lessons) <= 12
    assert [int(n) for n in lessons] == list(range(1, len(lessons) + 1))
    assert len(EXAMPLES) >= 12
    # every example block has an output block (a lone snippet would go unchecked)
    assert TEXT.count("```vfpu") + TEXT.count("```explain") == len(EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e.title)
def test_example_prints_what_the_tutorial_shows(example):
    assert run_example(example) == example.expected
