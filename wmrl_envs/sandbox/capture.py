"""Bounded capture of a stream: the first and last bytes are kept, the middle is counted."""

from __future__ import annotations

from collections import deque


class HeadTail:
    """Keeps at most ``limit`` bytes of a stream: half from its head, half from its tail."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit - limit // 2
        self.tail_limit = limit // 2
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_len = 0
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if not chunk or self.tail_limit == 0:
            return
        chunk = chunk[-self.tail_limit :]
        self.tail.append(chunk)
        self.tail_len += len(chunk)
        while self.tail_len - len(self.tail[0]) >= self.tail_limit:
            self.tail_len -= len(self.tail.popleft())

    @property
    def truncated(self) -> bool:
        return self.total > self.head_limit + self.tail_limit

    def text(self) -> str:
        """The kept bytes as text; a marker line says how many bytes were dropped."""
        tail = b"".join(self.tail)
        if self.truncated:
            tail = tail[-self.tail_limit :]
            dropped = self.total - len(self.head) - len(tail)
            marker = f"\n[... {dropped} bytes truncated ...]\n".encode()
            return (bytes(self.head) + marker + tail).decode("utf-8", "replace")
        return (bytes(self.head) + tail).decode("utf-8", "replace")
