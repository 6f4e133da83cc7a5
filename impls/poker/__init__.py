"""The poker suite: being written; registers nothing yet."""
