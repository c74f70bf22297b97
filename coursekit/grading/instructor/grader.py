"""Grade one submission: run its notebook in a sandboxed kernel, then call each answer there and
judge the answers here.

The notebook runs top to bottom, as "Restart and run all" would, so an answer may use anything
defined before it, and whatever cells the student split, merged, reordered or duplicated, the
function a question names (``build_vocab`` for ``ch01.q1``) is the one the notebook left defined.
Then, question by question, the grader sends the cases (visible and hidden) to the kernel, receives
plain data back (:mod:`coursekit.grading.instructor.exchange`) and compares each answer with the
reference in its own process. A cell that kills the kernel is skipped and the notebook run again in
a fresh kernel, so one ``os._exit`` costs only what depends on it. Chapter 1, Text as sequences,
has the first graded exercises; see the book's Exercises page.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from coursekit.grading.instructor.exchange import (
    ExchangeError,
    MissingAnswer,
    read_outcomes,
    write_cases,
)
from coursekit.grading.instructor.gradebook import (
    QuestionGrade,
    SubmissionGrade,
    SubmissionStatus,
)
from coursekit.grading.instructor.hidden import load_hidden_cases
from coursekit.grading.instructor.kernel import (
    GRADING_SHARE,
    CellRun,
    GradingKernel,
    KernelPool,
    KernelStartError,
    Limits,
)
from coursekit.grading.instructor.submissions import InvalidNotebook, Submission, read_notebook
from coursekit.grading.questions import Case, Question, all_questions, generate_cases
from coursekit.grading.results import CaseResult, partial_credit
from coursekit.grading.run import consistent_mistakes, delegation_reason, grade_case

MAX_KERNEL_STARTS = 3
#: A kernel that dies before it answers is started again this many times in a row before the
#: submission is given up: a start can fail for a passing reason (e.g. a port another kernel
#: took between being chosen and being bound), while too little memory fails every time.
START_ATTEMPTS = 3
STATUS_PRIORITY: tuple[SubmissionStatus, ...] = ("crashed", "timeout", "memory", "error")
CASES_FILE = "cases.pt"
ANSWERS_FILE = "answers.pt"
DRIVER = (
    "import coursekit.grading.instructor.exchange as _coursekit_exchange\n"
    "_coursekit_exchange.answer_named(globals(), {question!r}, {cases!r}, {answers!r})"
)


@dataclass(frozen=True)
class Assignment:
    """A chapter's questions (``ch01.q1`` ... for ``name="ch01"``) and the hidden cases of each."""

    name: str
    questions: tuple[Question, ...]
    hidden: dict[str, list[Case]] = field(default_factory=dict)

    @classmethod
    def load(cls, name: str, hidden_folder: Path | None = None) -> Assignment:
        """The assignment ``name`` from the question bank, with hidden cases from a folder."""
        every = all_questions()
        questions = tuple(question for question in every if question.id.split(".")[0] == name)
        if not questions:
            known = sorted({question.id.split(".")[0] for question in every})
            raise ValueError(f"no assignment {name!r}; the question bank has {', '.join(known)}")
        ids = [question.id for question in questions]
        hidden = load_hidden_cases(hidden_folder, ids) if hidden_folder is not None else {}
        return cls(name, questions, hidden)

    @property
    def question_ids(self) -> list[str]:
        """The ids of the questions, in order."""
        return [question.id for question in self.questions]


class _Record:
    """The first reason seen for each problem status while a submission is graded."""

    def __init__(self) -> None:
        self.reasons: dict[SubmissionStatus, str] = {}

    def note(self, status: SubmissionStatus, reason: str) -> None:
        self.reasons.setdefault(status, reason)

    def verdict(self) -> tuple[SubmissionStatus, str]:
        for status in STATUS_PRIORITY:
            if status in self.reasons:
                return status, self.reasons[status]
        return "ok", self.reasons.get("ok", "")


def screen(submission: Submission, assignment: Assignment) -> SubmissionGrade | None:
    """The ``invalid-notebook`` grade of a submission that cannot be run, or None when it can.

    Cheap and safe to call in any process: it only reads the file.
    """
    loaded = _load(submission, assignment)
    return loaded if isinstance(loaded, SubmissionGrade) else None


