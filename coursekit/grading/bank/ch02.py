"""Chapter 2, RNNs and backpropagation through time: the graded questions of
``exercises/02-rnn-bptt.ipynb``.

Each reference is the package's own tested code: ``coursekit.models.RNNCell`` (one recurrent
step), ``coursekit.bptt.manual_bptt`` (the chapter's gradient recursions, truncated or not),
``coursekit.bptt.jacobian_product_norms`` (the norms of the Jacobian products) and
``coursekit.generate.top_p_filter`` (nucleus sampling's filter); question 3's reference is
autograd through ``coursekit.models.RNN``. Questions 1, 2 and 4 transcribe equations the chapter
prints; 3, 5 and 6 ask for a derivation it does not print, an experiment and a rule it only
names.
Numbers are float64, so the default tolerance is that of ``torch.testing.assert_close`` for
float64. The gradients are to be derived by hand: autograd is forbidden in questions 2-4.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Literal

import torch
from torch import Tensor

import coursekit.models
from coursekit.bptt import jacobian_product_norms, linear_rnn_forward, manual_bptt
from coursekit.generate import sampling_distribution, top_p_filter
from coursekit.grading.bank.draws import float64_normal, torch_generator
from coursekit.grading.questions import Case, Mistake, Question, register
from coursekit.models.recurrent.cells import rnn_step

#: What an answer that must derive a gradient by hand may not call.
AUTOGRAD = (torch.autograd.grad, torch.autograd.backward, torch.Tensor.backward, manual_bptt)


# ch02.q1: one step of a recurrent network ----------------------------------------------------


def _rnn_step_reference(
    x: torch.Tensor, h: torch.Tensor, W_hx: torch.Tensor, W_hh: torch.Tensor, b: torch.Tensor
) -> torch.Tensor:
    """``h_t = tanh(W_hx x_t + W_hh h_{t-1} + b)`` for each row of the batch, computed by
    ``coursekit.models.RNNCell`` with ``weight_ih = W_hx``, ``weight_hh = W_hh``, ``bias_ih = b``
    and ``bias_hh = 0``.
    """
    hidden_size, input_size = W_hx.shape
    cell = coursekit.models.RNNCell(input_size, hidden_size).double()
    weights = {"weight_ih": W_hx, "weight_hh": W_hh, "bias_ih": b, "bias_hh": torch.zeros_like(b)}
    cell.load_state_dict(weights)
    with torch.no_grad():
        return cell(x, h)


def _rnn_step_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    settings = [
        (4, 3, 5, 1.0, 0.5, "batch 4, d=3, h=5"),
        (2, 6, 4, 1.0, 0.5, "batch 2, d=6, h=4"),
        (1, 4, 3, 1.0, 0.5, "a batch of one"),
        (3, 2, 6, 0.0, 0.5, "zero previous state h_{t-1} = 0"),
        (5, 3, 4, 1.0, 4.0, "large weights: tanh saturates near -1 and 1"),
    ]
    for batch_size, input_size, hidden_size, state_scale, weight_scale, description in settings:
        yield Case(
            (
                float64_normal(generator, batch_size, input_size),
                float64_normal(generator, batch_size, hidden_size, scale=state_scale),
                float64_normal(generator, hidden_size, input_size, scale=weight_scale),
                float64_normal(generator, hidden_size, hidden_size, scale=weight_scale),
                float64_normal(generator, hidden_size, scale=0.5),
            ),
            description=description,
        )
    yield Case(
        (
            float64_normal(generator, 3, 4),
            float64_normal(generator, 3, 4),
            torch.zeros(4, 4, dtype=torch.float64),
            float64_normal(generator, 4, 4, scale=0.5),
            float64_normal(generator, 4, scale=0.5),
        ),
        description="batch 3, d=h=4, W_hx = 0 and W_hh not symmetric",
    )


def rnn_step_without_tanh(x: Tensor, h: Tensor, W_hx: Tensor, W_hh: Tensor, b: Tensor) -> Tensor:
    """The mistake of leaving out the tanh: ``W_hx x_t + W_hh h_{t-1} + b``."""
    return x @ W_hx.T + h @ W_hh.T + b


register(
    Question(
        id="ch02.q1",
        title="One step of a recurrent network",
        points=1,
        answer_name="rnn_step",
        reference=_rnn_step_reference,
        make_cases=_rnn_step_cases,
        forbidden=(torch.nn.RNNCell.forward, coursekit.models.RNNCell.forward, rnn_step),
        mistakes=(
            Mistake(
                "tanh is left out: h_t = tanh(W_hx x_t + W_hh h_{t-1} + b)",
                rnn_step_without_tanh,
            ),
            Mistake(
                "h_{t-1} is multiplied by W_hh, not W_hh^T: with one state a row, the step is "
                "tanh(x W_hx^T + h W_hh^T + b)",
                lambda x, h, W_hx, W_hh, b: _rnn_step_reference(x, h, W_hx, W_hh.T, b),
            ),
        ),
    )
)


# The recurrent networks of questions 2-4 --------------------------------------------------------

#: (T, d, h, q, scale of h_0, what the case exercises); most cases start from h_0 != 0.
RNN_SETTINGS = [
    (5, 3, 4, 2, 1.0, "T=5, d=3, h=4, q=2, h_0 != 0"),
    (8, 2, 3, 3, 1.0, "T=8, d=2, h=3, q=3, h_0 != 0"),
    (12, 4, 5, 1, 1.0, "T=12, a longer sequence, q=1, h_0 != 0"),
    (6, 3, 4, 2, 0.0, "zero initial state h_0 = 0"),
    (1, 3, 4, 2, 1.0, "T=1: a single time step from h_0 != 0"),
    (10, 3, 6, 2, 2.0, "T=10, a large h_0"),
]


def _rnn_arguments(
    generator: torch.Generator, steps: int, d: int, h: int, q: int, initial_scale: float
) -> tuple[torch.Tensor, ...]:
    """``X [T, d]``, ``Y [T, q]``, ``W_hx``, ``W_hh``, ``W_qh`` and ``h_0`` of the linear RNN
    h_t = W_hx x_t + W_hh h_{t-1} (questions 2 and 4) or the tanh RNN h_t = tanh(W_hx x_t +
    W_hh h_{t-1}) (question 3), with o_t = W_qh h_t; W_hh is scaled so that the states stay small.
    """
    return (
        float64_normal(generator, steps, d),
        float64_normal(generator, steps, q),
        float64_normal(generator, h, d, scale=d**-0.5),
        float64_normal(generator, h, h, scale=0.6 * h**-0.5),
        float64_normal(generator, q, h, scale=h**-0.5),
        float64_normal(generator, h, scale=initial_scale),
    )


def _rnn_cases(rng: random.Random) -> Iterator[Case]:
    """The cases of questions 2 and 3, described by their sizes and initial state."""
    generator = torch_generator(rng)
    for steps, d, h, q, initial_scale, description in RNN_SETTINGS:
        arguments = _rnn_arguments(generator, steps, d, h, q, initial_scale)
        yield Case(arguments, description=description)


def _from_zero_state(gradient: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The mistake of starting the forward pass from zeros instead of the given ``h_0``."""

    def answer(
        X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor
    ) -> Tensor:
        return gradient(X, Y, W_hx, W_hh, W_qh, torch.zeros_like(h0))

    return answer


