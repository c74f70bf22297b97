"""Chapter 2, RNNs and backpropagation through time: the graded questions of
``exercises/02-rnn-bptt.ipynb``.

Each reference is the package's own tested code where it has one: ``coursekit.models.RNNCell``
(one recurrent step), ``coursekit.bptt.manual_bptt`` (the chapter's gradient recursions) and
``coursekit.train.clipping.clip_grad_norm`` (clipping by global norm). Numbers are float64, so
the default tolerance is that of ``torch.testing.assert_close`` for float64.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import torch

from coursekit.grading.questions import Case, Question, register


def torch_generator(rng: random.Random) -> torch.Generator:
    """A torch generator seeded from a question's ``random.Random``, so that tensors drawn with it
    are the same in every process (the questions of Chapters 2 and 3 draw their tensors so).
    """
    return torch.Generator().manual_seed(rng.getrandbits(63))


def float64_normal(generator: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    """A float64 tensor of ``shape`` with independent N(0, scale^2) entries (Chapters 2 and 3)."""
    return torch.randn(*shape, generator=generator, dtype=torch.float64) * scale


# ch02.q1: one step of a recurrent network ----------------------------------------------------


def _rnn_step_reference(
    x: torch.Tensor, h: torch.Tensor, W_hx: torch.Tensor, W_hh: torch.Tensor, b: torch.Tensor
) -> torch.Tensor:
    """``h_t = tanh(W_hx x_t + W_hh h_{t-1} + b)`` for each row of the batch, computed by
    ``coursekit.models.RNNCell`` with ``weight_ih = W_hx``, ``weight_hh = W_hh``, ``bias_ih = b``
    and ``bias_hh = 0``.
    """
    from coursekit.models import RNNCell

    hidden_size, input_size = W_hx.shape
    cell = RNNCell(input_size, hidden_size).double()
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


register(
    Question(
        id="ch02.q1",
        title="One step of a recurrent network",
        points=1,
        answer_name="rnn_step",
        reference=_rnn_step_reference,
        make_cases=_rnn_step_cases,
    )
)


# The linear RNN of questions 2 and 5 ----------------------------------------------------------


def _linear_rnn_cases(rng: random.Random) -> Iterator[Case]:
    """Sequences ``X [T, d]``, targets ``Y [T, q]``, weights and ``h_0`` for the linear RNN
    h_t = W_hx x_t + W_hh h_{t-1}, o_t = W_qh h_t; W_hh is scaled so that the states stay small.
    """
    generator = torch_generator(rng)
    settings = [
        (5, 3, 4, 2, 0.5, "T=5, d=3, h=4, q=2"),
        (8, 2, 3, 3, 0.5, "T=8, d=2, h=3, q=3"),
        (12, 4, 5, 1, 0.5, "T=12, a longer sequence, q=1"),
        (4, 3, 4, 2, 0.0, "zero initial state h_0 = 0"),
        (1, 3, 4, 2, 0.5, "T=1: a single time step"),
        (1, 2, 3, 2, 0.0, "T=1 and h_0 = 0: W_hh never acts, its gradient is 0"),
    ]
    for steps, input_size, hidden_size, output_size, initial_scale, description in settings:
        yield Case(
            (
                float64_normal(generator, steps, input_size),
                float64_normal(generator, steps, output_size),
                float64_normal(generator, hidden_size, input_size, scale=input_size**-0.5),
                float64_normal(generator, hidden_size, hidden_size, scale=0.6 * hidden_size**-0.5),
                float64_normal(generator, output_size, hidden_size, scale=hidden_size**-0.5),
                float64_normal(generator, hidden_size, scale=initial_scale),
            ),
            description=description,
        )


# ch02.q2: the gradient of the loss with respect to W_hh, by hand -----------------------------


def _grad_W_hh_reference(
    X: torch.Tensor,
    Y: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor,
) -> torch.Tensor:
    """``dL/dW_hh = sum_t dL/dh_t h_{t-1}^T`` with the chapter's recursion
    ``dL/dh_t = W_hh^T dL/dh_{t+1} + W_qh^T dL/do_t``, by ``coursekit.bptt.manual_bptt``.
    """
    from coursekit.bptt import manual_bptt

    return manual_bptt(X, Y, W_hx, W_hh, W_qh, h0=h0).grad_W_hh


register(
    Question(
        id="ch02.q2",
        title="Backpropagation through time by hand: dL/dW_hh",
        points=2,
        answer_name="grad_W_hh",
        reference=_grad_W_hh_reference,
        make_cases=_linear_rnn_cases,
    )
)


# ch02.q3: gradient clipping by global norm ---------------------------------------------------


def _clip_reference(gradients: list[torch.Tensor], max_norm: float) -> list[torch.Tensor]:
    """``g_i <- g_i * min(1, c / (||g|| + 1e-6))`` with ``||g|| = sqrt(sum_i ||g_i||^2)``, by
    ``coursekit.train.clipping.clip_grad_norm`` applied to parameters holding these gradients.
    """
    from coursekit.train.clipping import clip_grad_norm

    parameters = [torch.nn.Parameter(torch.zeros_like(gradient)) for gradient in gradients]
    for parameter, gradient in zip(parameters, gradients, strict=True):
        parameter.grad = gradient.clone()
    clip_grad_norm(parameters, max_norm)
    return [parameter.grad for parameter in parameters]


def _clip_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)

    def gradients(shapes: list[tuple[int, ...]], norms: list[float]) -> list[torch.Tensor]:
        """Random gradients of the given shapes, rescaled to the given norms ||g_i||."""
        drawn = [float64_normal(generator, *shape) for shape in shapes]
        return [
            g * (norm / torch.linalg.vector_norm(g)) for g, norm in zip(drawn, norms, strict=True)
        ]

    yield Case(
        (gradients([(4, 3), (4,), (2, 4)], [6.0, 2.0, 3.0]), 1.0),
        description="three gradients, global norm 7 far above max_norm=1",
    )
    yield Case(
        (gradients([(5, 5), (5,)], [4.0, 3.0]), 4.5),
        description="norms 4 and 3: each below max_norm=4.5, the global norm 5 above it",
    )
    yield Case(
        (gradients([(3, 2), (3,)], [0.3, 0.4]), 10.0),
        description="global norm 0.5 below max_norm=10: nothing changes",
    )
    norm = round(rng.uniform(2.0, 8.0), 2)
    yield Case(
        (gradients([(6,)], [norm]), 1.5),
        description=f"a single gradient vector of norm {norm}, max_norm=1.5",
    )
    yield Case(
        ([torch.zeros(3, 3, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)], 1.0),
        description="all gradients are zero",
    )


register(
    Question(
        id="ch02.q3",
        title="Gradient clipping by global norm",
        points=2,
        answer_name="clip_by_global_norm",
        reference=_clip_reference,
        make_cases=_clip_cases,
    )
)


# ch02.q4: sampling with a temperature --------------------------------------------------------


def _temperature_reference(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """``p = softmax(o / tau)`` over the last dimension (the vocabulary)."""
    return torch.softmax(logits / temperature, dim=-1)


def _temperature_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    settings = [
        ((10,), 1.0, 2.0, "one vector of 10 logits, tau=1"),
        ((3, 8), 0.5, 2.0, "a batch 3x8, tau=0.5 sharpens"),
        ((2, 6), 5.0, 2.0, "a batch 2x6, tau=5 flattens"),
        ((1, 12), 0.7, 2.0, "a batch of one, tau=0.7"),
        ((4, 5), 0.01, 10.0, "tau=0.01: o/tau passes 709, where exp overflows in float64"),
    ]
    for shape, temperature, scale, description in settings:
        yield Case(
            (float64_normal(generator, *shape, scale=scale), temperature),
            description=description,
        )


register(
    Question(
        id="ch02.q4",
        title="Sampling temperature",
        points=1,
        answer_name="temperature_probabilities",
        reference=_temperature_reference,
        make_cases=_temperature_cases,
    )
)


# ch02.q5: dL/dh_t for every time step --------------------------------------------------------


def _hidden_gradients_reference(
    X: torch.Tensor,
    Y: torch.Tensor,
    W_hx: torch.Tensor,
    W_hh: torch.Tensor,
    W_qh: torch.Tensor,
    h0: torch.Tensor,
) -> torch.Tensor:
    """``dL/dh_T = W_qh^T dL/do_T`` and ``dL/dh_t = W_hh^T dL/dh_{t+1} + W_qh^T dL/do_t``, with
    ``dL/do_t = (o_t - y_t) / T``, stacked ``[T, h]``, by ``coursekit.bptt.manual_bptt``.
    """
    from coursekit.bptt import manual_bptt

    return manual_bptt(X, Y, W_hx, W_hh, W_qh, h0=h0).grad_h


register(
    Question(
        id="ch02.q5",
        title="Backpropagation through time by hand: dL/dh_t",
        points=1,
        answer_name="hidden_state_gradients",
        reference=_hidden_gradients_reference,
        make_cases=_linear_rnn_cases,
    )
)
