"""The Transformer (Chapter 5), bottom up: scaled dot-product attention, multi-head attention,
the position-wise feed-forward network, layer normalisation, embeddings and positional encodings,
the encoder and decoder layers (``layers``) and stacks (``model``); the models built on them (a
classifier, a decoder-only language model with its key-value cache, a sequence-to-sequence
Transformer); the attention maps read out of a trained model; and what multi-head attention
requires of its arguments (``requirements``).
"""
