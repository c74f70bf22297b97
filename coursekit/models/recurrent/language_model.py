"""A recurrent language model (Chapter 2, RNNs and backpropagation through time).

The model reads tokens x_1..x_T and predicts each next one. With an embedding matrix E, a
recurrent network f (an RNN, an LSTM or a GRU, Chapter 3) and an output layer (W_qh, b_q):

    e_t = E[x_t],    h_t = f(e_t, h_{t-1}),    o_t = W_qh h_t + b_q,
    P(x_{t+1} | x_1..x_t) = softmax(o_t).

The state h_T after the last token summarises the whole prefix, so a long text can be read in
pieces by passing the state on, and text is generated one token at a time
(:func:`coursekit.generate.generate`).
"""

from __future__ import annotations

from torch import Tensor, nn

from coursekit.models.recurrent.factory import recurrent_layer
from coursekit.models.token_ids import require_token_ids

RecurrentState = Tensor | tuple[Tensor, Tensor]
"""``H [L, B, H]`` (one row per layer) for an RNN or a GRU, the pair ``(H, C)`` for an LSTM."""


class RecurrentLanguageModel(nn.Module):
    """Embedding, recurrent network, linear output: ``o_t = W_qh h_t + b_q`` (Chapter 2).

    ``cell`` is ``"rnn"``, ``"lstm"`` or ``"gru"``. Dropout with probability ``dropout`` acts
    on the embeddings, between stacked layers and on the outputs, never on the recurrent
    connections h_{t-1} -> h_t (Zaremba et al., 2014).
    """

    def __init__(
        self,
        vocab_size: int,
        embedding_dim: int,
        hidden_size: int,
        num_layers: int = 1,
        cell: str = "rnn",
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.cell = cell
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.recurrent = recurrent_layer(cell, embedding_dim, hidden_size, num_layers, dropout)
        self.dropout = nn.Dropout(dropout)
        self.output = nn.Linear(hidden_size, vocab_size)

    def forward(
        self, tokens: Tensor, state: RecurrentState | None = None
    ) -> tuple[Tensor, RecurrentState]:
        """Logits ``[B, T, V]`` of every next token, and the state after the last one.

        ``tokens`` is ``[B, T]``; ``state`` is the one a previous call returned (``None``
        starts from h_0 = 0), so reading x_1..x_T in two calls equals reading it in one.
        """
        require_token_ids(tokens, self.vocab_size)
        embedded = self.dropout(self.embedding(tokens))
        hidden, state = self.recurrent(embedded, state)
        return self.output(self.dropout(hidden)), state
