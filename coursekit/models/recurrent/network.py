"""Recurrent networks: RNN, LSTM and GRU layers stacked in depth and in both directions, for
batches of sequences of different lengths, equal to ``torch.nn.RNN``/``LSTM``/``GRU``.

Layer ``l`` and direction ``d`` run one cell (:mod:`coursekit.models.recurrent.cells`) along the
sequence; the input of layer ``l > 0`` is the output of layer ``l - 1``, both directions
concatenated, ``[T, B, D*H]``, after dropout in training mode. The backward direction reads each
sequence from its own last real token to its first. Padded positions (``t >= n_b``) leave the
state unchanged and output zeros, so the final state ``h_n`` of sequence ``b`` is its state at
its own last step ``n_b``. The inputs of all time steps are projected with one matrix product
before the loop over time. Chapter 2 (RNNs and backpropagation through time) and Chapter 3
(LSTM and GRU).
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils.rnn import PackedSequence, pad_packed_sequence

from coursekit.arguments import require_dropout_probability, require_positive_int
from coursekit.models.recurrent.cells import (
    gru_step,
    lstm_step,
    register_gate_parameters,
    require_input_dtype,
    require_nonlinearity,
    require_sizes,
    reset_uniform,
    rnn_step,
)
from coursekit.models.twins import TorchTwin

State = tuple[Tensor, ...]
HiddenState = Tensor | tuple[Tensor, Tensor]


def require_dropout(dropout: float) -> None:
    """The one rule for the dropout between stacked recurrent layers (Chapters 2 and 3): a
    probability ``p`` in [0, 1), as for every dropout of the course; ``p = 1`` would zero every
    input of the layers above."""
    require_dropout_probability("dropout", dropout)


def reversal_index(lengths: Tensor, total_length: int) -> Tensor:
    """The ``[T, B]`` time index that reverses each sequence within its own length:
    ``n_b - 1 - t`` for ``t < n_b``, and ``t`` itself on padding. Applying it twice is the identity.
    """
    steps = torch.arange(total_length, device=lengths.device).unsqueeze(1)
    return torch.where(steps < lengths, lengths - 1 - steps, steps)


def reverse_time(sequences: Tensor, reversal: Tensor | None) -> Tensor:
    """``sequences [T, B, F]`` with every sequence reversed in time (all of it when
    ``reversal`` is None, otherwise within its length, see :func:`reversal_index`).
    """
    if reversal is None:
        return sequences.flip(0)
    return sequences.gather(0, reversal.unsqueeze(-1).expand_as(sequences))


def pack_like(template: PackedSequence, padded: Tensor) -> PackedSequence:
    """``padded [T, B, F]`` (original batch order) in the packed layout of ``template``: the
    rows of time step ``t`` are the first ``batch_sizes[t]`` sequences, longest first.
    """
    if template.sorted_indices is not None:
        padded = padded.index_select(1, template.sorted_indices)
    rows = [padded[t, :size] for t, size in enumerate(template.batch_sizes.tolist())]
    return PackedSequence(
        torch.cat(rows), template.batch_sizes, template.sorted_indices, template.unsorted_indices
    )


class RecurrentNetwork(TorchTwin):
    """The engine shared by :class:`RNN`, :class:`LSTM` and :class:`GRU`; a subclass states its
    cell by ``gate_count``, the names of its state tensors and :meth:`step`.

    ``forward(input, hx=None, lengths=None)`` takes ``input`` ``[T, B, I]`` (``[B, T, I]`` with
    ``batch_first``; ``[T, I]`` for one unbatched sequence) or a ``PackedSequence``, ``hx``
    ``[L*D, B, H]`` (a tuple ``(h_0, c_0)`` for the LSTM; zeros when None) and the true
    ``lengths`` ``[B]`` of a padded batch, and returns what torch returns: ``(output, h_n)``, with
    ``output`` ``[T, B, D*H]`` (zeros on padding) or a PackedSequence for a PackedSequence.
    """

    gate_count: ClassVar[int]
    state_names: ClassVar[tuple[str, ...]] = ("h_0",)
    torch_class: ClassVar[type[nn.RNNBase]]
    twin_arguments: ClassVar[tuple[str, ...]] = (
        "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional"
    )  # fmt: skip

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
    ) -> None:
        super().__init__()
        require_sizes(input_size, hidden_size)
        require_positive_int("num_layers", num_layers)
        require_dropout(dropout)
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout acts between stacked layers, never after the last one, so it has no "
                f"effect with num_layers=1 (got dropout={dropout})",
                stacklevel=2,
            )
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.num_directions = 2 if bidirectional else 1
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else self.num_directions * hidden_size
            for direction in range(self.num_directions):
                suffix = self.parameter_suffix(layer, direction)
                register_gate_parameters(
                    self, suffix, layer_input_size, hidden_size, self.gate_count, bias
                )
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every parameter from U(-1/sqrt(H), 1/sqrt(H)), as torch does."""
        reset_uniform(self, self.hidden_size)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        for name, default in (
            ("num_layers", 1),
            ("bias", True),
            ("batch_first", False),
            ("dropout", 0.0),
            ("bidirectional", False),
        ):
            if getattr(self, name) != default:
                text += f", {name}={getattr(self, name)}"
        return text

    @staticmethod
    def parameter_suffix(layer: int, direction: int) -> str:
        """torch's name suffix of a layer's parameters: ``_l0``, ``_l0_reverse``, ``_l1``, ..."""
        return f"_l{layer}" + ("_reverse" if direction == 1 else "")

    def layer_weights(
        self, layer: int, direction: int
    ) -> tuple[Tensor, Tensor | None, Tensor, Tensor | None]:
        """``(W_ih, b_ih, W_hh, b_hh)`` of one layer and direction (biases None without bias)."""
        suffix = self.parameter_suffix(layer, direction)
        return (
            getattr(self, f"weight_ih{suffix}"),
            getattr(self, f"bias_ih{suffix}") if self.bias else None,
            getattr(self, f"weight_hh{suffix}"),
            getattr(self, f"bias_hh{suffix}") if self.bias else None,
        )

    def step(
        self, input_projection: Tensor, state: State, weight_hh: Tensor, bias_hh: Tensor | None
    ) -> State:
        """One time step of the cell, from ``W_ih x_t + b_ih`` ``[B, G*H]`` and the state."""
        raise NotImplementedError

    def forward(
        self,
        input: Tensor | PackedSequence,
        hx: HiddenState | None = None,
        lengths: Tensor | list[int] | None = None,
    ) -> tuple[Tensor | PackedSequence, HiddenState]:
        """``(output, h_n)`` (``(output, (h_n, c_n))`` for the LSTM), as torch returns them."""
        if isinstance(input, PackedSequence):
            if lengths is not None:
                raise ValueError("give either a PackedSequence or padded input with lengths")
            padded, lengths = pad_packed_sequence(input)
            output, final = self.run_layers(padded, hx, lengths, batched=True)
            return pack_like(input, output), self.as_hidden_state(final)
        if input.dim() not in (2, 3):
            layout = "[batch, time, features]" if self.batch_first else "[time, batch, features]"
            raise ValueError(
                f"{type(self).__name__} expects an input of shape {layout} (or [time, features] "
                f"for one sequence), got {tuple(input.shape)}"
            )
        batched = input.dim() == 3
        if not batched and lengths is not None:
            raise ValueError("lengths is for a batch; an unbatched input is one whole sequence")
        if not batched:
            sequences = input.unsqueeze(1)
        else:
            sequences = input.transpose(0, 1) if self.batch_first else input
        output, final = self.run_layers(sequences, hx, lengths, batched)
        if not batched:
            output = output.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, self.as_hidden_state(final)

    def as_hidden_state(self, final: State) -> HiddenState:
        """torch's form of the final state: ``h_n`` alone, or the tuple ``(h_n, c_n)``."""
        return final[0] if len(final) == 1 else (final[0], final[1])

    def run_layers(
        self,
        sequences: Tensor,
        hx: HiddenState | None,
        lengths: Tensor | list[int] | None,
        batched: bool,
    ) -> tuple[Tensor, State]:
        """Run every layer and direction over time-major ``sequences`` ``[T, B, I]``; returns
        the top layer's output ``[T, B, D*H]`` and the final states ``[L*D, B, H]`` (``[L*D, H]``
        each when not ``batched``).
        """
        total_length, batch_size, features = sequences.shape
        if features != self.input_size:
            raise ValueError(
                f"{type(self).__name__} was built for input_size={self.input_size}, "
                f"got inputs with {features} features"
            )
        require_input_dtype(self, "input", sequences, self.layer_weights(0, 0)[0])
        initial = self.initial_state(hx, batch_size, batched, sequences)
        lengths = self.checked_lengths(lengths, batch_size, total_length, sequences.device)
        mask = None
        reversal = None
        if lengths is not None:
            steps = torch.arange(total_length, device=sequences.device).unsqueeze(1)
            mask = (steps < lengths).unsqueeze(-1)
            reversal = reversal_index(lengths, total_length)
        layer_input, finals = sequences, []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(self.num_directions):
                index = layer * self.num_directions + direction
                state = tuple(tensor[index] for tensor in initial)
                output, state = self.run_direction(
                    layer_input, layer, direction, state, mask, reversal
                )
                outputs.append(output)
                finals.append(state)
            layer_input = torch.cat(outputs, dim=-1) if len(outputs) > 1 else outputs[0]
            if layer < self.num_layers - 1 and self.dropout > 0:
                layer_input = F.dropout(layer_input, self.dropout, self.training)
        final = tuple(torch.stack(tensors) for tensors in zip(*finals, strict=True))
        if not batched:
            final = tuple(tensor.squeeze(1) for tensor in final)
        return layer_input, final

    def run_direction(
        self,
        sequences: Tensor,
        layer: int,
        direction: int,
        state: State,
        mask: Tensor | None,
        reversal: Tensor | None,
    ) -> tuple[Tensor, State]:
        """One layer in one direction over ``sequences`` ``[T, B, F]``: the input projections
        of all steps in one product, then one step of the cell per time step. Where ``mask`` is
        False (padding) the state is kept and the output is zero.
        """
        weight_ih, bias_ih, weight_hh, bias_hh = self.layer_weights(layer, direction)
        projections = F.linear(sequences, weight_ih, bias_ih)
        if direction == 1:
            projections = reverse_time(projections, reversal)
        outputs = []
        for t, projection in enumerate(projections.unbind(0)):
            new_state = self.step(projection, state, weight_hh, bias_hh)
            if mask is None:
                state = new_state
                outputs.append(new_state[0])
            else:
                state = tuple(
                    torch.where(mask[t], new, old)
                    for new, old in zip(new_state, state, strict=True)
                )
                outputs.append(torch.where(mask[t], new_state[0], 0.0))
        output = torch.stack(outputs)
        if direction == 1:
            output = reverse_time(output, reversal)
        return output, state

    def initial_state(
        self, hx: HiddenState | None, batch_size: int, batched: bool, like: Tensor
    ) -> State:
        """The checked initial states, each ``[L*D, B, H]``; zeros (dtype and device of
        ``like``) when ``hx`` is None. An unbatched ``hx`` has shape ``[L*D, H]``.
        """
        layers = self.num_layers * self.num_directions
        if hx is None:
            zeros = like.new_zeros(layers, batch_size, self.hidden_size)
            return (zeros,) * len(self.state_names)
        parts = (hx,) if isinstance(hx, Tensor) else tuple(hx) if isinstance(hx, tuple) else ()
        if len(parts) != len(self.state_names) or not all(isinstance(p, Tensor) for p in parts):
            names = self.state_names
            expected = f"one tensor {names[0]}" if len(names) == 1 else f"a tuple {names}"
            raise ValueError(
                f"{type(self).__name__} expects hx as {expected}, got {type(hx).__name__}"
            )
        shape = (layers, batch_size, self.hidden_size) if batched else (layers, self.hidden_size)
        for name, part in zip(self.state_names, parts, strict=True):
            if tuple(part.shape) != shape:
                raise ValueError(
                    f"{name} must have shape (num_layers * num_directions, batch, hidden_size) "
                    f"= {shape}, got {tuple(part.shape)}"
                )
            require_input_dtype(self, name, part, like)
        return parts if batched else tuple(part.unsqueeze(1) for part in parts)

    @staticmethod
    def checked_lengths(
        lengths: Tensor | list[int] | None, batch_size: int, total_length: int, device: torch.device
    ) -> Tensor | None:
        """``lengths`` as a LongTensor ``[B]`` on ``device``, or None when no sequence is
        padded. Each length must lie between 1 and ``T``.
        """
        if lengths is None:
            return None
        lengths = torch.as_tensor(lengths)
        if lengths.dim() != 1 or lengths.numel() != batch_size:
            raise ValueError(
                f"lengths must hold one length per sequence of the batch ({batch_size}), "
                f"got shape {tuple(lengths.shape)}"
            )
        if lengths.is_floating_point() or lengths.is_complex():
            raise ValueError(f"lengths must be integers, got dtype {lengths.dtype}")
        if bool((lengths < 1).any()) or bool((lengths > total_length).any()):
            raise ValueError(
                f"every length must lie between 1 and the padded length T={total_length}, "
                f"got {lengths.tolist()}"
            )
        if bool((lengths == total_length).all()):
            return None
        return lengths.to(device=device, dtype=torch.long)


