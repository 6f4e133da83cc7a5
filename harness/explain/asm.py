"""x86-64 assembly in AT&T syntax, as objdump disassembles a module and as LLVM prints Numba's code: functions
of instructions, their control-flow graph, the natural loops in it, and the loop a batch spends its time in.

Loops are found the textbook way (Aho et al., "Compilers", 9.6): a back edge is a branch to a block that
dominates it, and its loop is the header plus every block that reaches the branch without passing the header. A
backward jump alone is not a loop: compilers place a function's cold paths after its body and jump back from
them. Which innermost loop is hot is decided from the code alone (the widest vectors, then the most bytes moved
an iteration, then the most instructions); the listing says so, and hardware counters, where the machine has
them, can confirm it (instructions per op counted against the loop's).

No library: capstone or pyelftools would decode bytes, but objdump's text is what a reader checks by hand, and
both syntaxes share one parser here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

PREFIXES = {
    "lock",
    "rep",
    "repe",
    "repz",
    "repne",
    "repnz",
    "cs",
    "ds",
    "ss",
    "es",
    "fs",
    "gs",
    "data16",
    "data32",
    "addr32",
    "notrack",
    "bnd",
    "rex",
    "rex.w",
    "rex.b",
    "rex.r",
    "rex.x",
    "rex.wb",
    "rex.wr",
    "rex.wx",
    "rex.rb",
    "rex.xb",
    "{vex}",
    "{vex3}",
    "{evex}",
    "xacquire",
    "xrelease",
}
REGISTER_BYTES = (("zmm", 64), ("ymm", 32), ("xmm", 16))
GPR64 = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp"} | {f"r{i}" for i in range(8, 16)}
GPR32 = {"eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp"} | {f"r{i}d" for i in range(8, 16)}
GPR16 = {"ax", "bx", "cx", "dx", "si", "di", "bp", "sp"} | {f"r{i}w" for i in range(8, 16)}
GPR8 = {"al", "bl", "cl", "dl", "ah", "bh", "ch", "dh", "sil", "dil", "bpl", "spl"} | {f"r{i}b" for i in range(8, 16)}
SUFFIX_BYTES = {"b": 1, "w": 2, "l": 4, "d": 4, "q": 8}
# Mnemonics that only read their last operand, and those that only write it (the rest read and write it).
READS_LAST = ("cmp", "test", "bt", "ucomis", "comis", "vucomis", "vcomis", "ptest", "vptest", "push")
WRITES_LAST = (
    "mov",
    "vmov",
    "set",
    "stos",
    "vextract",
    "extract",
    "pextr",
    "vpextr",
    "vpmov",
    "vpcompress",
    "vcompress",
    "vscatter",
    "vpscatter",
    "pop",
    "cvt",
    "vcvt",
    "stmxcsr",
    "vstmxcsr",
    "fst",
    "fist",
)
NO_ACCESS = ("lea", "nop", "prefetch", "clflush", "clwb", "endbr")
ENDS_BLOCK = ("ret", "ud2", "hlt")
PADDING = ("nop", "nopw", "nopl", "int3")  # what a compiler lays between functions and before aligned code
ROOT = -1  # the control-flow graph's root above its entry blocks


@dataclass
class Instruction:
    address: int  # objdump: the address; LLVM's text: the line's place in the function
    mnemonic: str
    operands: str
    target: int | None = None  # a direct branch's or call's target address
    target_name: str = ""  # what the target is called ("contains_batch+0x18", "foo@plt", ".LBB0_8")
    reference: str = ""  # a symbol a rip-relative operand names (objdump's "# 30a0 <SPREAD>")

    @property
    def text(self) -> str:
        return f"{self.mnemonic} {self.operands}".strip()

    @property
    def is_branch(self) -> bool:
        return self.mnemonic.startswith("j") or self.mnemonic.startswith("loop")

    @property
    def is_call(self) -> bool:
        return self.mnemonic.startswith("call")

    @property
    def ends_flow(self) -> bool:
        """Nothing after it runs next: a return, a trap, an unconditional or indirect jump."""
        return (
            self.mnemonic.startswith(ENDS_BLOCK)
            or self.mnemonic in ("jmp", "jmpq")
            or (self.is_branch and "*" in self.operands)
        )


@dataclass
class Function:
    name: str
    instructions: list[Instruction]
    labels: dict[int, str] = field(default_factory=dict)  # address -> a label printed before it (LLVM's text)
    numbered: bool = False  # addresses are the instructions' places in LLVM's text, not addresses in a module

    def at(self, address: int) -> int:
        """The index of the instruction at ``address``."""
        return self._index[address]

    @property
    def _index(self) -> dict[int, int]:
        if not hasattr(self, "_cache"):
            self._cache = {ins.address: i for i, ins in enumerate(self.instructions)}
        return self._cache


@dataclass
class Loop:
    function: str
    header: int  # address of the loop's first instruction in the order it is laid out
    addresses: list[int]  # every instruction of its body, in address order
    innermost: bool = True


# ---- parsing ----------------------------------------------------------------------------------------------------

_OBJDUMP_FUNCTION = re.compile(r"^([0-9a-f]+) <(.+)>:\s*$")
_OBJDUMP_LINE = re.compile(r"^\s+([0-9a-f]+):\s+(.*)$")
_OBJDUMP_TARGET = re.compile(r"^(?:0x)?([0-9a-f]+)(?: <([^>]+)>)?$")  # raw bytes' targets have no symbol
_OBJDUMP_COMMENT = re.compile(r"#\s*([0-9a-f]+) <([^>+]+)(?:\+0x[0-9a-f]+)?>")


def _split_prefixes(text: str) -> tuple[str, str]:
    """(mnemonic, operands) of an instruction's text, its prefixes dropped ("cs nopw 0x0(%rax)" -> nopw)."""
    words = text.split()
    while len(words) > 1 and words[0].lower() in PREFIXES:
        words = words[1:]
    if not words:
        return "", ""
    return words[0].lower(), " ".join(words[1:])


