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
from coursekit.models.encoder_decoder import (
    Bridge,
    Decoder,
    Encoder,
    EncoderMemory,
    RecurrentDecoderState,
)
from coursekit.models.language_model import RecurrentLanguageModel
from coursekit.models.layers import recurrent_layer
from coursekit.models.local_attention import LocalAttention, hard_attention
from coursekit.models.ngram import NGramLanguageModel
from coursekit.models.pointer import (
    PointerNetwork,
    collate_pointer_pairs,
    pointer_loss,
    pointer_targets,
)
from coursekit.models.recurrent import GRU, LSTM, RNN
from coursekit.models.recurrent_cells import GRUCell, LSTMCell, RNNCell
from coursekit.models.seq2seq import Seq2Seq, Seq2SeqOutput

__all__ = [
    "AdditiveAttention",
    "Attention",
    "BagOfWordsClassifier",
    "BahdanauDecoder",
    "Bridge",
    "ConcatAttention",
    "CosineAttention",
    "Decoder",
    "DotAttention",
    "Encoder",
    "EncoderMemory",
    "GRU",
    "GRUCell",
    "GeneralAttention",
    "LSTM",
    "LSTMCell",
    "LocalAttention",
    "LocationAttention",
    "LuongDecoder",
    "NGramLanguageModel",
    "PointerNetwork",
    "RNN",
    "RNNCell",
    "RecurrentClassifier",
    "RecurrentDecoderState",
    "RecurrentLanguageModel",
    "ScaledDotAttention",
    "Seq2Seq",
    "Seq2SeqOutput",
    "collate_pointer_pairs",
    "hard_attention",
    "masked_softmax",
    "pointer_loss",
    "pointer_targets",
    "recurrent_layer",
]
