"""The models of the course, each written from the equations of its chapter."""

from coursekit.models.ngram import NGramLanguageModel

__all__ = ["NGramLanguageModel"]
