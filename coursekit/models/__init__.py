"""The models of the course, each written from the equations of its chapter."""

from coursekit.models.bert.config import BertConfig
from coursekit.models.bert.embeddings import BertEmbeddings
from coursekit.models.bert.encoder import BertEncoder, BertLayer, BertPooler, BertSelfAttention
from coursekit.models.bert.heads import BertForMaskedLM, BertForPreTraining
from coursekit.models.bert.model import BertModel, BertPreTrainedModel
from coursekit.models.bert.outputs import (
    BertLogitsOutput,
    BertModelOutput,
    BertPreTrainingOutput,
    BertQuestionAnsweringOutput,
)
from coursekit.models.bert.span import best_span
from coursekit.models.bert.tasks import (
    BertForQuestionAnswering,
    BertForSequenceClassification,
    BertForTokenClassification,
)
from coursekit.models.ngram import NGramLanguageModel
from coursekit.models.recurrent.cells import GRUCell, LSTMCell, RNNCell
from coursekit.models.recurrent.classifier import BagOfWordsClassifier, RecurrentClassifier
from coursekit.models.recurrent.factory import recurrent_layer
from coursekit.models.recurrent.language_model import RecurrentLanguageModel
from coursekit.models.recurrent.network import GRU, LSTM, RNN
from coursekit.models.seq2seq.attention import (
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
from coursekit.models.seq2seq.decoders import BahdanauDecoder, LuongDecoder
from coursekit.models.seq2seq.encoder_decoder import (
    Bridge,
    Decoder,
    Encoder,
    EncoderMemory,
    RecurrentDecoderState,
)
from coursekit.models.seq2seq.local_attention import LocalAttention, hard_attention
from coursekit.models.seq2seq.model import Seq2Seq, Seq2SeqOutput
from coursekit.models.seq2seq.pointer import (
    PointerNetwork,
    collate_pointer_pairs,
    pointer_loss,
    pointer_targets,
)
from coursekit.models.transformer.classifier import TransformerClassifier
from coursekit.models.transformer.embedding import TokenEmbedding, TransformerEmbedding
from coursekit.models.transformer.feed_forward import (
    PositionwiseFeedForward,
    position_wise_feed_forward,
)
from coursekit.models.transformer.kv_cache import KeyValueCache, LayerKeyValues
from coursekit.models.transformer.language_model import TransformerLanguageModel
from coursekit.models.transformer.layer_norm import LayerNorm, layer_norm
from coursekit.models.transformer.layers import TransformerDecoderLayer, TransformerEncoderLayer
from coursekit.models.transformer.model import Transformer, TransformerDecoder, TransformerEncoder
from coursekit.models.transformer.multihead_attention import MultiHeadAttention
from coursekit.models.transformer.positional_encoding import (
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    positional_shift_matrix,
    sinusoidal_positional_encoding,
)
from coursekit.models.transformer.scaled_dot_product import scaled_dot_product_attention
from coursekit.models.transformer.seq2seq import DecoderState, Seq2SeqTransformer
from coursekit.models.transformer_xl.layers import TransfoXLLayer, transformer_xl_mask
from coursekit.models.transformer_xl.memory import Mems, append_to_memory
from coursekit.models.transformer_xl.model import (
    TransfoXLLMHeadModel,
    TransfoXLLMHeadModelOutput,
    TransfoXLModel,
    TransfoXLModelOutput,
)
from coursekit.models.transformer_xl.relative_attention import (
    RelativeMultiHeadAttention,
    RelativeScoreTerms,
    relative_score_terms,
    relative_scores,
)
from coursekit.models.transformer_xl.relative_position import (
    relative_distances,
    relative_position_encoding,
    relative_shift,
)
from coursekit.models.xlnet.attention import TwoStreamRelativeAttention, XLNetLayer
from coursekit.models.xlnet.model import (
    XLNetLMHeadModel,
    XLNetLMHeadModelOutput,
    XLNetModel,
    XLNetModelOutput,
)
from coursekit.models.xlnet.permutation import (
    PermutationPrediction,
    permutation_masks,
    sample_permutation,
)

__all__ = [
    "AdditiveAttention",
    "Attention",
    "BagOfWordsClassifier",
    "BahdanauDecoder",
    "BertConfig",
    "BertEmbeddings",
    "BertEncoder",
    "BertForMaskedLM",
    "BertForPreTraining",
    "BertForQuestionAnswering",
    "BertForSequenceClassification",
    "BertForTokenClassification",
    "BertLayer",
    "BertLogitsOutput",
    "BertModel",
    "BertModelOutput",
    "BertPooler",
    "BertPreTrainedModel",
    "BertPreTrainingOutput",
    "BertQuestionAnsweringOutput",
    "BertSelfAttention",
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
    "Mems",
    "MultiHeadAttention",
    "NGramLanguageModel",
    "PermutationPrediction",
    "PointerNetwork",
    "PositionwiseFeedForward",
    "RNN",
    "RNNCell",
    "RecurrentClassifier",
    "RecurrentDecoderState",
    "RecurrentLanguageModel",
    "RelativeMultiHeadAttention",
    "RelativeScoreTerms",
    "ScaledDotAttention",
    "Seq2Seq",
    "Seq2SeqOutput",
    "Seq2SeqTransformer",
    "SinusoidalPositionalEncoding",
    "TokenEmbedding",
    "TransfoXLLMHeadModel",
    "TransfoXLLMHeadModelOutput",
    "TransfoXLLayer",
    "TransfoXLModel",
    "TransfoXLModelOutput",
    "Transformer",
    "TransformerClassifier",
    "TransformerDecoder",
    "TransformerDecoderLayer",
    "TransformerEmbedding",
    "TransformerEncoder",
    "TransformerEncoderLayer",
    "TransformerLanguageModel",
    "TwoStreamRelativeAttention",
    "XLNetLMHeadModel",
    "XLNetLMHeadModelOutput",
    "XLNetLayer",
    "XLNetModel",
    "XLNetModelOutput",
    "append_to_memory",
    "best_span",
    "collate_pointer_pairs",
    "hard_attention",
    "layer_norm",
    "masked_softmax",
    "permutation_masks",
    "pointer_loss",
    "pointer_targets",
    "position_wise_feed_forward",
    "positional_shift_matrix",
    "recurrent_layer",
    "relative_distances",
    "relative_position_encoding",
    "relative_score_terms",
    "relative_scores",
    "relative_shift",
    "sample_permutation",
    "scaled_dot_product_attention",
    "sinusoidal_positional_encoding",
    "transformer_xl_mask",
]
