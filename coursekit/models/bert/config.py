"""The sizes of a BERT model (Chapter 6, BERT).

BERT-BASE is L = 12 layers, H = 768 hidden units and A = 12 heads (110M parameters), BERT-LARGE
L = 24, H = 1024, A = 16 (340M); both have a feed-forward size of 4H, 512 positions and two
segments. :class:`BertConfig` holds these numbers with the field names of Hugging Face's
``BertConfig``, so that :meth:`BertConfig.from_hf` reads one without coursekit depending on
``transformers``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from coursekit.arguments import require_dropout_probability, require_positive_int

SIZE_FIELDS = (
    "vocab_size",
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "intermediate_size",
    "max_position_embeddings",
    "type_vocab_size",
    "num_labels",
)
DROPOUT_FIELDS = ("hidden_dropout_prob", "attention_probs_dropout_prob")


@dataclass(frozen=True)
class BertConfig:
    """BERT's hyperparameters (Chapter 6, BERT); defaults are BERT-BASE uncased.

    ``hidden_size`` = H, ``num_hidden_layers`` = L, ``num_attention_heads`` = A (each head
    attends in H / A dimensions), ``intermediate_size`` = the feed-forward size (4H);
    ``type_vocab_size`` segments; ``layer_norm_eps`` 1e-12; ``initializer_range`` the standard
    deviation of the initial weights; ``num_labels`` and ``classifier_dropout`` (None: the
    hidden dropout) serve the fine-tuning heads.
    """

    vocab_size: int = 30522
    hidden_size: int = 768
    num_hidden_layers: int = 12
    num_attention_heads: int = 12
    intermediate_size: int = 3072
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    initializer_range: float = 0.02
    pad_token_id: int = 0
    num_labels: int = 2
    classifier_dropout: float | None = None

    def __post_init__(self) -> None:
        for name in SIZE_FIELDS:
            require_positive_int(name, getattr(self, name))
        for name in DROPOUT_FIELDS:
            require_dropout_probability(name, getattr(self, name))
        if self.classifier_dropout is not None:
            require_dropout_probability("classifier_dropout", self.classifier_dropout)
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(
                f"hidden_size={self.hidden_size} must be divisible by num_attention_heads="
                f"{self.num_attention_heads}: each head gets hidden_size / heads dimensions"
            )
        if not 0 <= self.pad_token_id < self.vocab_size:
            raise ValueError(
                f"pad_token_id={self.pad_token_id} must be an id of the vocabulary (0 .. "
                f"{self.vocab_size - 1})"
            )
        if not self.layer_norm_eps > 0:
            raise ValueError(f"layer_norm_eps must be > 0, got {self.layer_norm_eps}")

    @property
    def head_size(self) -> int:
        """d_k = H / A, the size of one attention head."""
        return self.hidden_size // self.num_attention_heads

    @property
    def head_dropout(self) -> float:
        """The dropout before a fine-tuning classifier: ``classifier_dropout`` or the hidden one."""
        return (
            self.hidden_dropout_prob if self.classifier_dropout is None else self.classifier_dropout
        )

    def to_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (what checkpoints store)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_hf(cls, hf_config: Any) -> BertConfig:
        """The same sizes as a Hugging Face ``transformers.BertConfig``, which must describe the
        model this module implements: an encoder (not a decoder) with the exact GELU and
        absolute positions.
        """
        if getattr(hf_config, "hidden_act", "gelu") != "gelu":
            raise ValueError(
                f"only hidden_act='gelu' (the exact x * Phi(x)) is implemented, got "
                f"{hf_config.hidden_act!r}"
            )
        if getattr(hf_config, "position_embedding_type", "absolute") != "absolute":
            raise ValueError("only absolute (learned) position embeddings are implemented")
        if getattr(hf_config, "is_decoder", False):
            raise ValueError("only the bidirectional encoder is implemented, not is_decoder=True")
        fields = [field.name for field in dataclasses.fields(cls)]
        return cls(**{name: getattr(hf_config, name) for name in fields})
