"""The HTTP routes, one module per resource, all under ``/api`` but the pages."""
