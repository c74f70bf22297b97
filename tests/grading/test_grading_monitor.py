"""The call monitor: an answer that runs a forbidden implementation is noticed, however it
reaches it (directly, through an alias, after a reload, or from its source executed again)."""

from __future__ import annotations

import importlib
import inspect
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from coursekit.grading.monitor import CallMonitor, python_code

SOURCE = '''
def reference_sum(values):
    """The implementation a question asks the student to write."""
    return sum(value for value in values)


class Accumulator:
    def __init__(self):
        self.total = 0

    def add(self, value):
        self.total += value
        return self

    @property
    def doubled(self):
        return 2 * self.total
'''


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """A real module on disk, so that it can be reloaded and its source read."""
    (tmp_path / "forbidden_module.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("forbidden_module")
    sys.modules.pop("forbidden_module", None)


def own_sum(values: list[int]) -> int:
    total = 0
    for value in values:
        total += value
    return total


def test_an_answer_that_does_not_call_it_is_not_flagged(module: ModuleType) -> None:
    with CallMonitor([module.reference_sum]) as monitor:
        assert own_sum([1, 2, 3]) == 6
    assert monitor.called is None


def test_a_direct_call_and_an_alias_are_flagged(module: ModuleType) -> None:
    alias = module.reference_sum  # captured before the monitor starts
    for call in (lambda: module.reference_sum([1, 2]), lambda: alias([1, 2])):
        with CallMonitor([module.reference_sum]) as monitor:
            call()
        assert monitor.called == "forbidden_module.reference_sum"


def test_a_call_deep_inside_helpers_is_flagged(module: ModuleType) -> None:
    def helper(values: list[int]) -> int:
        return module.reference_sum(values) + 0

    with CallMonitor([module.reference_sum]) as monitor:
        helper([1])
    assert monitor.called == "forbidden_module.reference_sum"


def test_the_function_after_a_reload_is_flagged(module: ModuleType) -> None:
    watched = module.reference_sum
    reloaded = importlib.reload(module)
    assert reloaded.reference_sum is not watched
    with CallMonitor([watched]) as monitor:
        reloaded.reference_sum([1, 2])
    assert monitor.called == "forbidden_module.reference_sum"


def test_the_source_read_and_executed_again_is_flagged(module: ModuleType) -> None:
    namespace: dict[str, object] = {}
    exec(compile(inspect.getsource(module), "<copied>", "exec"), namespace)
    with CallMonitor([module.reference_sum]) as monitor:
        namespace["reference_sum"]([1, 2])  # type: ignore[operator]
    assert monitor.called == "forbidden_module.reference_sum"


def test_every_method_and_property_of_a_forbidden_class_is_watched(module: ModuleType) -> None:
    assert {"__init__", "add", "doubled"} <= {
        code.co_name for code in python_code(module.Accumulator)
    }
    instance = object.__new__(module.Accumulator)  # built without running __init__
    instance.total = 1
    for use in (lambda: instance.add(1), lambda: instance.doubled, module.Accumulator):
        with CallMonitor([module.Accumulator]) as monitor:
            use()
        assert monitor.called == "forbidden_module.Accumulator"


def test_a_same_named_function_with_other_code_is_not_flagged(module: ModuleType) -> None:
    namespace: dict[str, object] = {}
    exec("def reference_sum(values):\n    return len(values)\n", namespace)
    with CallMonitor([module.reference_sum]) as monitor:
        namespace["reference_sum"]([1, 2])  # type: ignore[operator]
    assert monitor.called is None


def test_a_comprehension_like_the_references_is_not_flagged(module: ModuleType) -> None:
    """The reference's ``(value for value in values)``, written again inside the student's own
    function (the same bytecode, even the same names); on Python 3.10 both are named only
    ``<genexpr>``."""

    def largest(items: list[int]) -> int:
        return max(item for item in items)

    def total(values: list[int]) -> int:
        return sum(value for value in values)

    for answer in (largest, total):
        with CallMonitor([module.reference_sum]) as monitor:
            answer([1, 3, 2])
        assert monitor.called is None


def test_the_previous_trace_function_is_put_back(module: ModuleType) -> None:
    events: list[str] = []

    def tracer(frame: object, event: str, arg: object) -> None:
        events.append(event)

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with CallMonitor([module.reference_sum]):
            own_sum([1])
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)


def test_something_without_python_code_cannot_be_forbidden() -> None:
    with pytest.raises(TypeError, match="no Python code to watch"):
        python_code(len)


def test_a_forbidden_builtin_is_flagged_when_called_and_the_profile_put_back() -> None:
    """A C function has no code to trace: the monitor sees it through a profile function."""
    previous = sys.getprofile()
    with CallMonitor([math.factorial]) as monitor:
        math.factorial(5)
    assert monitor.called is not None and "factorial" in monitor.called
    assert sys.getprofile() is previous
    with CallMonitor([math.factorial]) as monitor:
        math.comb(5, 2)
    assert monitor.called is None
