"""swarbench-parse8: a swarbench plugin that brings a kernel of its own, ``parse8.checked``.

Eight ASCII bytes, as one little-endian 64-bit word read from memory, become the number they spell, or -1 when
any of them is not a digit. The SWAR versions follow Daniel Lemire's blog posts "Quickly parsing eight digits"
and "Quickly identifying a sequence of digits in a string of characters" (2018): one test of all eight bytes,
then three multiplications instead of eight.

- spec.py: the kernel (inputs, generator, reference, known answers, validation).
- python.py, native.py (C through swarbench.cbuild, c/parse8.c), jit.py (Numba): the implementations.
- plugin.py: the hooks that register them.
"""