# ch02.q2: dL/dh_t for every time step --------------------------------------------------------


def _hidden_gradients_reference(
    X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor
) -> Tensor:
    """``dL/dh_T = W_qh^T dL/do_T`` and ``dL/dh_t = W_hh^T dL/dh_{t+1} + W_qh^T dL/do_t``, with
    ``dL/do_t = (o_t - y_t) / T``, stacked ``[T, h]``, by ``coursekit.bptt.manual_bptt``.
    """
    return manual_bptt(X, Y, W_hx, W_hh, W_qh, h0=h0).grad_h


def _hidden_gradients_without_recursion(
    X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor
) -> Tensor:
    """The mistake of leaving out ``W_hh^T dL/dh_{t+1}``: truncation after every step."""
    return manual_bptt(X, Y, W_hx, W_hh, W_qh, h0=h0, truncation=1).grad_h


def _hidden_gradients_without_mean(
    X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor
) -> Tensor:
    """The mistake of ``dL/do_t = o_t - y_t``: the loss summed, not averaged, over time."""
    return X.shape[0] * _hidden_gradients_reference(X, Y, W_hx, W_hh, W_qh, h0)


FROM_ZERO_STATE = (
    "the forward pass starts from zeros, not from the given h_0 (h_1 = W_hx x_1 + W_hh h_0)"
)

