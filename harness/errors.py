"""Errors the command line turns into one clear line and exit code 2."""


class UsageError(Exception):
    """Bad input from the user: arguments, sizes, folders or files. The message is the whole story."""
