"""The mastermind suite: being written; registers nothing yet."""
