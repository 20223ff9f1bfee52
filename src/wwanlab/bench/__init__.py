"""``wwanlab bench transports``: today's transports moving one file across a 2003 link.

A client inside the emulator fetches the same random file from a server outside with
every transport of the registry (``registry.py``; one module per family under
``transports/``), the sha256 checked on every transfer; ``run.py`` measures, ``page.py``
draws the report page.
"""