def parse_objdump(text: str) -> dict[str, Function]:
    """``objdump -d --no-show-raw-insn -w`` (AT&T syntax) as functions by name."""
    functions: dict[str, Function] = {}
    current: Function | None = None
    for line in text.splitlines():
        head = _OBJDUMP_FUNCTION.match(line)
        if head:
            current = functions.setdefault(head.group(2), Function(head.group(2), []))
            continue
        m = _OBJDUMP_LINE.match(line)
        if not m or current is None:
            continue
        body = m.group(2).strip()
        if not body or body == "..." or body.startswith("(bad)"):
            continue
        body, _, comment = body.partition("#")
        mnemonic, operands = _split_prefixes(body)
        if not mnemonic:
            continue
        ins = Instruction(int(m.group(1), 16), mnemonic, operands.strip())
        target = _OBJDUMP_TARGET.match(ins.operands)
        if target and (ins.is_branch or ins.is_call):
            ins.target, ins.target_name = int(target.group(1), 16), target.group(2) or ""
        named = _OBJDUMP_COMMENT.search("#" + comment) if comment else None
        if named:
            ins.reference = named.group(2)
        current.instructions.append(ins)
    return {name: f for name, f in functions.items() if f.instructions}


_LLVM_LABEL = re.compile(r"^([A-Za-z_.$][\w.$@]*):\s*(#.*)?$")


def parse_llvm(text: str) -> dict[str, Function]:
    """LLVM's assembly printout (Numba's ``inspect_asm``) as functions by name: a global label starts one, a
    local label (``.LBB0_8``) names a block inside it; instructions are numbered in order."""
    functions: dict[str, Function] = {}
    current: Function | None = None
    pending: list[str] = []  # labels waiting for their instruction
    label_at: dict[str, int] = {}
    number = 0
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        label = _LLVM_LABEL.match(line.strip()) if not line[0].isspace() else None
        if label:
            name = label.group(1)
            if name.startswith(".L"):
                if name.startswith(".Lfunc_end"):
                    current = None
                elif current is not None:
                    pending.append(name)
            else:
                current = functions.setdefault(name, Function(name, [], numbered=True))
                pending = []
            continue
        stripped = line.strip()
        if current is None or stripped.startswith("."):
            continue  # a directive
        mnemonic, operands = _split_prefixes(stripped.replace("\t", " "))
        if not mnemonic:
            continue
        number += 1
        ins = Instruction(number, mnemonic, operands.strip())
        for name in pending:
            label_at[name] = number
            current.labels[number] = name
        pending = []
        if (ins.is_branch or ins.is_call) and re.fullmatch(r"[A-Za-z_.$][\w.$@]*", ins.operands):
            ins.target_name = ins.operands
        current.instructions.append(ins)
    for function in functions.values():
        for ins in function.instructions:
            if ins.target_name in label_at:
                ins.target = label_at[ins.target_name]
    return {name: f for name, f in functions.items() if f.instructions}


