"""Wireless Session Protocol (WAP-203-WSP, WAP-230-WSP): PDUs in ``pdu``, capabilities in
``capabilities``, header encoding in ``headers``, basic rules and ``WspCodecError`` in
``encoding``."""
