"""Progress lines for long work, readable both on a terminal and in CI logs."""

import sys
import threading
import time


class Progress:
    """Reports a counter: redrawn in place on a tty, a line every
    `every` seconds otherwise (so CI logs stay short but show life)."""

    def __init__(self, label: str, every: float = 30.0):
        self.label = label
        self.tty = sys.stderr.isatty()
        self.every = 1.0 if self.tty else every
        self.start = time.monotonic()
        self.last = 0.0

    def update(self, what: str, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last < self.every:
            return
        self.last = now
        line = f"[{self.label}] {what} ({now - self.start:.0f}s)"
        if self.tty:
            sys.stderr.write("\r\033[K" + line)
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    def done(self, what: str) -> None:
        line = f"[{self.label}] {what} in {time.monotonic() - self.start:.1f}s"
        sys.stderr.write(("\r\033[K" if self.tty else "") + line + "\n")
        sys.stderr.flush()


class Heartbeat:
    """Calls `show()` every `every` seconds from a daemon thread, so work
    whose steps take minutes (a gem5 boot) still shows it is alive."""

    def __init__(self, show, every: float):
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, args=(show, every), daemon=True)

    def _beat(self, show, every):
        while not self._stop.wait(every):
            show()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