# ---- memory accesses --------------------------------------------------------------------------------------------


def operands_of(text: str) -> list[str]:
    """Operands split at the commas outside parentheses and braces."""
    out, depth, current = [], 0, ""
    for ch in text:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        out.append(current.strip())
    return out


def _register_bytes(operand: str) -> int:
    name = operand.strip().lstrip("%").split()[0].lower() if operand.strip().startswith("%") else ""
    for prefix, size in REGISTER_BYTES:
        if name.startswith(prefix):
            return size
    for names, size in ((GPR64, 8), (GPR32, 4), (GPR16, 2), (GPR8, 1)):
        if name in names:
            return size
    return 0


def _access_bytes(ins: Instruction, operands: list[str]) -> int:
    """How many bytes an instruction's memory operand covers, from its mnemonic or its register operands."""
    m = ins.mnemonic
    if m.startswith("set"):
        return 1
    for stem, size in (("movzb", 1), ("movsb", 1), ("movzw", 2), ("movsw", 2), ("movslq", 4), ("movsl", 4)):
        if m.startswith(stem):
            return size
    for stem in ("vpbroadcast", "vbroadcasts", "pinsr", "vpinsr", "pextr", "vpextr"):
        if m.startswith(stem) and m[len(stem) : len(stem) + 1] in SUFFIX_BYTES:
            return SUFFIX_BYTES[m[len(stem)]]
    if m.rstrip("ls") in ("movd", "vmovd") or m in ("movss", "vmovss", "vbroadcastss"):
        return 4
    if m in ("movq", "vmovq", "movsd", "vmovsd", "vmovlps", "vmovhps", "vmovlpd", "vmovhpd", "vbroadcastsd"):
        return 8
    widest = max((_register_bytes(o) for o in operands), default=0)
    broadcast = re.search(r"\{1to(\d+)\}", ins.operands)
    if broadcast and widest:
        return widest // int(broadcast.group(1))
    if widest:
        return widest
    return SUFFIX_BYTES.get(m[-1], 0) if len(m) > 2 else 0


def memory_access(ins: Instruction) -> tuple[int, int]:
    """(bytes loaded, bytes stored) by one instruction."""
    if "(" not in ins.operands or ins.mnemonic.startswith(NO_ACCESS) or ins.is_branch or ins.is_call:
        return 0, 0
    operands = operands_of(ins.operands)
    memory = [i for i, o in enumerate(operands) if "(" in o]
    if not memory:
        return 0, 0
    size = _access_bytes(ins, operands)
    if memory[-1] != len(operands) - 1:
        return size, 0  # a source operand
    if ins.mnemonic.startswith(READS_LAST):
        return size, 0
    if ins.mnemonic.startswith(WRITES_LAST):
        return 0, size
    return size, size  # read, modified, written back


def vector_bytes(ins: Instruction) -> int:
    """The widest vector register an instruction names (64 for zmm, 32 ymm, 16 xmm; 8 for none)."""
    found = [size for prefix, size in REGISTER_BYTES if f"%{prefix}" in ins.operands]
    return max(found, default=8)


# ---- control flow and loops -------------------------------------------------------------------------------------


def _blocks(function: Function) -> tuple[list[list[int]], dict[int, list[int]]]:
    """Basic blocks (lists of instruction indices) and each block's successors (block numbers)."""
    ins = function.instructions
    addresses = {x.address for x in ins}
    leaders = {0}
    for i, x in enumerate(ins):
        if x.is_branch and x.target in addresses:
            leaders.add(function.at(x.target))
        if (x.is_branch or x.ends_flow) and i + 1 < len(ins):
            leaders.add(i + 1)
    starts = sorted(leaders)
    blocks = [list(range(s, e)) for s, e in zip(starts, starts[1:] + [len(ins)])]
    block_of = {s: b for b, s in enumerate(starts)}
    successors: dict[int, list[int]] = {}
    for b, block in enumerate(blocks):
        last = ins[block[-1]]
        succ = []
        if last.is_branch and last.target in addresses:
            succ.append(block_of[function.at(last.target)])
        if not last.ends_flow and b + 1 < len(blocks):
            succ.append(b + 1)
        successors[b] = succ
    return blocks, successors


