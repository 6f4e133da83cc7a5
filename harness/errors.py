"""Errors the command line turns into one clear line and exit code 2."""


class UsageError(Exception):
    """Bad input from the user: arguments, sizes, folders or files. The message is the whole story."""


class OutputError(Exception):
    """Output that could not be written (a full disk, /dev/full): not the user's input, so exit 1."""


def raise_if_interrupted(exc: BaseException) -> None:
    """Re-raise a Ctrl-C that reached us dressed as another exception, so no ``except Exception`` takes it for
    the code's own error. A KeyboardInterrupt that lands while a Numba-compiled function runs comes back as
    ``SystemError: CPUDispatcher(...) returned a result with an exception set``, with the interrupt as its
    cause: caught as an error, it reported the case it hit as ERROR and the worker went on timing, the Ctrl-C
    spent, until the engine killed it and everything it had measured was lost."""
    seen, cur = set(), exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, KeyboardInterrupt):
            raise KeyboardInterrupt from exc
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
