"""GoTown in the terminal: ``gotown play``.

- :mod:`gotown.tui.play`: the full-screen table (Textual) against bots, or hot-seat among
  people at one keyboard; :mod:`gotown.tui.replay` steps through a saved record;
  :mod:`gotown.tui.remote` takes a seat at a game of a running ``gotown serve``
  (:mod:`gotown.tui.client` reaches it, :mod:`gotown.tui.protocol` reads its messages).
- :mod:`gotown.tui.plain`: the same game line by line (``--plain``), for screen readers,
  terminals where full-screen apps fail, and scripts; :mod:`gotown.tui.remote_plain` a
  server's game so.
- :mod:`gotown.tui.words`: the game in plain words, shared by both.

It uses the engine and the bots only (the server is reached over its HTTP and WebSocket API).
"""
