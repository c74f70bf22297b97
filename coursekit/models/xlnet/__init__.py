"""XLNet (Chapter 7): factorization orders for the permutation language model
(``permutation``), the masks of its two streams (``inputs``), two-stream relative attention
(``attention``) and the model (``model``), on Transformer-XL's memory and relative positions.
"""
