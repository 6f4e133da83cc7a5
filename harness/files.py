"""Writing the files of a run so that whatever goes wrong (a full disk, an interrupt) leaves each one readable.

A whole file is written beside its target and renamed over it: a reader sees the old file or the new one, never
half of either. A line appended to a record file is taken back if it could not be written whole, so the next
line does not start in the middle of a cut one. Files follow the user's umask, as any file a program writes
(``tempfile`` makes them 0600, which a reports folder shared by a team cannot read). An error always names the
file it was writing.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Optional


def current_umask() -> int:
    """The process's umask: reading it means setting it (the standard library has no getter), so it is set
    straight back."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _naming(exc: OSError, path: Path) -> OSError:
    """The same error with the file it was about: ENOSPC from a write names none."""
    if exc.filename is not None:
        return exc
    return type(exc)(exc.errno, exc.strerror or str(exc), str(path))


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all, as a file the umask allows others to read."""
    path = Path(path)
    if path.is_symlink():  # write where the link points, not over the link
        path = path.resolve()
    if path.exists() and not path.is_file():
        # a device or a pipe (/dev/stdout, a fifo): nothing to rename over it, and renaming would replace it
        try:
            with open(path, "w") as fh:
                fh.write(text)
        except OSError as exc:
            raise _naming(exc, path) from None
        return
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "w") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _naming(exc, path) from None
        raise


def open_for_lines(path: Path) -> int:
    """A descriptor to append lines to ``path`` with (``append_line``), kept open by its writer."""
    try:
        return os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as exc:
        raise _naming(exc, Path(path)) from None


def append_line(path: Path, line: str, durable: bool = True, fd: Optional[int] = None) -> None:
    """Append one line (``line`` ends without a newline) and, when ``durable``, wait for it to reach the disk; a
    line that cannot be written whole is cut back off, so the file stays a sequence of whole lines. A line that
    is not durable is still read by every process at once and survives the writer's crash, only not the
    machine's: enough for progress events, not for a measured result."""
    data = (line + "\n").encode()
    held = fd is not None  # the writer's own descriptor (``open_for_lines``), left open
    if fd is None:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        start = os.fstat(fd).st_size
        try:
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
            if durable:
                os.fsync(fd)
        except BaseException as exc:
            try:
                os.ftruncate(fd, start)
            except OSError:
                pass
            if isinstance(exc, OSError):
                raise _naming(exc, Path(path)) from None
            raise
    finally:
        if not held:
            os.close(fd)
