"""Recurrent cells: one time step of an RNN, an LSTM and a GRU, written from their equations.

A cell maps the input ``x_t`` and the previous state to the next state. Every gate of a cell is
an affine function of ``x_t`` plus an affine function of ``h_{t-1}``, so the ``G`` gates of a
cell share two stacked weights, as in ``torch.nn``:

    W_ih: [G*H, I],  W_hh: [G*H, H],  b_ih, b_hh: [G*H]   (G = 1 RNN, 4 LSTM, 3 GRU).

The step functions take the input projection ``W_ih x_t + b_ih`` already computed, because a
network computes it for all time steps with one matrix product before its loop
(:mod:`coursekit.models.recurrent.network`); inside the loop a step costs one product, ``W_hh
h_{t-1}``, for all gates at once. Chapter 2 (RNNs and backpropagation through time) explains the
RNN cell, Chapter 3 (LSTM and GRU) the gated cells.
"""

from __future__ import annotations

import math
from typing import ClassVar, NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from coursekit.arguments import require_positive_int
from coursekit.models.twins import TorchTwin

NONLINEARITIES = {"tanh": torch.tanh, "relu": torch.relu}


class LSTMGates(NamedTuple):
    """The four LSTM gate values of one step: I_t, F_t, C~_t, O_t (Chapter 3)."""

    input: Tensor
    forget: Tensor
    candidate: Tensor
    output: Tensor


class GRUGates(NamedTuple):
    """The three GRU gate values of one step: R_t, Z_t, N_t (Chapter 3)."""

    reset: Tensor
    update: Tensor
    candidate: Tensor


def rnn_step(
    input_projection: Tensor,
    h: Tensor,
    weight_hh: Tensor,
    bias_hh: Tensor | None,
    nonlinearity: str = "tanh",
) -> Tensor:
    """One step of the Elman RNN (Chapter 2, RNNs and backpropagation through time):

        h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)    (or relu instead of tanh),

    with ``input_projection = W_ih x_t + b_ih`` of shape ``[B, H]``.
    """
    return NONLINEARITIES[nonlinearity](input_projection + F.linear(h, weight_hh, bias_hh))


def lstm_gates(
    input_projection: Tensor, h: Tensor, weight_hh: Tensor, bias_hh: Tensor | None
) -> LSTMGates:
    """The LSTM gates (Chapter 3, LSTM and GRU), stacked in torch's order i, f, g, o:

        I_t = sigma(W_ii x_t + b_ii + W_hi h_{t-1} + b_hi)      input gate
        F_t = sigma(W_if x_t + b_if + W_hf h_{t-1} + b_hf)      forget gate
        C~_t = tanh(W_ig x_t + b_ig + W_hg h_{t-1} + b_hg)      candidate memory
        O_t = sigma(W_io x_t + b_io + W_ho h_{t-1} + b_ho)      output gate

    with ``input_projection = W_ih x_t + b_ih`` of shape ``[B, 4H]``.
    """
    pre_activations = input_projection + F.linear(h, weight_hh, bias_hh)
    i, f, g, o = pre_activations.chunk(4, dim=-1)
    return LSTMGates(torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o))