register(
    Question(
        id="ch02.q2",
        title="Backpropagation through time by hand: dL/dh_t",
        points=2,
        answer_name="hidden_state_gradients",
        reference=_hidden_gradients_reference,
        make_cases=_rnn_cases,
        forbidden=AUTOGRAD,
        mistakes=(
            Mistake(FROM_ZERO_STATE, _from_zero_state(_hidden_gradients_reference)),
            Mistake(
                "dL/dh_t lacks the term W_hh^T dL/dh_{t+1} carried back from the later steps",
                _hidden_gradients_without_recursion,
            ),
            Mistake("dL/do_t lacks the 1/T of the mean over time", _hidden_gradients_without_mean),
        ),
    )
)


# ch02.q3: dL/dW_hh of the tanh RNN, derived by hand ------------------------------------------


def _tanh_rnn_grad_W_hh_reference(
    X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor
) -> Tensor:
    """``dL/dW_hh`` of ``h_t = tanh(W_hx x_t + W_hh h_{t-1})``, ``o_t = W_qh h_t`` and the
    chapter's loss ``L = (1/T) sum_t 1/2 ||o_t - y_t||^2``: autograd through
    ``coursekit.models.RNN`` (no biases) from the state ``h_0``.
    """
    hidden_size, input_size = W_hx.shape
    rnn = coursekit.models.RNN(input_size, hidden_size, bias=False).double()
    rnn.load_state_dict({"weight_ih_l0": W_hx, "weight_hh_l0": W_hh})
    states, _ = rnn(X.unsqueeze(1), h0.view(1, 1, -1))  # [T, 1, h]
    outputs = states.squeeze(1) @ W_qh.T
    loss = 0.5 * ((outputs - Y) ** 2).sum() / X.shape[0]
    (gradient,) = torch.autograd.grad(loss, [rnn.get_parameter("weight_hh_l0")])
    return gradient


TanhSlope = Literal["current", "previous", "none", "carried"]


def tanh_rnn_gradient_with(
    slope: TanhSlope = "current", current_state: bool = False
) -> Callable[..., Tensor]:
    """``dL/dW_hh = sum_t delta_t h_{t-1}^T`` of the tanh RNN, with ``delta_t = (1 - h_t^2) *
    dL/dh_t``, by hand, and a classic mistake or none: tanh' taken at ``h_{t-1}``
    (``slope="previous"``), left out (``"none"``) or left out of the sum only (``"carried"``), or
    ``h_t`` in place of ``h_{t-1}`` (``current_state``)."""

    def answer(
        X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor
    ) -> Tensor:
        states = [h0]
        for x in X:
            states.append(torch.tanh(W_hx @ x + W_hh @ states[-1]))
        gradient, delta_after = torch.zeros_like(W_hh), torch.zeros_like(h0)
        for t in range(X.shape[0], 0, -1):
            error = W_qh.T @ (W_qh @ states[t] - Y[t - 1]) / X.shape[0]
            grad_h = W_hh.T @ delta_after + error
            derivative = 1 - states[t - 1 if slope == "previous" else t] ** 2
            delta = grad_h if slope == "none" else derivative * grad_h
            summed = grad_h if slope == "carried" else delta
            gradient += torch.outer(summed, states[t] if current_state else states[t - 1])
            delta_after = delta
        return gradient

    return answer


register(
    Question(
        id="ch02.q3",
        title="Backpropagation through time by hand: dL/dW_hh of the tanh RNN",
        points=2,
        answer_name="tanh_grad_W_hh",
        reference=_tanh_rnn_grad_W_hh_reference,
        make_cases=_rnn_cases,
        forbidden=AUTOGRAD,
        mistakes=(
            Mistake(
                "tanh' is left out: the recursion and the sum need dL/da_t = (1 - h_t^2) * dL/dh_t",
                tanh_rnn_gradient_with(slope="none"),
            ),
            Mistake(
                "tanh' is left out of the sum over t, though the recursion carries it",
                tanh_rnn_gradient_with(slope="carried"),
            ),
            Mistake(
                "tanh' is taken at h_{t-1}; h_t = tanh(a_t), so it is 1 - h_t^2",
                tanh_rnn_gradient_with(slope="previous"),
            ),
            Mistake(
                "the sum pairs dL/da_t with h_t; W_hh multiplies h_{t-1}",
                tanh_rnn_gradient_with(current_state=True),
            ),
            Mistake(FROM_ZERO_STATE, _from_zero_state(_tanh_rnn_grad_W_hh_reference)),
        ),
    )
)


