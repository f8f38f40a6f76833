"""Errors of the model tools: a bad checkpoint or tokenizer file, an unknown shape."""

from allegrex.errors import AllegrexError


class LlamaError(AllegrexError):
    """A model or tokenizer file that cannot be read or written as asked."""
