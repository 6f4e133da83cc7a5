"""Pure-Python families, in the order the post tries them: a loop over 16 ints, the loop unrolled, SWAR.

``prepare`` converts the workload's uint64 arrays into the layout each family works on (lists of 16-int lists,
or Python ints), so the timed call does only the operations.
"""

from swarbench.model import Implementation

from .spec import HIGH, PackedOnRead, counts_of


def _as_lists(workload):
    return counts_of(workload.inputs["a"]).tolist(), counts_of(workload.inputs["b"]).tolist()


def _as_ints(workload):
    return workload.inputs["a"].tolist(), workload.inputs["b"].tolist()


# -- naive: the post's first version -----------------------------------------------------------------------
def contains_loop(v, other):
    for i in range(1, 16):
        if v[i] < other[i]:
            return False
    return True


def remove_loop(v, other):
    res = [0] * 16
    for i in range(1, 16):
        res[i] = v[i] - other[i]
    return res


# -- unrolled: the post's second version -------------------------------------------------------------------
def contains_unrolled(v, o):
    return (
        v[1] >= o[1]
        and v[2] >= o[2]
        and v[3] >= o[3]
        and v[4] >= o[4]
        and v[5] >= o[5]
        and v[6] >= o[6]
        and v[7] >= o[7]
        and v[8] >= o[8]
        and v[9] >= o[9]
        and v[10] >= o[10]
        and v[11] >= o[11]
        and v[12] >= o[12]
        and v[13] >= o[13]
        and v[14] >= o[14]
        and v[15] >= o[15]
    )


def remove_unrolled(v, o):
    return [
        0,
        v[1] - o[1],
        v[2] - o[2],
        v[3] - o[3],
        v[4] - o[4],
        v[5] - o[5],
        v[6] - o[6],
        v[7] - o[7],
        v[8] - o[8],
        v[9] - o[9],
        v[10] - o[10],
        v[11] - o[11],
        v[12] - o[12],
        v[13] - o[13],
        v[14] - o[14],
        v[15] - o[15],
    ]


def _list_family(op, packed_output=False):
    def prepare(workload):
        hands, plays = _as_lists(workload)
        wrap = PackedOnRead if packed_output else (lambda rows: rows)

        def batch():
            return wrap([op(x, y) for x, y in zip(hands, plays)])

        return batch

    return prepare


# -- SWAR on Python ints: the post's third version ---------------------------------------------------------
def _swar_contains(workload):
    hands, plays = _as_ints(workload)
    h = HIGH

    def batch():
        return [((a | h) - b) & h == h for a, b in zip(hands, plays)]

    return batch


def _swar_remove(workload):
    hands, plays = _as_ints(workload)

    def batch():
        return [a - b for a, b in zip(hands, plays)]

    return batch


IMPLEMENTATIONS = [
    Implementation(
        "cards.contains",
        "naive",
        "python-naive",
        _list_family(contains_loop),
        description="for loop over [16]int, as the post's first version",
    ),
    Implementation(
        "cards.contains",
        "unrolled",
        "python-unrolled",
        _list_family(contains_unrolled),
        description="the loop unrolled by hand",
    ),
    Implementation(
        "cards.contains",
        "swar",
        "python-swar",
        _swar_contains,
        description="nibbles in a Python int: ((a | 0x88..) - b) & 0x88.. == 0x88..",
    ),
    Implementation(
        "cards.remove",
        "naive",
        "python-naive",
        _list_family(remove_loop, packed_output=True),
        description="for loop over [16]int, as the post's first version",
    ),
    Implementation(
        "cards.remove",
        "unrolled",
        "python-unrolled",
        _list_family(remove_unrolled, packed_output=True),
        description="the loop unrolled by hand",
    ),
    Implementation("cards.remove", "swar", "python-swar", _swar_remove, description="nibbles in a Python int: a - b"),
]