# ch02.q4: truncated backpropagation through time ---------------------------------------------


def _truncated_reference(
    X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor, k: int
) -> Tensor:
    """``dL/dW_hh`` of truncated BPTT: the recursion drops ``W_hh^T dL/dh_{t+1}`` whenever ``t``
    is a multiple of ``k`` (the state is detached after steps ``k, 2k, ...``), by
    ``coursekit.bptt.manual_bptt(..., truncation=k)``.
    """
    return manual_bptt(X, Y, W_hx, W_hh, W_qh, h0=h0, truncation=k).grad_W_hh


#: (T, k, what the case exercises)
TRUNCATION_SETTINGS = [
    (6, 1, "k=1, T=6"),
    (9, 2, "k=2 does not divide T=9"),
    (10, 3, "k=3 does not divide T=10"),
    (10, 4, "k=4 does not divide T=10"),
    (12, 5, "k=5 does not divide T=12"),
    (7, 7, "k=T=7"),
    (5, 9, "k=9 > T=5"),
]


def _truncated_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for steps, k, description in TRUNCATION_SETTINGS:
        arguments = _rnn_arguments(generator, steps, 3, 4, 2, 1.0)
        yield Case((*arguments, k), description=f"{description}; h_0 != 0")


def _truncated_in_chunks(
    first_chunk: Callable[[int, int], int], restart: bool = False
) -> Callable[..., Tensor]:
    """Truncated BPTT whose first chunk holds ``first_chunk(T, k)`` steps and the others ``k``:
    the sum over the chunks of the reference's full-BPTT gradient on each chunk, weighted by
    its share of the mean over time. ``first_chunk = k`` is the reference; another length, or
    each chunk after the first started from zeros (``restart``), is a classic mistake."""

    def answer(
        X: Tensor, Y: Tensor, W_hx: Tensor, W_hh: Tensor, W_qh: Tensor, h0: Tensor, k: int
    ) -> Tensor:
        steps = X.shape[0]
        states, _ = linear_rnn_forward(X, W_hx, W_hh, W_qh, h0)
        starts = [0, *range(min(first_chunk(steps, k), steps), steps, k)]
        gradient = torch.zeros_like(W_hh)
        for start, stop in zip(starts, [*starts[1:], steps], strict=True):
            state = h0 if start == 0 else states[start - 1]
            if restart and start > 0:
                state = torch.zeros_like(h0)
            chunk = (X[start:stop], Y[start:stop], W_hx, W_hh, W_qh, state, stop - start)
            gradient += (stop - start) / steps * _truncated_reference(*chunk)
        return gradient

    return answer


register(
    Question(
        id="ch02.q4",
        title="Truncated backpropagation through time: dL/dW_hh",
        points=2,
        answer_name="truncated_grad_W_hh",
        reference=_truncated_reference,
        make_cases=_truncated_cases,
        forbidden=AUTOGRAD,
        mistakes=(
            Mistake(
                "k is ignored (full BPTT): the state is detached after steps k, 2k, ...",
                _truncated_in_chunks(lambda steps, k: steps),
            ),
            Mistake(
                "the state is detached after steps 1, k + 1, 2k + 1, ...; with t counted from "
                "1 it is detached after steps k, 2k, ...",
                _truncated_in_chunks(lambda steps, k: 1),
            ),
            Mistake(
                "the chunks are counted from the end of the sequence; they start at t = 1, so "
                "the last one is short when k does not divide T",
                _truncated_in_chunks(lambda steps, k: steps % k or k),
            ),
            Mistake(
                "each chunk starts from h = 0; truncation stops the gradient, while the forward "
                "pass carries the state on",
                _truncated_in_chunks(lambda steps, k: k, restart=True),
            ),
        ),
    )
)


