"""GoTown: the card game as a Python library, bots, a web table and tools."""

__version__ = "0.1.0"
