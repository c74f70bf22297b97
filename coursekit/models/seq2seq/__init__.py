"""Sequence to sequence and attention (Chapter 4): the encoder, the bridge and the plain decoder
(``encoder_decoder``), the whole model (``model``), soft attention and its scores (``attention``),
Bahdanau's and Luong's decoders (``decoders``), hard and local attention (``local_attention``),
pointer networks (``pointer``) and what the attention modules require of their arguments
(``requirements``).
"""
