"""The one error class of the WBXML codec."""

from wwanlab.core.errors import WwanlabError


class WbxmlError(WwanlabError, ValueError):
    """Malformed WBXML or XML, or a document the chosen token table cannot express.

    WAP-192-WBXML has no reason codes; the message names the problem and, when decoding,
    the byte offset where it was found.
    """