def _load(
    submission: Submission, assignment: Assignment
) -> nbformat.NotebookNode | SubmissionGrade:
    """The submission's notebook, or its ``invalid-notebook`` grade with the reason."""
    if submission.path is None:
        return _invalid(submission, assignment, submission.problem)
    try:
        return read_notebook(submission.path, assignment.question_ids)
    except InvalidNotebook as error:
        return _invalid(submission, assignment, str(error))
    except OSError as error:
        return _invalid(submission, assignment, f"the file could not be read ({error})")


def grade_submission(
    submission: Submission,
    assignment: Assignment,
    limits: Limits,
    kernels: KernelPool | None = None,
) -> SubmissionGrade:
    """Grade ``submission`` (see the module docstring); never raises on bad student input.

    ``kernels`` hands out the sandboxed kernels (a worker's pool starts each one while the
    previous submission is graded); by default each is started when needed.
    """
    notebook = _load(submission, assignment)
    if isinstance(notebook, SubmissionGrade):
        return notebook
    cells = [
        (number, cell.source)
        for number, cell in enumerate(notebook.cells, start=1)
        if cell.cell_type == "code" and cell.source.strip()
    ]
    record = _Record()
    if kernels is None:
        pool = KernelPool(limits, assignment.name, ahead=False)
        grades = _grade_in_kernels(cells, assignment, limits, record, pool)
        pool.close()
    else:
        grades = _grade_in_kernels(cells, assignment, limits, record, kernels)
    status, reason = record.verdict()
    questions = tuple(grades[question.id] for question in assignment.questions)
    return SubmissionGrade(submission.student, submission.source, status, reason, questions)


def _invalid(submission: Submission, assignment: Assignment, reason: str) -> SubmissionGrade:
    questions = tuple(
        QuestionGrade(question.id, question.title, question.points, reason="invalid notebook")
        for question in assignment.questions
    )
    return SubmissionGrade(
        submission.student, submission.source, "invalid-notebook", reason, questions
    )


def _grade_in_kernels(
    cells: list[tuple[int, str]],
    assignment: Assignment,
    limits: Limits,
    record: _Record,
    kernels: KernelPool,
) -> dict[str, QuestionGrade]:
    """Run the cells and grade the questions, starting a fresh kernel after each kernel death
    and after a kernel that died before it answered."""
    deadline = time.monotonic() + limits.timeout
    cells_deadline = deadline - limits.timeout * GRADING_SHARE
    pending = list(assignment.questions)
    skipped: set[int] = set()
    grades: dict[str, QuestionGrade] = {}
    unfinished = "the notebook could not be run to the end"
    kernels_started = failed_starts = 0
    while kernels_started < MAX_KERNEL_STARTS and failed_starts < START_ATTEMPTS:
        if not pending or time.monotonic() >= deadline:
            break
        try:
            with kernels.take(deadline) as kernel:
                failed_starts = 0
                kernels_started += 1
                died_at = _run_cells(kernel, cells, skipped, limits, cells_deadline, record)
                if died_at is not None:
                    skipped.add(died_at)
                    continue
                while pending and time.monotonic() < deadline:
                    question = pending.pop(0)
                    grade, kernel_died = _grade_question(
                        kernel, question, assignment, limits, record
                    )
                    grades[question.id] = grade
                    if kernel_died:
                        break
        except KernelStartError as error:
            failed_starts += 1
            start_error = str(error)
    if failed_starts == START_ATTEMPTS:
        unfinished = (
            f"the kernel could not start ({start_error}); is --memory {limits.memory_mb} enough?"
        )
        record.note("crashed", unfinished)
    if pending and time.monotonic() >= deadline:
        unfinished = f"the submission ran past the {limits.timeout:g} s limit"
        record.note("timeout", unfinished)
    for question in pending:
        grades[question.id] = QuestionGrade(
            question.id, question.title, question.points, reason=f"not graded: {unfinished}"
        )
    return grades


def _run_cells(
    kernel: GradingKernel,
    cells: list[tuple[int, str]],
    skipped: set[int],
    limits: Limits,
    deadline: float,
    record: _Record,
) -> int | None:
    """Run the notebook's code cells until ``deadline``; the number of the cell that killed the
    kernel, or None. A cell stopped at its limit leaves every definition made before it in the
    kernel, so the answers are graded all the same."""
    for number, source in cells:
        if number in skipped:
            continue
        if time.monotonic() >= deadline:
            record.note("timeout", f"the cells from cell {number} on were not run: time was up")
            return None
        where = f"cell {number} ({_first_line(source)})"
        run = kernel.run(source, deadline)
        if run.outcome == "dead":
            status, reason = _death(kernel, limits, f"{where} stopped the kernel")
            record.note(status, f"{reason}; the notebook was run again without it")
            return number
        _note_cell_problem(run, where, limits, record)
    return None


