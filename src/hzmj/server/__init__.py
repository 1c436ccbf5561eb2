"""The table server: rooms, real-time play over WebSocket, timers, persistence.

``create_app(ServerConfig(...))`` builds the FastAPI application; ``hzmj serve`` runs it
on uvicorn.  The engine (:class:`hzmj.game.Match`) is authoritative: the server only
routes actions to it, persists them and sends each seat its redacted events
(``docs/protocol.md``).
"""

from hzmj.server.config import ServerConfig

__all__ = ["ServerConfig"]
