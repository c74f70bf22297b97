"""A decoder-only Transformer language model with a key-value cache (Chapter 5, Transformers).

The model reads tokens x_1..x_T and predicts each next one, like the recurrent language model of
Chapter 2, but every position attends all earlier ones through causal self-attention:

    h_0 = Dropout(sqrt(d) E[x_t] + P(t)),   h_l = Block_l(h_{l-1}) (causal),
    P(x_{t+1} | x_1..x_t) = softmax(LayerNorm(h_L) W_out + b_out)_t.

The blocks are :class:`coursekit.models.transformer.layers.TransformerEncoderLayer` with a causal
mask (pre-norm by default, as in GPT-2). The state passed between calls is the key-value cache
(:mod:`coursekit.models.transformer.kv_cache`): reading x_1..x_T in two calls equals reading it in
one, and :func:`coursekit.generate.generate` drives this model exactly as it drives the recurrent
one, each new token costing one position instead of the whole prefix.
"""

from __future__ import annotations

from torch import Tensor, nn

from coursekit.models.token_ids import require_token_ids
from coursekit.models.transformer.embedding import TransformerEmbedding
from coursekit.models.transformer.kv_cache import KeyValueCache, cache_length, require_cache
from coursekit.models.transformer.layer_norm import LayerNorm
from coursekit.models.transformer.layers import TransformerEncoderLayer
from coursekit.models.transformer.model import TransformerEncoder
from coursekit.models.transformer.positional_encoding import require_positions_fit


class TransformerLanguageModel(nn.Module):
    """Causal self-attention blocks between a scaled embedding with positions and a linear
    output: ``P(x_{t+1} | x_1..x_t) = softmax(h_L W_out + b_out)_t`` (Chapter 5).

    ``forward(tokens [B, T], state=None) -> (logits [B, T, V], state)`` has the interface of
    :class:`coursekit.models.recurrent.language_model.RecurrentLanguageModel`; the state is the
    key-value cache of the positions read so far. A model reads at most ``max_len`` positions in
    all (the cache included): a call that would go past ``max_len`` raises a ValueError, so
    generating n tokens after a prompt of m needs m + n - 1 <= max_len. ``positional`` is "learned"
    or "sinusoidal"; ``tie_weights`` shares the embedding matrix with the output layer.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 128,
        nhead: int = 4,
        num_layers: int = 2,
        dim_feedforward: int = 512,
        dropout: float = 0.1,
        max_len: int = 512,
        positional: str = "learned",
        activation: str = "gelu",
        norm_first: bool = True,
        tie_weights: bool = False,
    ) -> None:
        super().__init__()
        self.vocab_size, self.max_len, self.num_layers = vocab_size, max_len, num_layers
        self.embedding = TransformerEmbedding(vocab_size, d_model, max_len, positional, dropout)
        block = TransformerEncoderLayer(
            d_model, nhead, dim_feedforward, dropout, activation,
            batch_first=True, norm_first=norm_first,
        )  # fmt: skip
        self.blocks = TransformerEncoder(
            block, num_layers, LayerNorm(d_model) if norm_first else None
        )
        for parameter in self.blocks.parameters():
            if parameter.dim() > 1:
                nn.init.xavier_uniform_(parameter)
        self.output = nn.Linear(d_model, vocab_size)
        if tie_weights:
            self.output.weight = self.embedding.token.weight

    def forward(
        self, tokens: Tensor, state: KeyValueCache | None = None
    ) -> tuple[Tensor, KeyValueCache]:
        """Logits ``[B, T, V]`` of every next token, and the cache after the last one.

        ``state`` is the cache a previous call returned (None: start of the text); the new
        tokens take positions P .. P + T - 1 after the P cached ones.
        """
        require_token_ids(tokens, self.vocab_size)
        require_cache(state, self.num_layers, tokens.shape[0])
        past_length = cache_length(state)
        require_positions_fit(past_length, tokens.shape[1], self.max_len)
        hidden, state = self.blocks.forward_with_cache(self.embedding(tokens, past_length), state)
        return self.output(hidden), state
