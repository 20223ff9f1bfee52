"""Wireless Transaction Protocol (WAP-201-WTP): PDU codec in ``pdu``, numbers in ``constants``."""
