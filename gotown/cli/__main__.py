"""``python -m gotown.cli``: the ``gotown`` command."""

from . import main

main()
