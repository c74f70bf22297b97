"""Chapter 3, LSTM and GRU: the graded questions of ``exercises/03-lstm-gru.ipynb``.

The cell steps are graded against ``coursekit.models.LSTMCell`` and ``GRUCell`` loaded with the
case's weights, in torch's layout (gates stacked in one weight, two biases); the parameter count
against ``coursekit.models.LSTM`` itself; pooling against ``coursekit.text.padding_mask``. Numbers
are float64, so the default tolerance is that of ``torch.testing.assert_close`` for float64.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import torch
from torch import nn

from coursekit.grading.bank.ch02 import float64_normal, torch_generator
from coursekit.grading.questions import Case, Question, register


def _cell_with_weights(
    cell_class: type[nn.Module],
    W_ih: torch.Tensor,
    W_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
) -> nn.Module:
    """A float64 ``cell_class(input_size, hidden_size)`` holding exactly the given weights."""
    hidden_size = W_hh.shape[1]
    cell = cell_class(W_ih.shape[1], hidden_size).double()
    cell.load_state_dict({"weight_ih": W_ih, "weight_hh": W_hh, "bias_ih": b_ih, "bias_hh": b_hh})
    return cell


def _cell_step_cases(rng: random.Random, gates: int, states: int) -> Iterator[Case]:
    """``x``, ``states`` state tensors (h, or h and c) and torch-layout weights, whose
    ``gates`` blocks of ``H`` rows are stacked, for one step of a cell.
    """
    generator = torch_generator(rng)
    settings = [
        (4, 3, 5, 1.0, 0.5, "batch 4, I=3, H=5"),
        (2, 6, 4, 1.0, 0.5, "batch 2, I=6, H=4"),
        (1, 4, 3, 1.0, 0.5, "a batch of one"),
        (3, 2, 6, 0.0, 0.5, "zero initial state"),
        (3, 3, 1, 1.0, 0.5, "hidden size H=1: every gate is one number"),
        (5, 3, 4, 1.0, 3.0, "large weights: the gates saturate near 0 and 1"),
    ]
    for batch_size, input_size, hidden_size, state_scale, weight_scale, description in settings:
        previous = [
            float64_normal(generator, batch_size, hidden_size, scale=state_scale)
            for _ in range(states)
        ]
        yield Case(
            (
                float64_normal(generator, batch_size, input_size),
                *previous,
                float64_normal(generator, gates * hidden_size, input_size, scale=weight_scale),
                float64_normal(generator, gates * hidden_size, hidden_size, scale=weight_scale),
                float64_normal(generator, gates * hidden_size, scale=weight_scale),
                float64_normal(generator, gates * hidden_size, scale=weight_scale),
            ),
            description=description,
        )


# ch03.q1: one LSTM step ---------------------------------------------------------------------


def _lstm_step_reference(
    x: torch.Tensor,
    h: torch.Tensor,
    c: torch.Tensor,
    W_ih: torch.Tensor,
    W_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``C_t = F_t * C_{t-1} + I_t * C~_t`` and ``H_t = O_t * tanh(C_t)``, gates in torch's order
    i, f, g, o, computed by ``coursekit.models.LSTMCell`` holding the given weights.
    """
    from coursekit.models import LSTMCell

    cell = _cell_with_weights(LSTMCell, W_ih, W_hh, b_ih, b_hh)
    with torch.no_grad():
        return cell(x, (h, c))


def _lstm_step_cases(rng: random.Random) -> Iterator[Case]:
    return _cell_step_cases(rng, gates=4, states=2)


register(
    Question(
        id="ch03.q1",
        title="One LSTM step",
        points=2,
        answer_name="lstm_step",
        reference=_lstm_step_reference,
        make_cases=_lstm_step_cases,
    )
)


# ch03.q2: one GRU step ----------------------------------------------------------------------


def _gru_step_reference(
    x: torch.Tensor,
    h: torch.Tensor,
    W_ih: torch.Tensor,
    W_hh: torch.Tensor,
    b_ih: torch.Tensor,
    b_hh: torch.Tensor,
) -> torch.Tensor:
    """``N_t = tanh(W_in x_t + b_in + R_t * (W_hn H_{t-1} + b_hn))`` and
    ``H_t = Z_t * H_{t-1} + (1 - Z_t) * N_t``, gates in torch's order r, z, n, computed by
    ``coursekit.models.GRUCell`` holding the given weights.
    """
    from coursekit.models import GRUCell

    cell = _cell_with_weights(GRUCell, W_ih, W_hh, b_ih, b_hh)
    with torch.no_grad():
        return cell(x, h)


def _gru_step_cases(rng: random.Random) -> Iterator[Case]:
    return _cell_step_cases(rng, gates=3, states=1)


register(
    Question(
        id="ch03.q2",
        title="One GRU step",
        points=2,
        answer_name="gru_step",
        reference=_gru_step_reference,
        make_cases=_gru_step_cases,
    )
)


# ch03.q3: the final state of a bidirectional network ----------------------------------------