def _note_cell_problem(run: CellRun, where: str, limits: Limits, record: _Record) -> None:
    if run.outcome == "timeout":
        record.note(
            "timeout", f"{where} ran past the {limits.cell_timeout:g} s limit and was stopped"
        )
    elif run.outcome == "overflow":
        kilobytes = limits.max_output_bytes // 1000
        record.note("error", f"{where} printed more than {kilobytes} kB and was stopped")
    elif run.outcome == "error" and run.out_of_memory:
        record.note("memory", f"{where} ran out of memory ({run.describe()})")
    elif run.outcome == "error":
        record.note("error", f"{where} raised {run.describe()}")


def _death(kernel: GradingKernel, limits: Limits, what: str) -> tuple[SubmissionStatus, str]:
    """The status and reason for a dead kernel: a timeout when the grader or the CPU limit
    killed it, a crash otherwise."""
    if kernel.killed_by_grader:
        return "timeout", f"{what}: it ran past the time limit and ignored the interrupt"
    ending = kernel.exit_description()
    if ending == "signal SIGXCPU":
        return "timeout", f"{what}: it used more than {limits.timeout:g} s of CPU time"
    return "crashed", f"{what} ({ending})"


def _grade_question(
    kernel: GradingKernel,
    question: Question,
    assignment: Assignment,
    limits: Limits,
    record: _Record,
) -> tuple[QuestionGrade, bool]:
    """Call the question's function on every case in the kernel and judge the answers here;
    also say whether the kernel died."""
    visible = generate_cases(question)
    hidden = assignment.hidden.get(question.id, [])
    cases = [*visible, *hidden]
    work = kernel.work
    answers = work / ANSWERS_FILE
    answers.unlink(missing_ok=True)
    write_cases(cases, work / CASES_FILE)
    name = question.answer_name
    kernel.forget_delegations()
    run = kernel.run(DRIVER.format(question=question.id, cases=CASES_FILE, answers=ANSWERS_FILE))
    delegated_to = kernel.delegations().get(question.id)
    (work / CASES_FILE).unlink(missing_ok=True)

    def ungraded(reason: str) -> QuestionGrade:
        return QuestionGrade(question.id, question.title, question.points, reason=reason)

    if run.outcome == "dead":
        status, reason = _death(kernel, limits, f"calling {name} stopped the kernel")
        record.note(status, f"{question.id}: {reason}")
        return ungraded(f"{status}: {reason}"), True
    if run.outcome == "timeout":
        reason = f"{name} ran past the {limits.cell_timeout:g} s limit"
        record.note("timeout", f"{question.id}: {reason}")
        return ungraded(f"timeout: {reason}"), kernel.killed_by_grader
    try:
        outcomes = read_outcomes(answers, len(cases))
    except MissingAnswer as missing:
        return ungraded(f"missing: {missing}"), False
    except ExchangeError as error:
        problem = run.describe() if run.outcome == "error" else str(error)
        record.note("error", f"{question.id}: calling {name} failed ({problem})")
        return ungraded(f"error: calling {name} failed ({problem})"), False
    finally:
        answers.unlink(missing_ok=True)
    numbers = [
        index + 1 if index < len(visible) else index - len(visible) + 1
        for index in range(len(cases))
    ]
    results = consistent_mistakes(
        [
            grade_case(question, case, number, outcome)
            for case, outcome, number in zip(cases, outcomes, numbers, strict=True)
        ]
    )
    verdicts = [
        CaseResult(result.number, "", result.status, hidden=True)
        if index >= len(visible)
        else result
        for index, result in enumerate(results)
    ]
    if delegated_to is not None:
        reason = delegation_reason(name, delegated_to)
        record.note("ok", f"{question.id}: {reason}")  # the notebook ran; the answer earns 0
        return QuestionGrade(
            question.id, question.title, question.points, 0.0, reason, tuple(verdicts)
        ), False
    passed = sum(verdict.passed for verdict in verdicts)
    earned = partial_credit(question.points, passed, len(verdicts))
    return QuestionGrade(
        question.id, question.title, question.points, earned, "", tuple(verdicts)
    ), False


def _first_line(source: str) -> str:
    """The first non-empty line of a cell, shortened: how a student recognises the cell."""
    line = next((text.strip() for text in source.splitlines() if text.strip()), "")
    return f'"{line[:40]}..."' if len(line) > 40 else f'"{line}"'