class RNN(RecurrentNetwork):
    """A multi-layer Elman RNN equal to ``torch.nn.RNN`` (Chapter 2, RNNs and backpropagation
    through time): in each layer and direction h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)
    (or relu), where x_t is the previous layer's output.
    """

    gate_count = 1
    torch_class = nn.RNN
    twin_arguments = (*RecurrentNetwork.twin_arguments, "nonlinearity")

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
    ) -> None:
        require_nonlinearity(nonlinearity)
        super().__init__(
            input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional
        )
        self.nonlinearity = nonlinearity

    def extra_repr(self) -> str:
        return super().extra_repr() + f", nonlinearity={self.nonlinearity!r}"

    def step(
        self, input_projection: Tensor, state: State, weight_hh: Tensor, bias_hh: Tensor | None
    ) -> State:
        """h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh) (or relu): :func:`rnn_step`."""
        return (rnn_step(input_projection, state[0], weight_hh, bias_hh, self.nonlinearity),)


class LSTM(RecurrentNetwork):
    """A multi-layer LSTM equal to ``torch.nn.LSTM`` (Chapter 3, LSTM and GRU): each layer and
    direction runs the LSTM cell, C_t = F_t * C_{t-1} + I_t * C~_t, H_t = O_t * tanh(C_t).
    ``hx`` and the final state are tuples ``(h, c)``. Projections (``proj_size``) are not
    supported.
    """

    gate_count = 4
    state_names = ("h_0", "c_0")
    torch_class = nn.LSTM
    twin_arguments = (*RecurrentNetwork.twin_arguments, "proj_size")

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
    ) -> None:
        if proj_size != 0:
            raise NotImplementedError(
                f"proj_size={proj_size} is not supported: this LSTM has no projection of its "
                "hidden state; use proj_size=0 (or torch.nn.LSTM for projections)"
            )
        super().__init__(
            input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional
        )

    def step(
        self, input_projection: Tensor, state: State, weight_hh: Tensor, bias_hh: Tensor | None
    ) -> State:
        """(H_t, C_t) from (H_{t-1}, C_{t-1}): :func:`lstm_step`."""
        return lstm_step(input_projection, (state[0], state[1]), weight_hh, bias_hh)


class GRU(RecurrentNetwork):
    """A multi-layer GRU equal to ``torch.nn.GRU`` (Chapter 3, LSTM and GRU): each layer and
    direction runs the GRU cell, H_t = Z_t * H_{t-1} + (1 - Z_t) * N_t.
    """

    gate_count = 3
    torch_class = nn.GRU

    def step(
        self, input_projection: Tensor, state: State, weight_hh: Tensor, bias_hh: Tensor | None
    ) -> State:
        """H_t = Z_t * H_{t-1} + (1 - Z_t) * N_t: :func:`gru_step`."""
        return (gru_step(input_projection, state[0], weight_hh, bias_hh),)
