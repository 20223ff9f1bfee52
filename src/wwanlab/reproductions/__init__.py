"""The papers' reproductions, one module (or sub-package) per paper.

Each module builds its scenarios from the experiments machinery, cites every parameter
to its paper, lists its assumptions and states the paper's claims as data; importing it
registers the reproduction (``wwanlab.experiments.reproduction.register``), and
``wwanlab reproduce`` imports every module of this package.
"""
