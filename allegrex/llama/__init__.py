"""Model tools for the llama2 port: llama2.c checkpoints (legacy fp32 and q80 v2),
tokenizer.bin files, fp32 -> q80 conversion and deterministic random models."""

from allegrex.llama.checkpoint import Config, Checkpoint, read_checkpoint, write_legacy, write_q80
from allegrex.llama.errors import LlamaError
from allegrex.llama.tokenizer import Tokenizer, read_tokenizer, write_tokenizer

__all__ = [
    "Config", "Checkpoint", "read_checkpoint", "write_legacy", "write_q80",
    "LlamaError", "Tokenizer", "read_tokenizer", "write_tokenizer",
]