# ch02.q5: the critical scale of the recurrent weights (an experiment) -------------------------


def _carried_norm(W: torch.Tensor, steps: int, scale: float) -> float:
    """``||((scale W)^T)^steps||_2``: how much the linear RNN with recurrent weights ``scale W``
    amplifies a gradient carried back ``steps`` steps (``jacobian_product_norms``' last norm)."""
    return float(jacobian_product_norms(scale * W, steps + 1)[-1])


def _critical_scale_reference(W: torch.Tensor, steps: int) -> float:
    """The scale ``c`` with ``||((c W)^T)^K||_2 = 1`` (gradients carried back ``K`` steps neither
    vanish nor explode; ``K = steps``), found by bisection on
    ``coursekit.bptt.jacobian_product_norms``.

    The norm grows with ``c``; the answer lies in ``[1 / ||W||_2, 1 / rho(W)]`` because
    ``rho(W)^K <= ||W^K||_2 <= ||W||_2^K``. Bisection stops at a relative width of 1e-10.
    """
    low = 1 / float(torch.linalg.matrix_norm(W, ord=2))
    high = 1 / float(torch.linalg.eigvals(W).abs().max())
    while high - low > 1e-10 * high:
        middle = (low + high) / 2
        low, high = (low, middle) if _carried_norm(W, steps, middle) >= 1 else (middle, high)
    return (low + high) / 2


def _non_normal_matrix(generator: torch.Generator, size: int, shear: float) -> torch.Tensor:
    """``Q (diag(lambda) + shear * N) Q^T`` with ``Q`` a random rotation, eigenvalues ``lambda``
    uniform in (-1, 1) and ``N`` strictly upper triangular: a non-normal matrix, whose powers
    grow for a while before they decay like ``rho^k``."""
    rotation, _ = torch.linalg.qr(float64_normal(generator, size, size))
    eigenvalues = torch.rand(size, generator=generator, dtype=torch.float64) * 2 - 1
    upper = float64_normal(generator, size, size).triu(1) * shear
    return rotation @ (torch.diag(eigenvalues) + upper) @ rotation.T


#: (h, K, shear (None for a Gaussian matrix), what the case exercises)
CRITICAL_SCALE_SETTINGS = [
    (4, 1, 0.5, "K=1, a 4x4 non-normal W"),
    (3, 2, 1.0, "K=2, a 3x3 non-normal W"),
    (6, 5, 0.6, "K=5, a 6x6 non-normal W"),
    (8, 10, None, "K=10, an 8x8 Gaussian W"),
    (5, 30, 0.5, "K=30, a 5x5 non-normal W"),
    (6, 200, 0.4, "K=200, a 6x6 non-normal W"),
]


def _critical_scale_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for size, steps, shear, description in CRITICAL_SCALE_SETTINGS:
        if shear is None:
            W = float64_normal(generator, size, size, scale=size**-0.5)
        else:
            W = _non_normal_matrix(generator, size, shear)
        yield Case((W, steps), description=description, rtol=1e-3, atol=0.0)


def _inverse_spectral_radius(W: torch.Tensor, steps: int) -> float:
    """The mistake of ``c = 1 / rho(W)``, the limit of the critical scale as ``K`` grows."""
    return 1 / float(torch.linalg.eigvals(W).abs().max())


register(
    Question(
        id="ch02.q5",
        title="The critical scale of the recurrent weights",
        points=2,
        answer_name="critical_scale",
        reference=_critical_scale_reference,
        make_cases=_critical_scale_cases,
        mistakes=(
            Mistake(
                "c = 1 / rho(W) is only the limit as K grows; the scale asked for makes "
                "||((c W)^T)^K||_2 = 1 for this K",
                _inverse_spectral_radius,
            ),
            Mistake(
                "c = 1 / ||W||_2 holds for K = 1 only; for larger K, ||W^K||_2 is not ||W||_2^K",
                lambda W, steps: _critical_scale_reference(W, 1),
            ),
            Mistake(
                "the scale is that of K - 1 steps; a gradient carried back K steps meets (W^T)^K",
                lambda W, steps: _critical_scale_reference(W, max(steps - 1, 1)),
            ),
        ),
    )
)


