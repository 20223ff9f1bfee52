"""Performance-enhancing proxies (RFC 3135): Snoop and Split TCP, as sans-IO objects that
see every IP packet crossing their point of the path."""
