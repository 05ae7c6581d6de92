from .fixtures import browser, server_url

__all__ = ["browser", "server_url"]
