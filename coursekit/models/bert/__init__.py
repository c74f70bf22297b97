"""BERT (Chapter 6): its sizes (``config``), its input embeddings, its encoder and pooler, its
pretraining heads, the whole models (``model``) under Hugging Face's output names (``outputs``),
the fine-tuning heads (``tasks``), the decoding of an answer span (``span``) and what the
models require of their arguments (``requirements``).
"""