def _bidirectional_reference(h_n: torch.Tensor) -> torch.Tensor:
    """``[H_T (forward) ; H_1 (backward)]`` of the last layer, ``[B, 2H]``, from torch's
    ``h_n [num_layers * 2, B, H]``, whose rows are ordered layer by layer, forward first
    (``h_n.view(num_layers, 2, B, H)``, as torch's documentation states).
    """
    layers_and_directions, batch_size, hidden_size = h_n.shape
    per_layer = h_n.view(layers_and_directions // 2, 2, batch_size, hidden_size)
    forward, backward = per_layer[-1]
    return torch.cat([forward, backward], dim=-1)


def _bidirectional_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    settings = [
        (1, 3, 4, "one layer, batch 3, H=4"),
        (2, 4, 3, "two layers, batch 4, H=3"),
        (3, 2, 5, "three layers, batch 2, H=5"),
        (2, 1, 6, "two layers, a batch of one"),
        (1, 5, 1, "one layer, hidden size H=1"),
    ]
    for num_layers, batch_size, hidden_size, description in settings:
        yield Case(
            (float64_normal(generator, 2 * num_layers, batch_size, hidden_size),),
            description=description,
        )


register(
    Question(
        id="ch03.q3",
        title="The final state of a bidirectional network",
        points=1,
        answer_name="bidirectional_final_state",
        reference=_bidirectional_reference,
        make_cases=_bidirectional_cases,
    )
)


# ch03.q4: mean pooling over the real time steps ---------------------------------------------


def _masked_mean_reference(outputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``m_b = (1 / n_b) sum_{t < n_b} outputs[b, t]``; steps ``t >= n_b`` are padding, as
    ``coursekit.text.padding_mask`` marks them.
    """
    from coursekit.text import padding_mask

    is_real = ~padding_mask(lengths, max_len=outputs.shape[1])
    summed = (outputs * is_real.unsqueeze(-1)).sum(dim=1)
    return summed / lengths.unsqueeze(-1).to(outputs.dtype)


#: The value at padded time steps: an answer that averages over the padding is far off.
PADDING_FILL = 1000.0


def _masked_mean_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)

    def padded_lengths(batch_size: int, steps: int) -> list[int]:
        """Random lengths in 1..T, the first equal to T as after padding to the longest."""
        return [steps] + [rng.randint(1, steps) for _ in range(batch_size - 1)]

    settings = [
        (padded_lengths(3, 6), 4, "batch 3"),
        (padded_lengths(4, 5), 2, "batch 4"),
        ([7], 3, "a batch of one"),
        ([4, 4, 4], 3, "every length equals T: no padding"),
        ([5, 3, 1], 3, "a sequence of length 1"),
    ]
    for lengths, hidden_size, description in settings:
        batch_size, steps = len(lengths), max(lengths)
        lengths_tensor = torch.tensor(lengths)
        outputs = float64_normal(generator, batch_size, steps, hidden_size)
        padding = torch.arange(steps).unsqueeze(0) >= lengths_tensor.unsqueeze(1)
        outputs = outputs.masked_fill(padding.unsqueeze(-1), PADDING_FILL)
        yield Case(
            (outputs, lengths_tensor),
            description=f"{description}, lengths {lengths}",
        )


register(
    Question(
        id="ch03.q4",
        title="Mean pooling over the real time steps",
        points=2,
        answer_name="masked_mean",
        reference=_masked_mean_reference,
        make_cases=_masked_mean_cases,
    )
)


# ch03.q5: the parameters of an LSTM ---------------------------------------------------------


def _parameter_count_reference(
    input_size: int, hidden_size: int, num_layers: int, bidirectional: bool
) -> int:
    """The number of values in the weights and biases of ``coursekit.models.LSTM`` (the same
    names and shapes as ``torch.nn.LSTM``): ``4H (I_l + H) + 8H`` per layer and direction.
    """
    from coursekit.models import LSTM

    lstm = LSTM(input_size, hidden_size, num_layers=num_layers, bidirectional=bidirectional)
    return sum(parameter.numel() for parameter in lstm.parameters())


def _parameter_count_cases(rng: random.Random) -> Iterator[Case]:
    settings = [
        (1, False, "one layer"),
        (2, False, "two layers"),
        (1, True, "one bidirectional layer"),
        (3, True, "three bidirectional layers: layers above the first read 2H inputs"),
    ]
    for num_layers, bidirectional, description in settings:
        input_size, hidden_size = rng.randint(2, 40), rng.randint(2, 40)
        yield Case(
            (input_size, hidden_size, num_layers, bidirectional),
            description=f"{description}, input_size={input_size}, hidden_size={hidden_size}",
        )
    yield Case((7, 7, 2, True), description="input_size equal to hidden_size, two bidirectional")


register(
    Question(
        id="ch03.q5",
        title="The parameters of an LSTM",
        points=1,
        answer_name="lstm_parameter_count",
        reference=_parameter_count_reference,
        make_cases=_parameter_count_cases,
    )
)