def lstm_step(
    input_projection: Tensor,
    state: tuple[Tensor, Tensor],
    weight_hh: Tensor,
    bias_hh: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """One LSTM step (Chapter 3, LSTM and GRU): with the gates of :func:`lstm_gates`,

    C_t = F_t * C_{t-1} + I_t * C~_t,    H_t = O_t * tanh(C_t).
    """
    h, c = state
    gates = lstm_gates(input_projection, h, weight_hh, bias_hh)
    c = gates.forget * c + gates.input * gates.candidate
    return gates.output * torch.tanh(c), c


def gru_gates(
    input_projection: Tensor, h: Tensor, weight_hh: Tensor, bias_hh: Tensor | None
) -> GRUGates:
    """The GRU gates (Chapter 3, LSTM and GRU), stacked in torch's order r, z, n:

        R_t = sigma(W_ir x_t + b_ir + W_hr h_{t-1} + b_hr)             reset gate
        Z_t = sigma(W_iz x_t + b_iz + W_hz h_{t-1} + b_hz)             update gate
        N_t = tanh(W_in x_t + b_in + R_t * (W_hn h_{t-1} + b_hn))      candidate state

    with ``input_projection = W_ih x_t + b_ih`` of shape ``[B, 3H]``.
    """
    x_r, x_z, x_n = input_projection.chunk(3, dim=-1)
    h_r, h_z, h_n = F.linear(h, weight_hh, bias_hh).chunk(3, dim=-1)
    reset = torch.sigmoid(x_r + h_r)
    return GRUGates(reset, torch.sigmoid(x_z + h_z), torch.tanh(x_n + reset * h_n))


def gru_step(
    input_projection: Tensor, h: Tensor, weight_hh: Tensor, bias_hh: Tensor | None
) -> Tensor:
    """One GRU step (Chapter 3, LSTM and GRU): with the gates of :func:`gru_gates`,

    H_t = Z_t * H_{t-1} + (1 - Z_t) * N_t.
    """
    gates = gru_gates(input_projection, h, weight_hh, bias_hh)
    return gates.update * h + (1 - gates.update) * gates.candidate


def require_nonlinearity(nonlinearity: str) -> None:
    """Raise a ValueError unless ``nonlinearity`` names an RNN nonlinearity."""
    if nonlinearity not in NONLINEARITIES:
        raise ValueError(f"nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")


TENSOR_METHODS = {torch.float64: "double", torch.float32: "float", torch.float16: "half"}


def conversion(dtype: torch.dtype) -> str:
    """The method that converts a module or a tensor to ``dtype``: ``.double()``, ``.float()``..."""
    return f".{TENSOR_METHODS[dtype]}()" if dtype in TENSOR_METHODS else f".to({dtype})"


def require_input_dtype(module: nn.Module, name: str, tensor: Tensor, weight: Tensor) -> None:
    """Reject an input or state ``name`` that is not floating point or whose dtype is not the
    module's (Chapters 2 and 3): the matrix products W x need both in one dtype."""
    kind = type(module).__name__
    if not tensor.is_floating_point():
        raise TypeError(
            f"{kind} reads floating-point features, got {name} of dtype {tensor.dtype}: embed "
            "token ids first (nn.Embedding) or convert the features with .float()"
        )
    if tensor.dtype != weight.dtype:
        raise TypeError(
            f"{kind} has {weight.dtype} weights but its {name} is {tensor.dtype}: convert the "
            f"module with {conversion(tensor.dtype)} or the {name} with {conversion(weight.dtype)}"
        )


def require_sizes(input_size: int, hidden_size: int) -> None:
    """Raise a ValueError unless both sizes are positive integers."""
    for name, size in (("input_size", input_size), ("hidden_size", hidden_size)):
        require_positive_int(name, size)


def register_gate_parameters(
    module: nn.Module,
    suffix: str,
    input_size: int,
    hidden_size: int,
    gate_count: int,
    bias: bool,
) -> None:
    """Give ``module`` the stacked gate parameters under torch's names: ``weight_ih{suffix}``
    ``[G*H, I]``, ``weight_hh{suffix}`` ``[G*H, H]`` and, with ``bias``, ``bias_ih{suffix}`` and
    ``bias_hh{suffix}`` ``[G*H]``. Values are set by :func:`reset_uniform`.
    """
    stacked = gate_count * hidden_size
    module.register_parameter(f"weight_ih{suffix}", nn.Parameter(torch.empty(stacked, input_size)))
    module.register_parameter(f"weight_hh{suffix}", nn.Parameter(torch.empty(stacked, hidden_size)))
    if bias:
        module.register_parameter(f"bias_ih{suffix}", nn.Parameter(torch.empty(stacked)))
        module.register_parameter(f"bias_hh{suffix}", nn.Parameter(torch.empty(stacked)))


def reset_uniform(module: nn.Module, hidden_size: int) -> None:
    """torch's initialisation of recurrent layers: every parameter ~ U(-1/sqrt(H), 1/sqrt(H))."""
    bound = 1.0 / math.sqrt(hidden_size)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.uniform_(-bound, bound)


class RecurrentCell(TorchTwin):
    """What the three cells share: the stacked parameters ``weight_ih``, ``weight_hh``,
    ``bias_ih``, ``bias_hh`` (``None`` without bias, as in torch), their initialisation, the
    checks of the input and state shapes, and :meth:`from_torch`.

    A cell accepts a batch ``x`` of shape ``[B, I]`` with states ``[B, H]``, or one unbatched
    input ``[I]`` with states ``[H]``; a missing state starts at zeros.
    """

    gate_count: ClassVar[int]
    torch_class: ClassVar[type[nn.RNNCellBase]]
    twin_arguments: ClassVar[tuple[str, ...]] = ("input_size", "hidden_size", "bias")
    weight_ih: nn.Parameter
    weight_hh: nn.Parameter
    bias_ih: nn.Parameter | None
    bias_hh: nn.Parameter | None

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True) -> None:
        super().__init__()
        require_sizes(input_size, hidden_size)
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        register_gate_parameters(self, "", input_size, hidden_size, self.gate_count, bias)
        if not bias:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from U(-1/sqrt(H), 1/sqrt(H)), as torch does."""
        reset_uniform(self, self.hidden_size)

    def extra_repr(self) -> str:
        return f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")

    def project_input(self, x: Tensor) -> tuple[Tensor, bool]:
        """``(W_ih x + b_ih, batched)`` for a checked input ``x`` of shape ``[B, I]`` or ``[I]``;
        an unbatched input becomes a batch of one.
        """
        if x.dim() not in (1, 2) or x.shape[-1] != self.input_size:
            raise ValueError(
                f"{type(self).__name__} expects an input of shape [batch, {self.input_size}] or "
                f"[{self.input_size}], got {tuple(x.shape)}"
            )
        require_input_dtype(self, "input", x, self.weight_ih)
        batched = x.dim() == 2
        x = x if batched else x.unsqueeze(0)
        return F.linear(x, self.weight_ih, self.bias_ih), batched

    def batched_state(
        self, state: Tensor | None, batch_size: int, batched: bool, name: str
    ) -> Tensor:
        """The checked state ``name`` as a ``[B, H]`` tensor (zeros when ``state`` is None)."""
        if state is None:
            return self.weight_hh.new_zeros(batch_size, self.hidden_size)
        expected = (batch_size, self.hidden_size) if batched else (self.hidden_size,)
        if tuple(state.shape) != expected:
            raise ValueError(
                f"{type(self).__name__}: {name} must have shape {expected} for this input, "
                f"got {tuple(state.shape)}"
            )
        require_input_dtype(self, name, state, self.weight_hh)
        return state if batched else state.unsqueeze(0)


def unbatch(state: Tensor, batched: bool) -> Tensor:
    """Remove the batch dimension that an unbatched input was given."""
    return state if batched else state.squeeze(0)


class RNNCell(RecurrentCell):
    """The Elman RNN cell, equal to ``torch.nn.RNNCell`` (Chapter 2, RNNs and backpropagation
    through time): h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh), or relu.
    """

    gate_count = 1
    torch_class = nn.RNNCell
    twin_arguments = (*RecurrentCell.twin_arguments, "nonlinearity")

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh"
    ) -> None:
        require_nonlinearity(nonlinearity)
        super().__init__(input_size, hidden_size, bias)
        self.nonlinearity = nonlinearity

    def extra_repr(self) -> str:
        return super().extra_repr() + f", nonlinearity={self.nonlinearity!r}"

    def forward(self, x: Tensor, h: Tensor | None = None) -> Tensor:
        """The next hidden state h_t from x_t ``[B, I]`` (or ``[I]``) and h_{t-1} (zeros if None)."""
        input_projection, batched = self.project_input(x)
        h = self.batched_state(h, input_projection.shape[0], batched, "h")
        h = rnn_step(input_projection, h, self.weight_hh, self.bias_hh, self.nonlinearity)
        return unbatch(h, batched)


class LSTMCell(RecurrentCell):
    """The LSTM cell, equal to ``torch.nn.LSTMCell`` (Chapter 3, LSTM and GRU):

        C_t = F_t * C_{t-1} + I_t * C~_t,    H_t = O_t * tanh(C_t),

    with the input, forget and output gates and the candidate memory of :func:`lstm_gates`.
    """

    gate_count = 4
    torch_class = nn.LSTMCell

    def batched_lstm_state(
        self, state: tuple[Tensor, Tensor] | None, batch_size: int, batched: bool
    ) -> tuple[Tensor, Tensor]:
        """The state ``(h, c)`` checked and batched; zeros when ``state`` is None."""
        if state is not None and not (isinstance(state, (tuple, list)) and len(state) == 2):
            raise ValueError("LSTMCell expects its state as a tuple (h, c) of two tensors")
        h, c = (None, None) if state is None else state
        return (
            self.batched_state(h, batch_size, batched, "h"),
            self.batched_state(c, batch_size, batched, "c"),
        )

    def gates(self, x: Tensor, state: tuple[Tensor, Tensor] | None = None) -> dict[str, Tensor]:
        """The gate values of the step from ``x`` and ``state``: keys "input", "forget",
        "candidate" (the candidate memory C~_t) and "output", each ``[B, H]`` (or ``[H]`` for an
        unbatched input).
        """
        input_projection, batched = self.project_input(x)
        h, _ = self.batched_lstm_state(state, input_projection.shape[0], batched)
        gates = lstm_gates(input_projection, h, self.weight_hh, self.bias_hh)
        return {name: unbatch(value, batched) for name, value in gates._asdict().items()}

    def forward(
        self, x: Tensor, state: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        """The next state ``(H_t, C_t)`` from x_t ``[B, I]`` (or ``[I]``) and ``(H_{t-1},
        C_{t-1})`` (zeros if None).
        """
        input_projection, batched = self.project_input(x)
        state = self.batched_lstm_state(state, input_projection.shape[0], batched)
        h, c = lstm_step(input_projection, state, self.weight_hh, self.bias_hh)
        return unbatch(h, batched), unbatch(c, batched)


class GRUCell(RecurrentCell):
    """The GRU cell, equal to ``torch.nn.GRUCell`` (Chapter 3, LSTM and GRU):

        H_t = Z_t * H_{t-1} + (1 - Z_t) * N_t,

    with the reset and update gates and the candidate state of :func:`gru_gates`.
    """

    gate_count = 3
    torch_class = nn.GRUCell

    def gates(self, x: Tensor, h: Tensor | None = None) -> dict[str, Tensor]:
        """The gate values of the step from ``x`` and ``h``: keys "reset", "update" and
        "candidate" (N_t), each ``[B, H]`` (or ``[H]`` for an unbatched input).
        """
        input_projection, batched = self.project_input(x)
        h = self.batched_state(h, input_projection.shape[0], batched, "h")
        gates = gru_gates(input_projection, h, self.weight_hh, self.bias_hh)
        return {name: unbatch(value, batched) for name, value in gates._asdict().items()}

    def forward(self, x: Tensor, h: Tensor | None = None) -> Tensor:
        """The next hidden state H_t from x_t ``[B, I]`` (or ``[I]``) and H_{t-1} (zeros if None)."""
        input_projection, batched = self.project_input(x)
        h = self.batched_state(h, input_projection.shape[0], batched, "h")
        return unbatch(gru_step(input_projection, h, self.weight_hh, self.bias_hh), batched)
