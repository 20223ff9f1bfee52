"""Error roots. Command-line code turns a ``UsageError`` into one line and exit code 2."""


class WwanlabError(Exception):
    """Base of every error wwanlab raises on purpose."""


class UsageError(WwanlabError, ValueError):
    """Bad input from a user: unknown name, value out of range, unreadable file.

    The message must name the problem in one line; the CLI prints it and exits with 2.
    """
