"""The cephalopod suite: being written; registers nothing yet."""
