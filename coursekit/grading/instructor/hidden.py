"""Hidden tests: cases the instructor keeps out of the students' notebooks.

``coursekit grade --hidden DIR`` runs every ``*.py`` file of ``DIR`` in the grader's own process.
A file adds cases to a question with a generator marked by :func:`hidden_cases`::

    from coursekit.grading import Case, generate_cases, get_question
    from coursekit.grading.instructor.hidden import hidden_cases

    @hidden_cases("ch01.q4")
    def longer_hypotheses(rng):  # corpus BLEU from (matches, totals, c, r)
        yield Case(([40, 30, 20, 10], [50, 49, 48, 47], 50, 45), description="c > r")

    @hidden_cases("ch01.q1")
    def fresh_draws(rng):  # the question's own generator with another seed
        yield from generate_cases(get_question("ch01.q1"), salt="autumn term")

Each generator gets a ``random.Random`` seeded from the question id, the file and the function
name, so the hidden cases are the same at every run. The kernel that runs a submission is never
told where ``DIR`` is, and feedback says only "hidden test 2 failed". See the book's Exercises page.
"""

from __future__ import annotations

import random
import runpy
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from coursekit.grading.questions import Case, case_seed, get_question

MARK = "__coursekit_hidden_question__"
Generator = TypeVar("Generator", bound=Callable[[random.Random], Iterable[Case]])


class HiddenTestError(ValueError):
    """A hidden-test file that cannot be used; raised before any submission is graded."""


def hidden_cases(question_id: str) -> Callable[[Generator], Generator]:
    """Mark a generator ``rng -> Case...`` as hidden cases of ``question_id``."""
    get_question(question_id)

    def mark(generator: Generator) -> Generator:
        setattr(generator, MARK, question_id)
        return generator

    return mark


def load_hidden_cases(folder: Path, question_ids: Iterable[str]) -> dict[str, list[Case]]:
    """The hidden cases of each of ``question_ids`` found in ``folder``'s Python files.

    Generators of other questions are skipped, so one folder can serve every chapter. Raises
    :class:`HiddenTestError` for a missing folder, a file that fails to run, or a generator that
    yields something other than :class:`Case`.
    """
    wanted = set(question_ids)
    found: dict[str, list[Case]] = {question_id: [] for question_id in sorted(wanted)}
    if not folder.is_dir():
        raise HiddenTestError(f"the hidden-test folder {folder} does not exist")
    for file in sorted(folder.glob("*.py")):
        for name, generator in sorted(_marked_generators(file).items()):
            question_id = getattr(generator, MARK)
            if question_id not in wanted:
                continue
            rng = random.Random(case_seed(question_id, salt=f"hidden:{file.name}:{name}"))
            cases = list(generator(rng))
            wrong = [case for case in cases if not isinstance(case, Case)]
            if wrong:
                raise HiddenTestError(
                    f"{file}: {name} yielded a {type(wrong[0]).__name__}; hidden tests must be "
                    f"coursekit.grading.Case objects"
                )
            found[question_id].extend(cases)
    return found


def _marked_generators(file: Path) -> dict[str, Callable[[random.Random], Iterable[Case]]]:
    try:
        namespace: dict[str, Any] = runpy.run_path(str(file), run_name=f"hidden_{file.stem}")
    except Exception as error:  # noqa: BLE001 - reported with the file's name, grading stops
        raise HiddenTestError(f"{file} failed to run: {type(error).__name__}: {error}") from error
    return {
        name: value
        for name, value in namespace.items()
        if callable(value) and isinstance(getattr(value, MARK, None), str)
    }