def _dominators(successors: dict[int, list[int]], count: int, padding: frozenset = frozenset()) -> dict[int, int]:
    """Each block's immediate dominator (Cooper, Harvey and Kennedy's iterative algorithm). Blocks the entry
    does not reach (the cases of a jump table, reached through an indirect jump) hang off a root above it,
    ROOT, as entries of their own, so their loops are found too; ``padding`` blocks never do (a ``nop`` after
    a ``ret`` falls into the cold path behind it, and as an entry would rob the loop that path returns to of its
    header's dominance)."""
    entries, reached = [], set()
    for b in range(count):  # the entry, then the first block in address order that nothing reached yet
        if b in reached or (b in padding and b != 0):
            continue
        entries.append(b)
        work = [b]
        while work:
            x = work.pop()
            if x not in reached:
                reached.add(x)
                work += successors.get(x, ())
    graph = dict(successors)
    graph[ROOT] = entries
    order, seen = [], {ROOT}
    stack = [(ROOT, iter(graph[ROOT]))]
    while stack:  # depth-first, for a reverse postorder
        node, children = stack[-1]
        child = next(children, None)
        if child is None:
            order.append(node)
            stack.pop()
        elif child not in seen:
            seen.add(child)
            stack.append((child, iter(graph.get(child, ()))))
    order.reverse()
    rank = {b: i for i, b in enumerate(order)}
    predecessors: dict[int, list[int]] = {b: [] for b in order}
    for b in order:
        for s in graph.get(b, ()):
            predecessors[s].append(b)
    idom = {ROOT: ROOT}

    def meet(a: int, b: int) -> int:
        while a != b:
            while rank[a] > rank[b]:
                a = idom[a]
            while rank[b] > rank[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            done = [p for p in predecessors[b] if p in idom]
            if not done:
                continue
            new = done[0]
            for p in done[1:]:
                new = meet(p, new)
            if idom.get(b) != new:
                idom[b], changed = new, True
    return idom


def _dominates(idom: dict[int, int], a: int, b: int) -> bool:
    while True:
        if a == b:
            return True
        if b == ROOT or b not in idom:
            return False
        b = idom[b]


def loops(function: Function) -> list[Loop]:
    """The function's natural loops, those with the same header merged, each marked innermost or not."""
    if not function.instructions:
        return []
    blocks, successors = _blocks(function)
    ins = function.instructions
    padding = frozenset(b for b, block in enumerate(blocks) if all(ins[i].mnemonic in PADDING for i in block))
    idom = _dominators(successors, len(blocks), padding)
    predecessors: dict[int, list[int]] = {}
    for b, succ in successors.items():
        for s in succ:
            predecessors.setdefault(s, []).append(b)
    bodies: dict[int, set[int]] = {}
    for b, succ in successors.items():
        if b not in idom:
            continue
        for h in succ:
            if _dominates(idom, h, b):  # a back edge b -> h
                body, work = {h, b}, [b]
                while work:
                    x = work.pop()
                    if x == h:
                        continue
                    for p in predecessors.get(x, ()):
                        if p not in body and p in idom and p != ROOT:
                            body.add(p)
                            work.append(p)
                bodies.setdefault(h, set()).update(body)
    out = []
    for h, body in bodies.items():
        nested = any(other != h and other in body for other in bodies)
        addresses = sorted(function.instructions[i].address for b in body for i in blocks[b])
        out.append(Loop(function.name, function.instructions[blocks[h][0]].address, addresses, not nested))
    return sorted(out, key=lambda lp: lp.header)


@dataclass
class LoopCost:
    """What one iteration of a loop does, from its instructions alone."""

    instructions: int
    loaded: int  # bytes, the stack's aside
    stored: int
    vector_bytes: int  # the widest register it uses
    calls: int


def cost(function: Function, loop: Loop | list[int]) -> LoopCost:
    """What one pass over a loop's instructions (or those at a list of addresses) does."""
    addresses = loop.addresses if isinstance(loop, Loop) else loop
    body = [function.instructions[function.at(a)] for a in addresses]
    # the stack's spills and temporaries stay in L1 and are no op's inputs or outputs: not counted as moved
    moved = [memory_access(x) if "(%rsp" not in x.operands else (0, 0) for x in body]
    return LoopCost(
        len(body),
        sum(m[0] for m in moved),
        sum(m[1] for m in moved),
        max((vector_bytes(x) for x in body), default=8),
        sum(x.is_call for x in body),
    )


def hot_loop(functions: Iterable[Function]) -> tuple[Function, Loop] | None:
    """The innermost loop a batch most likely spends its time in: one without calls, with the widest vectors,
    then the most bytes moved an iteration, then the most instructions; None where there is no loop at all."""
    best, best_key = None, None
    for function in functions:
        for loop in loops(function):
            if not loop.innermost:
                continue
            c = cost(function, loop)
            key = (c.calls == 0, c.vector_bytes, c.loaded + c.stored, c.instructions)
            if best_key is None or key > best_key:
                best, best_key = (function, loop), key
    return best


def reachable(functions: dict[str, Function], entry: str, most: int = 64) -> list[Function]:
    """``entry`` and the functions of the same module it reaches: direct calls and jumps (through the PLT to a
    function the module defines too), and functions whose address it takes (a thread's start routine)."""
    out, todo, seen = [], [entry], {entry}
    while todo and len(out) < most:
        function = functions.get(todo.pop(0))
        if function is None:
            continue
        out.append(function)
        for ins in function.instructions:
            for name in (ins.target_name, ins.reference):
                name = re.sub(r"\+0x[0-9a-f]+$", "", name).removesuffix("@plt")
                if name and name not in seen and name in functions:
                    seen.add(name)
                    todo.append(name)
    return out


def mca_source(function: Function, addresses: list[int]) -> str:
    """The instructions at ``addresses`` (a loop's) as llvm-mca reads them: AT&T text, every branch and call
    pointed at one label (llvm-mca never follows them), objdump's comments and symbol names left out."""
    lines = [".Lloop:"]
    for a in addresses:
        ins = function.instructions[function.at(a)]
        operands = ins.operands
        if (ins.is_branch or ins.is_call) and (ins.target is not None or ins.target_name) and "*" not in operands:
            operands = ".Lloop"
        lines.append(f"\t{ins.mnemonic} {operands}".rstrip())
    return "\n".join(lines) + "\n"


def listing(function: Function, loop: Loop | None, most: int = 300, around: Loop | None = None) -> list[list]:
    """The function's lines as [address, text, mark]: ">" in the hot loop, "|" in the loop ``around`` it, "" else
    (at most ``most`` lines, a window around the loop where the function is longer), LLVM's block labels as lines
    of their own."""
    marked = set(loop.addresses) if loop else set()
    outer = set(around.addresses) if around else set()
    rows: list[list] = []
    for ins in function.instructions:
        if ins.address in function.labels:
            rows.append(["", function.labels[ins.address] + ":", False])
        shown = f"{ins.mnemonic:<7}{' ' + ins.operands if ins.operands else ''}"
        if ins.target_name and ins.target is not None and ins.target_name not in ins.operands:
            shown += f" <{ins.target_name}>"
        mark = ">" if ins.address in marked else "|" if ins.address in outer else ""
        rows.append([str(ins.address) if function.numbered else f"{ins.address:x}", shown.rstrip(), mark])
    if len(rows) <= most:
        return rows
    inside = [i for i, r in enumerate(rows) if r[2]] or [0]
    start = max(0, min(inside[0] - most // 4, len(rows) - most))
    return rows[start : start + most]


def sampled_hot_loop(functions: Iterable[Function], samples: dict[int, int]) -> tuple[Function, Loop, int] | None:
    """The innermost loop that most samples of the timed calls fell in (``samples``: address -> count), with its
    count; None where no sample fell in any loop."""
    best, most = None, 0
    for function in functions:
        for loop in loops(function):
            if not loop.innermost:
                continue
            hits = sum(samples.get(a, 0) for a in loop.addresses)
            if hits > most:
                best, most = (function, loop, hits), hits
    return best


def nest(function: Function, loop: Loop) -> list[tuple[Loop, list[Loop], list[int]]]:
    """The loops around ``loop``, nearest first, each with its child loops (the largest loops inside it) and the
    addresses of its own instructions, those in none of its children."""
    every = loops(function)
    inside = set(loop.addresses)
    out = []
    for outer in sorted((lp for lp in every if inside < set(lp.addresses)), key=lambda lp: len(lp.addresses)):
        body = set(outer.addresses)
        within = [lp for lp in every if set(lp.addresses) < body]
        children = [c for c in within if not any(set(c.addresses) < set(d.addresses) for d in within)]
        covered = {a for c in children for a in c.addresses}
        out.append((outer, children, [a for a in outer.addresses if a not in covered]))
    return out
