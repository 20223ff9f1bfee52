"""The bench's transport families, one module each (each calls ``registry.register``)."""
