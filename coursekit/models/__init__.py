"""The models of the course, each written from the equations of its chapter."""

from coursekit.models.attention import (
    AdditiveAttention,
    Attention,
    ConcatAttention,
    CosineAttention,
    DotAttention,
    GeneralAttention,
    LocationAttention,
    ScaledDotAttention,
    masked_softmax,
)
from coursekit.models.attention_decoders import BahdanauDecoder, LuongDecoder
from coursekit.models.classifier import BagOfWordsClassifier, RecurrentClassifier
from coursekit.models.embedding import TokenEmbedding, TransformerEmbedding
from coursekit.models.encoder_decoder import (
    Bridge,
    Decoder,
    Encoder,
    EncoderMemory,
    RecurrentDecoderState,
)
from coursekit.models.feed_forward import PositionwiseFeedForward, position_wise_feed_forward
from coursekit.models.kv_cache import KeyValueCache, LayerKeyValues
from coursekit.models.language_model import RecurrentLanguageModel
from coursekit.models.layer_norm import LayerNorm, layer_norm
from coursekit.models.layers import recurrent_layer
from coursekit.models.local_attention import LocalAttention, hard_attention
from coursekit.models.multihead_attention import MultiHeadAttention
from coursekit.models.ngram import NGramLanguageModel
from coursekit.models.pointer import (
    PointerNetwork,
    collate_pointer_pairs,
    pointer_loss,
    pointer_targets,
)
from coursekit.models.positional_encoding import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    positional_shift_matrix,
    sinusoidal_positional_encoding,
)
from coursekit.models.recurrent import GRU, LSTM, RNN
from coursekit.models.recurrent_cells import GRUCell, LSTMCell, RNNCell
from coursekit.models.scaled_dot_product import scaled_dot_product_attention
from coursekit.models.seq2seq import Seq2Seq, Seq2SeqOutput
from coursekit.models.seq2seq_transformer import DecoderState, Seq2SeqTransformer
from coursekit.models.transformer import Transformer, TransformerDecoder, TransformerEncoder
from coursekit.models.transformer_classifier import TransformerClassifier
from coursekit.models.transformer_layers import TransformerDecoderLayer, TransformerEncoderLayer
from coursekit.models.transformer_lm import TransformerLanguageModel

__all__ = [
    "AdditiveAttention",
    "Attention",
    "BagOfWordsClassifier",
    "BahdanauDecoder",
    "Bridge",
    "ConcatAttention",
    "CosineAttention",
    "Decoder",
    "DecoderState",
    "DotAttention",
    "Encoder",
    "EncoderMemory",
    "GRU",
    "GRUCell",
    "GeneralAttention",
    "KeyValueCache",
    "LSTM",
    "LSTMCell",
    "LayerKeyValues",
    "LayerNorm",
    "LearnedPositionalEmbedding",
    "LocalAttention",
    "LocationAttention",
    "LuongDecoder",
    "MultiHeadAttention",
    "NGramLanguageModel",
    "PointerNetwork",
    "PositionwiseFeedForward",
    "RNN",
    "RNNCell",
    "RecurrentClassifier",
    "RecurrentDecoderState",
    "RecurrentLanguageModel",
    "ScaledDotAttention",
    "Seq2Seq",
    "Seq2SeqOutput",
    "Seq2SeqTransformer",
    "SinusoidalPositionalEncoding",
    "TokenEmbedding",
    "Transformer",
    "TransformerClassifier",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEmbedding",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "TransformerLanguageModel",
    "collate_pointer_pairs",
    "hard_attention",
    "layer_norm",
    "masked_softmax",
    "pointer_loss",
    "pointer_targets",
    "position_wise_feed_forward",
    "positional_shift_matrix",
    "recurrent_layer",
    "scaled_dot_product_attention",
    "sinusoidal_positional_encoding",
]
