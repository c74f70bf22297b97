"""Transformer-XL (Chapter 7): relative positions and the relative shift
(``relative_position``), the relative attention score (``relative_attention``), the layer that
attends over the memory and the segment (``layers``), the memory itself (``memory``) and the
language model (``model``).
"""
