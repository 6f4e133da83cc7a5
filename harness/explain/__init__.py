"""Why a row is as fast as it is: the code that was timed, what it should cost, and how far the row is from that.

A worker, after a case's last timed pass, calls its batch once more under a profiler to see which compiled
functions it reaches (``timed_code``): a C function of a cffi module, or a Numba dispatcher's compiled
signature. It disassembles that very code (the loaded module's file with objdump, or Numba's assembly of the
signature), finds the hot loop (``asm``), and asks llvm-mca what the loop costs a core (``mca``). The result is
one ``explain`` field of the case's result line; the results frame turns it into columns, beside the memory
limit from the machine's bandwidth (``bandwidth``, probed once per machine) and the arithmetic that sets each
row against both limits (``limits``). Renderers only format those columns; ``swarbench asm`` prints the listing.
"""
