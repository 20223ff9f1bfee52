"""The WSP-to-HTTP gateway's pure parts: origin policy and message translation."""
