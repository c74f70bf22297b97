"""Chapter 3, LSTM and GRU: the graded questions of ``exercises/03-lstm-gru.ipynb``.

Question 1 transcribes the LSTM step the chapter prints (graded against
``coursekit.models.LSTMCell`` loaded with the case's weights, in torch's layout); the others ask
for what it describes without printing: the GRU of the original paper, the final states of a
bidirectional network read from its padded outputs, mean pooling over the real steps, the size
of ``torch.nn.LSTM`` with projections, and the half-life of an LSTM's memory. Numbers are
float64, so the default tolerance is that of ``torch.testing.assert_close`` for float64.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn

import coursekit.models
from coursekit.grading.bank.ch02 import float64_normal, torch_generator
from coursekit.grading.questions import Case, Mistake, Question, register
from coursekit.models.recurrent_cells import gru_gates, lstm_gates, lstm_step
from coursekit.text import padding_mask


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
    cell = _cell_with_weights(coursekit.models.LSTMCell, W_ih, W_hh, b_ih, b_hh)
    with torch.no_grad():
        return cell(x, (h, c))


def _lstm_step_cases(rng: random.Random) -> Iterator[Case]:
    return _cell_step_cases(rng, gates=4, states=2)


def read_in_order(
    step: Callable[..., Any], torch_order: str, read_order: str
) -> Callable[..., Any]:
    """The mistake of reading the gate blocks of ``W_ih``, ``W_hh``, ``b_ih`` and ``b_hh``,
    stacked in ``torch_order``, as if they were stacked in ``read_order``: ``step`` is given
    the blocks where the mistaken answer finds each gate."""

    def answer(x: Tensor, *states_and_weights: Tensor) -> Any:
        *states, W_ih, W_hh, b_ih, b_hh = states_and_weights
        found_at = [read_order.index(gate) for gate in torch_order]

        def as_read(stacked: Tensor) -> Tensor:
            blocks = stacked.chunk(len(torch_order))
            return torch.cat([blocks[index] for index in found_at])

        return step(x, *states, *map(as_read, (W_ih, W_hh, b_ih, b_hh)))

    return answer


def _lstm_step_with_one_bias(
    x: Tensor, h: Tensor, c: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor
) -> tuple[Tensor, Tensor]:
    """The mistake of adding only ``b_ih`` to the gates."""
    return _lstm_step_reference(x, h, c, W_ih, W_hh, b_ih, torch.zeros_like(b_hh))


register(
    Question(
        id="ch03.q1",
        title="One LSTM step",
        points=2,
        answer_name="lstm_step",
        reference=_lstm_step_reference,
        make_cases=_lstm_step_cases,
        forbidden=(
            torch.nn.LSTMCell.forward,
            torch.nn.LSTM.forward,
            coursekit.models.LSTMCell.forward,
            coursekit.models.LSTM.forward,
            lstm_step,
            lstm_gates,
        ),
        output_names=("h_new", "c_new"),
        mistakes=(
            *(
                Mistake(
                    f"the blocks are read in the order {', '.join(order)}; PyTorch stacks them "
                    "i, f, g, o",
                    read_in_order(_lstm_step_reference, "ifgo", order),
                )
                for order in ("ifog", "igfo")
            ),
            Mistake(
                "b_hh is left out: every gate adds both biases, b_ih and b_hh",
                _lstm_step_with_one_bias,
            ),
        ),
    )
)


# ch03.q2: one GRU step as in the original paper ---------------------------------------------


def _paper_gru_reference(
    x: Tensor, h: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor
) -> Tensor:
    """Cho et al. (2014): ``N_t = tanh(W_in x_t + b_in + W_hn (R_t * H_{t-1}) + b_hn)``, the reset
    gate applied before the product, and ``H_t = Z_t * H_{t-1} + (1 - Z_t) * N_t``; ``R_t`` and
    ``Z_t`` from ``coursekit.models.recurrent_cells.gru_gates`` (torch's layout r, z, n).
    """
    hidden_size = h.shape[-1]
    input_projection = F.linear(x, W_ih, b_ih)
    gates = gru_gates(input_projection, h, W_hh, b_hh)
    candidate_weight, candidate_bias = W_hh[2 * hidden_size :], b_hh[2 * hidden_size :]
    candidate = torch.tanh(
        input_projection[..., 2 * hidden_size :]
        + F.linear(gates.reset * h, candidate_weight, candidate_bias)
    )
    return gates.update * h + (1 - gates.update) * candidate


def _paper_gru_cases(rng: random.Random) -> Iterator[Case]:
    return _cell_step_cases(rng, gates=3, states=1)


def _pytorch_gru_step(
    x: Tensor, h: Tensor, W_ih: Tensor, W_hh: Tensor, b_ih: Tensor, b_hh: Tensor
) -> Tensor:
    """The mistake of PyTorch's form, ``R_t * (W_hn H_{t-1} + b_hn)``, by ``GRUCell``."""
    cell = _cell_with_weights(coursekit.models.GRUCell, W_ih, W_hh, b_ih, b_hh)
    with torch.no_grad():
        return cell(x, h)


register(
    Question(
        id="ch03.q2",
        title="One GRU step, as in the original paper",
        points=2,
        answer_name="paper_gru_step",
        reference=_paper_gru_reference,
        make_cases=_paper_gru_cases,
        mistakes=(
            Mistake(
                "the reset gate is applied after the product with W_hn, as in PyTorch's GRU; "
                "the paper resets H_{t-1} before it",
                _pytorch_gru_step,
            ),
            Mistake(
                "the blocks are read in the order z, r, n; PyTorch stacks them r, z, n",
                read_in_order(_paper_gru_reference, "rzn", "zrn"),
            ),
        ),
    )
)


# ch03.q3: the final state of a bidirectional network, from its padded outputs --------------

#: The value at padded time steps: an answer that reads the padding is far off.
PADDING_FILL = 1000.0


def _padded_outputs(
    generator: torch.Generator, lengths: list[int], steps: int, width: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Random float64 outputs ``[B, T, width]`` whose steps ``t >= n_b`` hold ``PADDING_FILL``,
    and the lengths ``n_b`` as a LongTensor ``[B]``."""
    lengths_tensor = torch.tensor(lengths)
    outputs = float64_normal(generator, len(lengths), steps, width)
    is_padding = padding_mask(lengths_tensor, max_len=steps)
    return outputs.masked_fill(is_padding.unsqueeze(-1), PADDING_FILL), lengths_tensor


def _bidirectional_reference(outputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``[H->_{n_b} ; H<-_1]`` for each sequence ``b``, ``[B, 2H]``: the forward half of the
    outputs ``[B, T, 2H]`` at the sequence's own last real step ``t = n_b - 1`` (0-based), the
    backward half at ``t = 0``, where the backward direction ends.
    """
    hidden_size = outputs.shape[-1] // 2
    rows = torch.arange(outputs.shape[0])
    forward = outputs[rows, lengths - 1, :hidden_size]
    backward = outputs[:, 0, hidden_size:]
    return torch.cat([forward, backward], dim=-1)


#: (lengths, T, H, what the case exercises); six padded batches, one without padding.
PADDED = f"padding holds {PADDING_FILL:g}"
BIDIRECTIONAL_SETTINGS = [
    ([6, 4, 2], 6, 4, PADDED),
    ([5, 5, 3, 1], 5, 2, f"a sequence of length 1: both halves at t = 0; {PADDED}"),
    ([3, 7, 5], 7, 3, f"the longest sequence not first; {PADDED}"),
    ([4, 2], 8, 2, f"padded beyond the longest sequence; {PADDED}"),
    ([2, 5, 4, 3, 5], 5, 1, PADDED),
    ([6, 3], 6, 5, PADDED),
    ([4, 4, 4], 4, 3, "no padding"),
]


def _bidirectional_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, hidden_size, about in BIDIRECTIONAL_SETTINGS:
        outputs, lengths_tensor = _padded_outputs(generator, lengths, steps, 2 * hidden_size)
        yield Case(
            (outputs, lengths_tensor),
            description=f"lengths {lengths}, T={steps}, H={hidden_size}, {about}",
        )


register(
    Question(
        id="ch03.q3",
        title="The final state of a bidirectional network, from its padded outputs",
        points=1,
        answer_name="bidirectional_final_state",
        reference=_bidirectional_reference,
        make_cases=_bidirectional_cases,
        mistakes=(
            Mistake(
                "output[:, -1] is the last step of the padded batch: the forward direction "
                "ends at the sequence's own last word, n_b - 1, and the backward one at t = 0",
                lambda outputs, lengths: outputs[:, -1],
            ),
            Mistake(
                "both halves are taken at n_b - 1: the backward direction reads the sequence "
                "from its end and finishes at t = 0",
                lambda outputs, lengths: outputs[torch.arange(len(lengths)), lengths - 1],
            ),
        ),
    )
)


# ch03.q4: mean pooling over the real time steps ---------------------------------------------


def _masked_mean_reference(outputs: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """``m_b = (1 / n_b) sum_{t < n_b} outputs[b, t]``; steps ``t >= n_b`` are padding, as
    ``coursekit.text.padding_mask`` marks them.
    """
    is_real = ~padding_mask(lengths, max_len=outputs.shape[1])
    summed = (outputs * is_real.unsqueeze(-1)).sum(dim=1)
    return summed / lengths.unsqueeze(-1).to(outputs.dtype)


#: (lengths, T, H, what the case exercises); seven padded batches, one without padding.
MASKED_MEAN_SETTINGS = [
    ([6, 3, 5], 6, 4, "batch 3"),
    ([5, 2, 4, 1], 5, 2, "batch 4, a sequence of length 1"),
    ([2, 7], 7, 3, "the longest sequence last"),
    ([3, 1], 6, 3, "padded beyond the longest sequence"),
    ([4, 4, 2, 4, 3], 4, 1, "H=1"),
    ([8, 5], 8, 2, "batch 2"),
    ([5, 1, 1], 5, 3, "two sequences of length 1"),
    ([4, 4, 4], 4, 3, "no padding"),
]


def _masked_mean_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    for lengths, steps, hidden_size, about in MASKED_MEAN_SETTINGS:
        padded = f"; padding holds {PADDING_FILL:g} (missing mask)" if min(lengths) < steps else ""
        yield Case(
            _padded_outputs(generator, lengths, steps, hidden_size),
            description=f"{about}: lengths {lengths}, T={steps}{padded}",
        )
    outputs, lengths_tensor = _padded_outputs(generator, [5, 2, 3], 5, 2)
    yield Case(
        (outputs.masked_fill(outputs == PADDING_FILL, 0.0), lengths_tensor),
        description="lengths [5, 2, 3], T=5; padding holds 0, so a missing mask changes nothing "
        "here: the mean of a sequence divides by its own length, not by T",
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


# ch03.q5: the parameters of an LSTM with projections ----------------------------------------


def _parameter_count_reference(
    input_size: int, hidden_size: int, num_layers: int, bias: bool, bidirectional: bool, proj: int
) -> int:
    """The number of values in the weights and biases of ``torch.nn.LSTM`` with these arguments
    (``proj`` is its ``proj_size``, P): per layer and direction ``W_ih [4H, I_l]``,
    ``W_hh [4H, P]``, ``b_ih, b_hh [4H]`` and ``W_hr [P, H]`` (``P = H`` and no ``W_hr`` when
    ``proj = 0``); ``I_l = D * P`` above the first layer.
    """
    lstm = torch.nn.LSTM(
        input_size, hidden_size, num_layers, bias, bidirectional=bidirectional, proj_size=proj
    )
    return sum(parameter.numel() for parameter in lstm.parameters())


#: (num_layers, bias, bidirectional, proj_size as a fraction of H (0: none), what)
PARAMETER_SETTINGS = [
    (2, True, False, 0.0, "no projection, two layers: the chapter's count"),
    (1, True, False, 0.5, "one layer with projections: W_hh is [4H, P], W_hr is [P, H]"),
    (2, True, False, 0.5, "two layers: the upper one reads P inputs, not H"),
    (2, True, True, 0.25, "two bidirectional layers: the upper one reads 2P inputs"),
    (2, False, False, 0.5, "bias=False: no b_ih, b_hh"),
    (3, True, True, 0.75, "three bidirectional layers with projections"),
    (3, False, True, 0.5, "three bidirectional layers, bias=False"),
]


def _parameter_count_cases(rng: random.Random) -> Iterator[Case]:
    for num_layers, bias, bidirectional, fraction, about in PARAMETER_SETTINGS:
        input_size, hidden_size = rng.randint(2, 40), rng.randint(8, 40)
        proj_size = max(1, int(fraction * hidden_size)) if fraction else 0
        yield Case(
            (input_size, hidden_size, num_layers, bias, bidirectional, proj_size),
            description=f"{about}; input_size={input_size}, hidden_size={hidden_size}, "
            f"proj_size={proj_size}",
        )


register(
    Question(
        id="ch03.q5",
        title="The parameters of an LSTM with projections",
        points=1,
        answer_name="lstm_parameter_count",
        reference=_parameter_count_reference,
        make_cases=_parameter_count_cases,
        forbidden=(
            torch.nn.LSTM.__init__,
            torch.nn.modules.rnn.RNNBase.__init__,
            coursekit.models.LSTM.__init__,
        ),
    )
)


# ch03.q6: the half-life of an LSTM's memory -------------------------------------------------


def _half_life_reference(forget_gates: torch.Tensor) -> torch.Tensor:
    """For each unit, the first step ``k`` (from 1) with ``F_1 * ... * F_k < 1/2``, or ``T + 1``
    when the product stays at or above 1/2: ``C_k`` keeps ``F_1 ... F_k`` of ``C_0`` along the
    memory path ``C_t = F_t * C_{t-1} + ...`` (Chapter 3). The products decrease with ``k``, so
    ``k`` is one more than the number of steps whose product is still >= 1/2; a LongTensor [H].
    """
    kept = torch.cumprod(forget_gates, dim=0)
    return (kept >= 0.5).sum(dim=0) + 1


def _gates_crossing_half(
    generator: torch.Generator, steps: int, crossing: int, margin: float
) -> torch.Tensor:
    """Forget gates ``[steps]`` near 1 whose product first drops below 1/2 at step ``crossing``,
    and there by only ``0.5 * margin``: the steps before stay >= 0.5 by far more. Gates in
    [0.99, 0.999) keep a product above 1/2 for 41 steps, so the rescaling only lowers them."""
    gates = 0.99 + 0.009 * torch.rand(steps, generator=generator, dtype=torch.float64)
    product = gates[:crossing].prod()
    gates[:crossing] *= (0.5 * (1 - margin) / product) ** (1 / crossing)
    return gates


def _half_life_cases(rng: random.Random) -> Iterator[Case]:
    generator = torch_generator(rng)
    constant = torch.tensor([0.3, 0.6, 0.8, 0.95, 0.99], dtype=torch.float64)
    yield Case(
        (constant.expand(40, -1).clone(),),
        description="constant gates f: k = floor(log 2 / -log f) + 1 (0.99 never drops in T=40)",
    )
    rates = torch.tensor([0.03, 0.02, 0.01, 0.004, 0.002, 0.03], dtype=torch.float64)
    near_one = 1 - rates * torch.rand(100, 6, generator=generator, dtype=torch.float64)
    yield Case(
        (near_one,), description="gates near 1 over T=100: three units keep half to the end (T + 1)"
    )
    random_gates = torch.sigmoid(float64_normal(generator, 20, 6, scale=2.0) + 1.5)
    random_gates[:, 0] = 1 - 1e-3 * torch.rand(20, generator=generator, dtype=torch.float64)
    random_gates[0, 1] = 0.2
    yield Case(
        (random_gates,),
        description="sigmoid gates, T=20: a unit that forgets at once (k=1), one that never does",
    )
    crossings = [
        _gates_crossing_half(generator, 50, crossing, 1e-9) for crossing in (17, 23, 33, 41)
    ]
    lasting = 1 - 1e-3 * torch.rand(50, generator=generator, dtype=torch.float64)
    yield Case(
        (torch.stack([*crossings, lasting], dim=1),),
        description="products within 1e-9 of 1/2 at the crossing: float32 instead of float64 "
        "moves the step; one unit never drops",
    )
    yield Case(
        (torch.full((1, 3), 0.7, dtype=torch.float64),),
        description="T=1: F_1 = 0.7 >= 1/2, so every unit gets T + 1 = 2",
    )
    saturated = torch.sigmoid(float64_normal(generator, 12, 4, scale=3.0))
    steady = torch.tensor([[0.8, 0.999]], dtype=torch.float64).expand(12, -1)
    yield Case(
        (torch.cat([saturated, steady], dim=1),),
        description="saturated sigmoid gates, T=12; a unit at 0.8, whose product (not any gate) "
        "drops below 1/2 at k=4, and one that never drops",
    )
    halves = [[0.5, 1.0, 0.5, 0.9], [0.9, 0.5, 0.5, 0.99], [0.9, 0.9, 0.9, 0.99]]
    yield Case(
        (torch.tensor(halves, dtype=torch.float64),),
        description="gates of exactly sigmoid(0) = 1/2: a product equal to 1/2 has not dropped "
        "below it (k = 2, 3, 2, and T + 1 for a unit that never drops)",
    )


register(
    Question(
        id="ch03.q6",
        title="The half-life of an LSTM's memory",
        points=2,
        answer_name="memory_half_life",
        reference=_half_life_reference,
        make_cases=_half_life_cases,
    )
)
