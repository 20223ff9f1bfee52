"""``python -m wwanlab``: the command line, where no ``wwanlab`` script is on the path."""

from wwanlab.cli import main

main()
