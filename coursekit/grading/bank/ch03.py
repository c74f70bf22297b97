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
from coursekit.grading.bank.draws import float64_normal, torch_generator
from coursekit.grading.questions import Case, Mistake, Question, register
from coursekit.models.recurrent.cells import gru_gates, lstm_gates, lstm_step
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
    ``Z_t`` from ``coursekit.models.recurrent.cells.gru_gates`` (torch's layout r, z, n).
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
    ([5, 5, 3, 1], 5, 2, f"a sequence of length 1; {PADDED}"),
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
        padded = f"; padding holds {PADDING_FILL:g}" if min(lengths) < steps else ""
        yield Case(
            _padded_outputs(generator, lengths, steps, hidden_size),
            description=f"{about}: lengths {lengths}, T={steps}{padded}",
        )
    outputs, lengths_tensor = _padded_outputs(generator, [5, 2, 3], 5, 2)
    yield Case(
        (outputs.masked_fill(outputs == PADDING_FILL, 0.0), lengths_tensor),
        description="lengths [5, 2, 3], T=5; padding holds 0",
    )


def _mean_over_every_step(outputs: Tensor, lengths: Tensor) -> Tensor:
    """The mistake of averaging over all ``T`` steps, padding included."""
    return _masked_mean_reference(outputs, torch.full_like(lengths, outputs.shape[1]))


def _masked_sum_over_T(outputs: Tensor, lengths: Tensor) -> Tensor:
    """The mistake of dividing the sum over the real steps by ``T``."""
    return _masked_mean_reference(outputs, lengths) * lengths.unsqueeze(-1) / outputs.shape[1]


register(
    Question(
        id="ch03.q4",
        title="Mean pooling over the real time steps",
        points=2,
        answer_name="masked_mean",
        reference=_masked_mean_reference,
        make_cases=_masked_mean_cases,
        mistakes=(
            Mistake(
                "the mean runs over all T steps, padding included; average each sequence over "
                "its n_b real steps",
                _mean_over_every_step,
            ),
            Mistake(
                "the sum over the real steps is divided by T; divide it by the sequence's own "
                "length n_b",
                _masked_sum_over_T,
            ),
        ),
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
    (2, True, False, 0.0, "two layers, no projection"),
    (1, True, False, 0.5, "one layer with projections"),
    (2, True, False, 0.5, "two layers with projections"),
    (2, True, True, 0.25, "two bidirectional layers with projections"),
    (2, False, False, 0.5, "two layers with projections, bias=False"),
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


def _lstm_parameter_count_with(mistake: str) -> Callable[..., int]:
    """The reference's count with a classic mistake: ``proj_size`` ignored (``"no projection"``),
    ``bias`` ignored, ``W_hh`` counted as ``[4H, H]`` (``"square W_hh"``), the upper layers
    counted with ``D * H`` inputs (``"upper layers read H"``) or ``W_hr`` left out
    (``"no W_hr"``)."""

    def answer(
        input_size: int,
        hidden_size: int,
        num_layers: int,
        bias: bool,
        bidirectional: bool,
        proj: int,
    ) -> int:
        proj = 0 if mistake == "no projection" else proj
        bias = bias or mistake == "bias ignored"
        count = _parameter_count_reference(
            input_size, hidden_size, num_layers, bias, bidirectional, proj
        )
        directions, unprojected = 1 + bidirectional, hidden_size - proj if proj else 0
        per_layer = {
            "square W_hh": 4 * hidden_size * unprojected,
            "upper layers read H": 4 * hidden_size * directions * unprojected,
            "no W_hr": -proj * hidden_size,
        }.get(mistake, 0)
        layers = num_layers - 1 if mistake == "upper layers read H" else num_layers
        return count + directions * layers * per_layer

    return answer


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
        mistakes=(
            Mistake(
                "proj_size is ignored; with projections W_hh is [4H, P] and each layer and "
                "direction adds W_hr [P, H]",
                _lstm_parameter_count_with("no projection"),
            ),
            Mistake(
                "W_hh is counted as [4H, H]; with projections it is [4H, P], since it "
                "multiplies the projected state",
                _lstm_parameter_count_with("square W_hh"),
            ),
            Mistake(
                "the upper layers are counted with D * H inputs; they read the projected "
                "outputs, D * P",
                _lstm_parameter_count_with("upper layers read H"),
            ),
            Mistake(
                "W_hr [P, H] is left out; each layer and direction has one",
                _lstm_parameter_count_with("no W_hr"),
            ),
            Mistake(
                "bias=False is ignored; without biases there are no b_ih, b_hh",
                _lstm_parameter_count_with("bias ignored"),
            ),
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
        description="constant gates 0.3, 0.6, 0.8, 0.95 and 0.99 over T=40",
    )
    rates = torch.tensor([0.03, 0.02, 0.01, 0.004, 0.002, 0.03], dtype=torch.float64)
    near_one = 1 - rates * torch.rand(100, 6, generator=generator, dtype=torch.float64)
    yield Case((near_one,), description="gates near 1 over T=100; three units stay at or above 1/2")
    random_gates = torch.sigmoid(float64_normal(generator, 20, 6, scale=2.0) + 1.5)
    random_gates[:, 0] = 1 - 1e-3 * torch.rand(20, generator=generator, dtype=torch.float64)
    random_gates[0, 1] = 0.2
    yield Case(
        (random_gates,),
        description="sigmoid gates, T=20; a unit whose first gate is 0.2, one with gates near 1",
    )
    crossings = [
        _gates_crossing_half(generator, 50, crossing, 1e-9) for crossing in (17, 23, 33, 41)
    ]
    lasting = 1 - 1e-3 * torch.rand(50, generator=generator, dtype=torch.float64)
    yield Case(
        (torch.stack([*crossings, lasting], dim=1),),
        description="T=50, products within 1e-9 of 1/2 at the step where they cross it; one unit "
        "with gates near 1",
    )
    yield Case(
        (torch.full((1, 3), 0.7, dtype=torch.float64),),
        description="T=1, every gate 0.7",
    )
    saturated = torch.sigmoid(float64_normal(generator, 12, 4, scale=3.0))
    steady = torch.tensor([[0.8, 0.999]], dtype=torch.float64).expand(12, -1)
    yield Case(
        (torch.cat([saturated, steady], dim=1),),
        description="saturated sigmoid gates, T=12; a unit whose gates are all 0.8, one whose "
        "gates are all 0.999",
    )
    halves = [[0.5, 1.0, 0.5, 0.9], [0.9, 0.5, 0.5, 0.99], [0.9, 0.9, 0.9, 0.99]]
    yield Case(
        (torch.tensor(halves, dtype=torch.float64),),
        description="T=3, units whose gates are exactly 1/2 at some steps",
    )


def _half_life_keeping_only_above(forget_gates: Tensor) -> Tensor:
    """The mistake of counting a product of exactly 1/2 as dropped."""
    return (torch.cumprod(forget_gates, dim=0) > 0.5).sum(dim=0) + 1


def _half_life_never_dropping_as(value: int | None) -> Callable[[Tensor], Tensor]:
    """The mistake of giving a unit whose product never drops ``value`` (``None``: ``T``)."""

    def answer(forget_gates: Tensor) -> Tensor:
        half_life = _half_life_reference(forget_gates)
        steps = forget_gates.shape[0]
        return torch.where(half_life > steps, steps if value is None else value, half_life)

    return answer


register(
    Question(
        id="ch03.q6",
        title="The half-life of an LSTM's memory",
        points=2,
        answer_name="memory_half_life",
        reference=_half_life_reference,
        make_cases=_half_life_cases,
        mistakes=(
            Mistake(
                "k is counted from 0; the steps count from 1, so a unit with F_1 < 1/2 has k = 1",
                lambda forget_gates: _half_life_reference(forget_gates) - 1,
            ),
            Mistake(
                "a unit whose product never drops below 1/2 gets T; it gets T + 1",
                _half_life_never_dropping_as(None),
            ),
            Mistake(
                "a unit whose product never drops below 1/2 gets -1; it gets T + 1",
                _half_life_never_dropping_as(-1),
            ),
            Mistake(
                "k is the first step whose gate is below 1/2; it is the first step whose "
                "product F_1 ... F_k is",
                lambda forget_gates: _half_life_reference((forget_gates >= 0.5).double()),
            ),
            Mistake(
                "the products are computed in float32, whose rounding moves the step where "
                "they cross 1/2; keep float64",
                lambda forget_gates: _half_life_reference(forget_gates.float()),
            ),
            Mistake(
                "a product of exactly 1/2 is counted as dropped; it drops when it is below 1/2",
                _half_life_keeping_only_above,
            ),
        ),
    )
)
