"""The models of the course, each written from the equations of its chapter."""

from coursekit.models.classifier import BagOfWordsClassifier, RecurrentClassifier
from coursekit.models.language_model import RecurrentLanguageModel
from coursekit.models.layers import recurrent_layer
from coursekit.models.ngram import NGramLanguageModel
from coursekit.models.recurrent import GRU, LSTM, RNN
from coursekit.models.recurrent_cells import GRUCell, LSTMCell, RNNCell

__all__ = [
    "GRU",
    "LSTM",
    "RNN",
    "BagOfWordsClassifier",
    "GRUCell",
    "LSTMCell",
    "NGramLanguageModel",
    "RNNCell",
    "RecurrentClassifier",
    "RecurrentLanguageModel",
    "recurrent_layer",
]
