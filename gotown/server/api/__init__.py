"""HTTP routes (``routes/``, one module per resource) and the WebSocket (``socket.py``): thin,
they parse, call a service, and shape the answer."""