# ch02.q6: top-p (nucleus) filtering ----------------------------------------------------------


def _nucleus_reference(logits: torch.Tensor, p: float) -> torch.Tensor:
    """Keep the smallest set of most probable tokens whose probabilities reach ``p``; the other
    logits become ``-inf``. By ``coursekit.generate.top_p_filter``."""
    return top_p_filter(logits, p)


def _logits_of(probabilities: list[list[float]]) -> torch.Tensor:
    """Logits ``log q`` of the given distributions, shifted by a constant per row (a softmax
    does not see the shift, an answer that forgets the softmax does)."""
    logits = torch.tensor(probabilities, dtype=torch.float64).log()
    return logits + torch.arange(len(probabilities), dtype=torch.float64).unsqueeze(1) + 1.0


#: Ties wholly inside or wholly outside the nucleus of p = 0.5: the first row keeps both 0.3,
#: the second keeps 0.6 alone and drops both 0.15.
TIED = [[0.1, 0.3, 0.2, 0.3, 0.1], [0.15, 0.05, 0.15, 0.6, 0.05]]
#: The token that takes the mass past p is kept: p = 0.6 keeps 0.5 and 0.3, drops 0.2.
CROSSING = [[0.2, 0.5, 0.3], [0.3, 0.2, 0.5]]


def _nucleus_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for batch_size, size, p in [(3, 10, 0.9), (4, 8, 0.5), (1, 20, 0.75)]:
        yield Case(
            (float64_normal(generator, batch_size, size, scale=2.0), p),
            description=f"batch {batch_size}x{size}, p={p}",
        )
    yield Case(
        (_logits_of(CROSSING), 0.6),
        description="batch 2x3, p=0.6, probabilities 0.2, 0.5, 0.3 and 0.3, 0.2, 0.5",
    )
    yield Case((_logits_of(TIED), 0.5), description="batch 2x5, p=0.5, tied probabilities")
    yield Case(
        (float64_normal(generator, 3, 6, scale=2.0), 1.0),
        description="batch 3x6, p=1",
    )
    yield Case(
        (float64_normal(generator, 4, 7, scale=2.0), 1e-6),
        description="batch 4x7, p=1e-6",
    )


def nucleus_filter_with(rule: str) -> Callable[..., Tensor]:
    """A top-p filter with one mistake: the token that crosses p dropped (``rule="drops the
    crossing token"``), the probabilities summed over the whole batch (``"whole batch"``), or
    the rule applied to the logits (``"logits"``)."""

    def answer(logits: Tensor, p: float) -> Tensor:
        scores = logits.flatten().unsqueeze(0) if rule == "whole batch" else logits
        weights = scores if rule == "logits" else torch.softmax(scores, dim=-1)
        ordered, order = weights.sort(dim=-1, descending=True)
        if rule == "drops the crossing token":
            keep_sorted = ordered.cumsum(dim=-1) <= p
        else:
            keep_sorted = ordered.cumsum(dim=-1) - ordered < p
            keep_sorted[..., 0] = True
        keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
        return scores.masked_fill(~keep, float("-inf")).view_as(logits)

    return answer


register(
    Question(
        id="ch02.q6",
        title="Top-p (nucleus) filtering",
        points=1,
        answer_name="nucleus_filter",
        reference=_nucleus_reference,
        make_cases=_nucleus_cases,
        forbidden=(top_p_filter, sampling_distribution),
        mistakes=(
            Mistake(
                "the token that takes the mass past p is dropped; the nucleus is the smallest "
                "set whose mass reaches p, so it keeps that token",
                nucleus_filter_with("drops the crossing token"),
            ),
            Mistake(
                "the probabilities are taken over the whole batch; each row is its own "
                "distribution (softmax over the last axis)",
                nucleus_filter_with("whole batch"),
            ),
            Mistake(
                "the mass is summed over the logits; sum the probabilities, softmax(logits)",
                nucleus_filter_with("logits"),
            ),
            Mistake(
                "the logits come back in sorted order; each stays at its token's position",
                lambda logits, p: _nucleus_reference(logits, p).sort(dim=-1, descending=True)[0],
            ),
        ),
    )
)
