"""A local HTTP server for tests that stand in for a world-model server, a model server or a URL.

``StubServer(respond)`` serves on 127.0.0.1 (a free port) from a thread per request;
``respond(method, path, body)`` returns ``(status, payload)`` or ``(status, payload, content_type)``
(a dict payload is sent as JSON, bytes as they are), or None to drop the connection unanswered.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[[str, str, bytes], Any]


class StubServer:
    """The server (module docstring); ``base`` is ``http://127.0.0.1:PORT``; a context manager."""

    def __init__(self, respond: Respond) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _reply(self, method: str) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                reply = respond(method, self.path, body)
                if reply is None:
                    self.close_connection = True
                    return
                status, payload, kind = (*reply, "application/json")[:3]
                data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                self._reply("GET")

            def do_POST(self) -> None:  # noqa: N802
                self._reply("POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> StubServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
