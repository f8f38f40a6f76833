from allegrex.errors import AllegrexError


class LoaderError(AllegrexError):
    """A file that cannot be loaded: the message names the file part at fault."""
