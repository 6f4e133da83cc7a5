"""The built-in suites, installed as ``swarbench.suites``; each registers through the ``swarbench`` entry point."""
