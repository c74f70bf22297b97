"""The submissions that ``coursekit grade`` is tested on, with the grade each must get.

Every fixture is built from ``solutions/01-text.ipynb`` (or its exercise) by a small change, so the
fixtures follow the solution when it changes: ``python tests/grading/grading_fixtures.py`` writes
them to ``tests/grading/fixtures/ch01/`` and a test fails when the files there are stale. The
table :data:`EXPECTED` is the fixture matrix: submission -> status -> points (without and with
the hidden tests of ``tests/grading/fixtures/hidden/``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

from coursekit.grading import generate_cases, get_question
from coursekit.grading.instructor.assign import SOLUTION_ONLY_TAG, student_notebook
from coursekit.notebooks import normalise

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / "01-text.ipynb"
OTHER_CHAPTER = ROOT / "exercises" / "02-rnn-bptt.ipynb"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SUBMISSIONS = FIXTURES / "ch01"
HIDDEN = FIXTURES / "hidden"
FULL = {"ch01.q1": 2, "ch01.q2": 1, "ch01.q3": 1, "ch01.q4": 1, "ch01.q5": 1, "ch01.q6": 2}


@dataclass(frozen=True)
class Expected:
    """The grade a fixture must get with the hidden tests: its status, words its reason must
    contain, and the points of each question (all full marks unless listed)."""

    status: str
    reason: str = ""
    points: dict[str, float] | None = None

    def question_points(self) -> dict[str, float]:
        return {**FULL, **(self.points or {})}

    @property
    def total(self) -> float:
        return round(sum(self.question_points().values()), 2)


def solution() -> nbformat.NotebookNode:
    """The solution as a student hands it in: without the cells that only solutions have (a
    measurement tagged ``solution-only``, which ``coursekit assign`` leaves out)."""
    notebook = nbformat.read(SOLUTION, as_version=4)
    notebook.cells = [
        cell for cell in notebook.cells if SOLUTION_ONLY_TAG not in cell.metadata.get("tags", [])
    ]
    return notebook


def answer_index(notebook: nbformat.NotebookNode, question_id: str) -> int:
    return next(
        index
        for index, cell in enumerate(notebook.cells)
        if cell.metadata.get("coursekit", {}) == {"question": question_id, "role": "answer"}
    )


def with_cell(source: str, at: int | None = None) -> nbformat.NotebookNode:
    """The solution with a code cell ``source`` inserted at ``at`` (after the imports)."""
    notebook = solution()
    notebook.cells.insert(4 if at is None else at, nbformat.v4.new_code_cell(source))
    return notebook


def with_answer(question_id: str, source: str, base: nbformat.NotebookNode | None = None):
    notebook = solution() if base is None else base
    notebook.cells[answer_index(notebook, question_id)].source = source
    return notebook


def exercise() -> nbformat.NotebookNode:
    return student_notebook(solution(), "ch01")


def partial() -> nbformat.NotebookNode:
    notebook = exercise()
    index = answer_index(notebook, "ch01.q1")
    notebook.cells[index].source = solution().cells[index].source
    return notebook


def reshuffled() -> nbformat.NotebookNode:
    """Answers moved above the checks in reverse order, the q1 answer split in two cells (both
    keep its metadata, as Jupyter's split does), q2 duplicated with a wrong first copy."""
    notebook = solution()
    cells = {index: cell for index, cell in enumerate(notebook.cells)}
    q1, q2 = (cells[answer_index(notebook, question)] for question in ("ch01.q1", "ch01.q2"))
    q1_helper = copy.deepcopy(q1)
    q1_helper.source = (
        "def ranked_tokens(sentences, min_freq, specials):\n"
        "    counts = Counter(token for sentence in sentences for token in sentence)\n"
        "    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))\n"
        "    return [t for t, count in ranked if count >= min_freq and t not in specials]\n"
    )
    q1.source = (
        "def build_vocab(sentences, min_freq, specials):\n"
        "    return list(specials) + ranked_tokens(sentences, min_freq, specials)\n"
    )
    q2_wrong = copy.deepcopy(q2)
    q2_wrong.source = "def pad_and_mask(sequences, padding_value):\n    return None\n"
    for cell in (q1_helper, q2_wrong):
        cell.pop("id", None)
    role = [cell.metadata.get("coursekit", {}).get("role") for cell in notebook.cells]
    answers = [cell for cell, kind in zip(notebook.cells, role, strict=True) if kind == "answer"]
    checks = [cell for cell, kind in zip(notebook.cells, role, strict=True) if kind == "check"]
    others = [cell for cell, kind in zip(notebook.cells, role, strict=True) if kind is None]
    q3_to_q5 = list(reversed(answers[2:]))
    notebook.cells = [*others, *q3_to_q5, q2_wrong, q2, q1_helper, q1, *checks]
    return notebook


def merged() -> nbformat.NotebookNode:
    """Every answer in one cell without metadata, the answer cells deleted."""
    notebook = solution()
    answers = [cell for cell in notebook.cells if cell.metadata.get("coursekit")]
    sources = [cell.source for cell in answers if cell.metadata["coursekit"]["role"] == "answer"]
    notebook.cells = [cell for cell in notebook.cells if not cell.metadata.get("coursekit")]
    notebook.cells.append(nbformat.v4.new_code_cell("\n\n".join(sources)))
    return notebook


def missing_q3() -> nbformat.NotebookNode:
    notebook = solution()
    notebook.cells = [
        cell
        for cell in notebook.cells
        if cell.metadata.get("coursekit", {}).get("question") != "ch01.q3"
    ]
    return notebook


def subtly_wrong() -> nbformat.NotebookNode:
    """Vocabulary ties kept in first-seen order; perplexity that leaves out <unk> but not the
    padding."""
    notebook = with_answer(
        "ch01.q1",
        "def build_vocab(sentences, min_freq, specials):\n"
        "    counts = Counter(token for sentence in sentences for token in sentence)\n"
        "    words = [t for t, c in counts.most_common() if c >= min_freq and t not in specials]\n"
        "    return list(specials) + words\n",
    )
    return with_answer(
        "ch01.q5",
        "def known_token_perplexity(nll, tokens, padding_id, unk_id):\n"
        "    known = tokens != unk_id\n"
        "    return math.exp(nll[known].sum().item() / known.sum().item())\n",
        notebook,
    )


def memorised() -> nbformat.NotebookNode:
    """bleu_score as a table of the visible tests: full marks until hidden tests run."""
    question = get_question("ch01.q4")
    table = {
        (tuple(matches), tuple(totals), c, r): question.expected(case)
        for case in generate_cases(question)
        for matches, totals, c, r in [case.args]
    }
    return with_answer(
        "ch01.q4",
        f"def bleu_score(matches, totals, hypothesis_length, reference_length):\n"
        f"    key = (tuple(matches), tuple(totals), hypothesis_length, reference_length)\n"
        f"    return {table!r}.get(key, 0.5)\n",
    )


def answer_with_line(question_id: str, line: str) -> nbformat.NotebookNode:
    """The solution whose answer to ``question_id`` runs ``line`` first."""
    notebook = solution()
    cell = notebook.cells[answer_index(notebook, question_id)]
    marker = "    # BEGIN SOLUTION\n"
    cell.source = cell.source.replace(marker, f"{marker}    {line}\n", 1)
    return notebook


GRADER_ARGUMENT = '''import os


def grader_argument(flag):
    """The path given to the grader with ``flag``, found from /proc like an attacker would."""
    pid = os.getppid()
    while pid > 1:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read().decode().split("\\0")
        if flag in words:
            return os.path.join(os.readlink(f"/proc/{pid}/cwd"), words[words.index(flag) + 1])
        with open(f"/proc/{pid}/status") as handle:
            pid = int(next(line.split()[1] for line in handle if line.startswith("PPid:")))
    raise LookupError(flag)
'''

FORGER = """import math
import torch
import coursekit.grading.compare
import coursekit.grading.run


class AlwaysEqual:
    def __eq__(self, other):
        return True

    def __len__(self):
        return 0


coursekit.grading.compare.compare = lambda *args, **kwargs: None
coursekit.grading.run.grade_case = lambda *args, **kwargs: None
torch.testing.assert_close = lambda *args, **kwargs: None
torch.equal = lambda *args, **kwargs: True
math.isclose = lambda *args, **kwargs: True


def build_vocab(*args):
    return AlwaysEqual()


def pad_and_mask(*args):
    return AlwaysEqual(), AlwaysEqual()


def clipped_precision(*args):
    return AlwaysEqual()


def bleu_score(*args):
    return AlwaysEqual()


def known_token_perplexity(*args):
    return AlwaysEqual()


def bigram_perplexity(*args):
    return AlwaysEqual()
"""

PICKLER = """import os
import pickle
import coursekit.grading.instructor.exchange


class Payload:
    def __reduce__(self):
        return (os.mkdir, ("/tmp/coursekit-grade-pickle-ran",))


def forged(namespace, name, cases_path, outcomes_path):
    with open(outcomes_path, "wb") as handle:
        pickle.dump(("answers", [("value", Payload())]), handle)


coursekit.grading.instructor.exchange.answer_named = forged
"""

MEMORY_HOG = """def hog():
    chunks = []
    while True:  # zeroed pages the kernel maps lazily: the address space fills at once
        chunks.append(bytes(10**9))


hog()
"""

#: Four ways to hand ch01.q1 to the reference implementation: it must be noticed in every one.
DIRECT_CALL = """from coursekit.text import build_vocab_from_iterator


def build_vocab(sentences, min_freq, specials):
    return build_vocab_from_iterator(sentences, min_freq=min_freq, specials=specials).get_itos()
"""

ALIAS = """import coursekit.text

make_vocab = coursekit.text.build_vocab_from_iterator  # taken before any answer is graded
"""

ALIAS_CALL = """def build_vocab(sentences, min_freq, specials):
    return make_vocab(sentences, min_freq=min_freq, specials=specials).get_itos()
"""

RELOAD_CALL = """import importlib

import coursekit.text.vocab

fresh = importlib.reload(coursekit.text.vocab)


def build_vocab(sentences, min_freq, specials):
    return fresh.build_vocab_from_iterator(sentences, min_freq, specials=specials).get_itos()
"""

BANK_SOURCE_CALL = """import inspect

import coursekit.grading.bank.ch01 as bank

copied = dict(vars(bank))
exec(compile(inspect.getsource(bank._vocabulary_reference), "copied.py", "exec"), copied)
build_vocab = copied["_vocabulary_reference"]
"""

#: The kernel-side driver replaced so that every answer is its question's reference.
PATCHED_DRIVER = """import coursekit.grading.instructor.exchange
from coursekit.grading import get_question

original_answer_named = coursekit.grading.instructor.exchange.answer_named


def answer_with_the_reference(namespace, question_id, cases_path, outcomes_path):
    question = get_question(question_id)
    namespace = {**namespace, question.answer_name: question.reference}
    return original_answer_named(namespace, question_id, cases_path, outcomes_path)


coursekit.grading.instructor.exchange.answer_named = answer_with_the_reference
"""

NOISY = """import sys
import warnings

import torch

print("a debugging line on stderr", file=sys.stderr)
warnings.warn("a warning a student did not silence")
torch.tensor([1.0]).new_tensor(torch.tensor([2.0]))  # a UserWarning from torch
"""


def _text(notebook: nbformat.NotebookNode) -> str:
    """The notebook as a file, outputs cleared (a submission's outputs are never trusted) and
    cells numbered as ids, so that the file is the same at every build."""
    for index, cell in enumerate(notebook.cells):
        cell.id = f"cell-{index}"
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return json.dumps(normalise(notebook), indent=1, ensure_ascii=False) + "\n"


#: The notebooks, as builders of their text (bytes for the ones that are not text).
NOTEBOOKS: dict[str, Callable[[], str | bytes]] = {
    "correct": lambda: _text(solution()),
    "partial": lambda: _text(partial()),
    "stubs": lambda: _text(exercise()),
    "subtly-wrong": lambda: _text(subtly_wrong()),
    "memorised": lambda: _text(memorised()),
    "missing-answer": lambda: _text(missing_q3()),
    "reshuffled": lambda: _text(reshuffled()),
    "merged": lambda: _text(merged()),
    "noisy": lambda: _text(with_cell(NOISY)),
    "invalid-json": lambda: _text(solution())[:-200],
    "not-a-notebook": lambda: (
        "\\documentclass{article}\n\\begin{document}My essay\\end{document}\n"
    ),
    "empty-file": lambda: "",
    "empty-notebook": lambda: _text(nbformat.v4.new_notebook()),
    "other-assignment": lambda: OTHER_CHAPTER.read_text(encoding="utf-8"),
    "not-utf8": lambda: _text(solution()).encode("utf-8").replace(b"Counter", b"C\xf6unter", 1),
    "infinite-loop": lambda: _text(with_cell("while True:\n    pass\n")),
    "trailing-loop": lambda: _text(with_cell("while True:\n    pass\n", at=len(solution().cells))),
    "infinite-loop-in-answer": lambda: _text(answer_with_line("ch01.q4", "while True: pass")),
    "ignores-interrupt": lambda: _text(
        with_cell(
            "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass\n"
        )
    ),
    "memory-bomb": lambda: _text(with_cell(MEMORY_HOG)),
    "sys-exit": lambda: _text(with_cell("import sys\nsys.exit(1)\n")),
    "os-exit": lambda: _text(with_cell("import os\nos._exit(3)\n")),
    "os-exit-in-answer": lambda: _text(answer_with_line("ch01.q5", "import os; os._exit(1)")),
    "segfault": lambda: _text(with_cell("import faulthandler\nfaulthandler._sigsegv()\n")),
    "fork-loop": lambda: _text(with_cell("import os\nwhile True:\n    os.fork()\n")),
    "prints-gigabytes": lambda: _text(with_cell("while True:\n    print('x' * 10**6)\n")),
    "writes-gradebook": lambda: _text(
        with_cell(
            GRADER_ARGUMENT + '\nwith open(grader_argument("--out"), "w") as handle:\n'
            '    handle.write("student,total\\nwrites-gradebook,100\\n")\n'
        )
    ),
    "reads-hidden-tests": lambda: _text(
        with_cell(GRADER_ARGUMENT + '\nprint(os.listdir(grader_argument("--hidden")))\n')
    ),
    "forger": lambda: _text(with_cell(FORGER, at=len(solution().cells))),
    "pickler": lambda: _text(with_cell(PICKLER, at=len(solution().cells))),
    "delegates": lambda: _text(with_answer("ch01.q1", DIRECT_CALL)),
    "delegates-through-alias": lambda: _text(
        with_answer("ch01.q1", ALIAS_CALL, base=with_cell(ALIAS))
    ),
    "delegates-after-reload": lambda: _text(with_answer("ch01.q1", RELOAD_CALL)),
    "delegates-to-bank-source": lambda: _text(with_answer("ch01.q1", BANK_SOURCE_CALL)),
    "patched-driver": lambda: _text(with_cell(PATCHED_DRIVER, at=len(solution().cells))),
}

NOTHING = dict.fromkeys(FULL, 0.0)
INVALID = "invalid-notebook"
DELEGATED_Q1 = (
    "ch01.q1: this calls the reference implementation "
    "coursekit.text.vocab.build_vocab_from_iterator: build_vocab must compute its result itself"
)
BANK_SOURCE_Q1 = (
    "ch01.q1: this calls the reference implementation "
    "coursekit.grading.bank.ch01._vocabulary_reference: build_vocab must compute its result itself"
)

#: The fixture matrix: submission -> status -> points, with the hidden tests of ``HIDDEN``.
EXPECTED: dict[str, Expected] = {
    "correct": Expected("ok"),
    "partial": Expected("ok", points={**NOTHING, "ch01.q1": 2}),
    "stubs": Expected("ok", points=NOTHING),
    "subtly-wrong": Expected("ok", points={"ch01.q1": 0.33, "ch01.q5": 0.17}),
    "memorised": Expected("ok", points={"ch01.q4": 0.71}),
    "missing-answer": Expected("ok", points={"ch01.q3": 0}),
    "reshuffled": Expected("ok"),
    "merged": Expected("ok"),
    "noisy": Expected("ok"),
    "invalid-json": Expected(INVALID, "invalid JSON at line", NOTHING),
    "not-a-notebook": Expected(INVALID, "not a notebook", NOTHING),
    "empty-file": Expected(INVALID, "the file is empty", NOTHING),
    "empty-notebook": Expected(INVALID, "has no code", NOTHING),
    "other-assignment": Expected(INVALID, "the notebook of ch02, not of ch01", NOTHING),
    "not-utf8": Expected(INVALID, "not UTF-8", NOTHING),
    "infinite-loop": Expected("timeout", "ran past the 8 s limit and was stopped"),
    "trailing-loop": Expected("timeout", "ran past the 8 s limit and was stopped"),
    "infinite-loop-in-answer": Expected("timeout", "ran past the 8 s limit", {"ch01.q4": 0}),
    "ignores-interrupt": Expected("timeout", "ignored the interrupt; the notebook was run again"),
    "memory-bomb": Expected("memory", "ran out of memory (MemoryError)"),
    "sys-exit": Expected("error", "raised SystemExit: 1"),
    "os-exit": Expected("crashed", "stopped the kernel (exit code 3)"),
    "os-exit-in-answer": Expected("crashed", "stopped the kernel (exit code 1)", {"ch01.q5": 0}),
    "segfault": Expected("crashed", "stopped the kernel (signal SIGSEGV)"),
    "fork-loop": Expected("error", "does not allow starting processes"),
    "prints-gigabytes": Expected("error", "raised OutputLimitExceeded"),
    "writes-gradebook": Expected("error", "does not allow writing outside the submission's folder"),
    "reads-hidden-tests": Expected(
        "error", "does not allow reading outside the submission's folder"
    ),
    "forger": Expected("ok", points=NOTHING),
    "pickler": Expected("error", "could not be read (UnpicklingError)", NOTHING),
    "delegates": Expected("ok", DELEGATED_Q1, {"ch01.q1": 0}),
    "delegates-through-alias": Expected("ok", DELEGATED_Q1, {"ch01.q1": 0}),
    "delegates-after-reload": Expected("ok", DELEGATED_Q1, {"ch01.q1": 0}),
    "delegates-to-bank-source": Expected("ok", BANK_SOURCE_Q1, {"ch01.q1": 0}),
    "patched-driver": Expected("ok", BANK_SOURCE_Q1, NOTHING),
}
#: Points that differ when the hidden tests are left out.
VISIBLE_ONLY_POINTS: dict[str, dict[str, float]] = {
    "memorised": {**FULL, "ch01.q4": 1},
    "subtly-wrong": {**FULL, "ch01.q1": 0.33, "ch01.q5": 0.17},
}


def write_fixtures(folder: Path = SUBMISSIONS) -> None:
    """Write every fixture notebook to ``folder`` (``.ipynb``, except ``not-a-notebook.tex``)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, build in NOTEBOOKS.items():
        content = build()
        suffix = ".tex" if name == "not-a-notebook" else ".ipynb"
        path = folder / f"{name}{suffix}"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


if __name__ == "__main__":
    write_fixtures()
