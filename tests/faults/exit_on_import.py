"""A plugin whose import ends the process."""

import sys

sys.exit(3)
