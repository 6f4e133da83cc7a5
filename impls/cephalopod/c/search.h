/* Breadth-first search of the cephalopod game over packed 32-bit boards, one layer per move.
 *
 * Board: cell i in bits 3i..3i+2, the number of empty cells in bits 27..31. A layer is a state array and a count
 * array (NC uint32 counts per state, index 0 unused); the next layer is built from a move list of (new board,
 * parent index) through a power-of-two hash table of indexes with linear probing. Counts wrap modulo 2^32, a
 * multiple of 2^30, so they are reduced only when multiplied by a hash.
 *
 * The including file defines the steps of the write-up it takes, each 0 or 1:
 *   MOVES_LUT   moves from the lookup tables (else: subsets of the neighbours enumerated per move)
 *   SYMMETRY    one canonical board per class, eight counts (else one count per board)
 *   DIRECT_SUM  full boards and last-layer boards are summed as they are generated, never inserted
 *   PREFETCH    the hash table slot of the next move is prefetched while the previous one is inserted
 * and, when SYMMETRY is 1, the functions canonical(), add_counts() and sum_forms() (scalar or SIMD).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MASK30 0x3FFFFFFFu
#define ZERO_SHIFT 27
#define NC (SYMMETRY ? 8 : 1)

typedef struct {
    const uint32_t *moves;   /* rows of 12: number of moves, then deltas */
    const int32_t *base;     /* first row of each cell */
    const int32_t *nbr;      /* [9][4] neighbours, -1 padded */
    const uint32_t *hash3;   /* [3][512] base-10 hash of three cells */
    const uint32_t *hash8;   /* [3][512][8] the same for each of the eight symmetries */
    const uint32_t *xform;   /* [3][512][8] where three cells' bits land under each symmetry */
    const int32_t *inverse;  /* [8] */
    const int32_t *gather;   /* [8][8] gather[j][to]: the orientation whose count goes to `to` */
} ceph_tables;

typedef struct {
    uint32_t *states, *counts, *ncounts, *table, *mv_state, *mv_parent;
    size_t cap_states, cap_moves, table_size, table_cap;
} ceph_work;

#if SYMMETRY
/* provided by the including file, after this header */
static inline uint32_t canonical(const ceph_tables *T, uint32_t s, int *j);
static inline void add_counts(uint32_t *dst, const uint32_t *src, int j, const ceph_tables *T);
static inline uint64_t sum_forms(const ceph_tables *T, uint32_t s, const uint32_t *c);
#endif

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 1024;
    while (c < need) c *= 2;
    *cap = c;
    return realloc(p, c * elem);
}

ceph_work *ceph_new(void)
{
    return (ceph_work *)calloc(1, sizeof(ceph_work));
}

void ceph_free(ceph_work *w)
{
    if (!w) return;
    free(w->states); free(w->counts); free(w->ncounts); free(w->table); free(w->mv_state); free(w->mv_parent);
    free(w);
}

static inline uint32_t slot_hash(uint32_t s)
{
    uint32_t h = s * 0x587a1437u;
    return h ^ (h >> 16);
}

static inline uint64_t plain_hash(const ceph_tables *T, uint32_t s)
{
    return (uint64_t)T->hash3[s & 511] + T->hash3[512 + ((s >> 9) & 511)] + T->hash3[1024 + ((s >> 18) & 511)];
}

/* the paths of one board (NC counts) times its hash(es), modulo 2^30 */
static inline uint64_t board_sum(const ceph_tables *T, uint32_t s, const uint32_t *c)
{
#if SYMMETRY
    return sum_forms(T, s, c);
#else
    return ((uint64_t)(c[0] & MASK30) * plain_hash(T, s)) & MASK30;
#endif
}

/* Insert board t (canonical) into the layer being built; returns its index. */
static inline uint32_t find_or_add(ceph_work *w, uint32_t t, uint32_t slot, uint32_t *m)
{
    uint32_t mask = (uint32_t)w->table_size - 1;
    for (;; slot = (slot + 1) & mask) {
        uint32_t idx = w->table[slot];
        if (idx == 0) {
            idx = ++*m;
            w->table[slot] = idx;
            w->states[idx] = t;
            memset(w->ncounts + (size_t)idx * NC, 0, NC * sizeof(uint32_t));
            return idx;
        }
        if (w->states[idx] == t) return idx;
    }
}

/* Use the first `size` slots of the table (a power of two), zeroed; more memory only when it must grow. */
static void table_reset(ceph_work *w, size_t size)
{
    if (size > w->table_cap) {
        free(w->table);
        w->table = (uint32_t *)calloc(size, sizeof(uint32_t));
        w->table_cap = size;
    } else {
        memset(w->table, 0, size * sizeof(uint32_t));
    }
    w->table_size = size;
}

static void rehash(ceph_work *w, uint32_t m)
{
    table_reset(w, w->table_size * 2);
    uint32_t mask = (uint32_t)w->table_size - 1;
    for (uint32_t i = 1; i <= m; i++) {
        uint32_t slot = slot_hash(w->states[i]) & mask;
        while (w->table[slot]) slot = (slot + 1) & mask;
        w->table[slot] = i;
    }
}

#if !MOVES_LUT
/* The write-up's first version: the moves into `cell`, found by trying every subset of its neighbours. */
static int direct_moves(const ceph_tables *T, uint32_t s, int cell, uint32_t *out)
{
    int nb[4], val[4], k = 0, n = 0;
    for (int j = 0; j < 4 && T->nbr[cell * 4 + j] >= 0; j++) {
        nb[k] = T->nbr[cell * 4 + j];
        val[k] = (s >> (3 * nb[k])) & 7;
        k++;
    }
    for (int subset = 1; subset < (1 << k); subset++) {
        int dice = 0, pips = 0;
        uint32_t d = 0;
        for (int j = 0; j < k; j++) {
            if (!(subset >> j & 1)) continue;
            if (!val[j]) { dice = -1; break; }
            dice++;
            pips += val[j];
            d -= (uint32_t)val[j] << (3 * nb[j]);
        }
        if (dice < 2 || pips > 6) continue;
        out[n++] = d + ((uint32_t)pips << (3 * cell)) + ((uint32_t)(dice - 1) << ZERO_SHIFT);
    }
    if (n == 0) out[n++] = (1u << (3 * cell)) - (1u << ZERO_SHIFT);  /* no capture: a 1, one empty cell fewer */
    return n;
}
#endif

static inline int moves_of(const ceph_tables *T, uint32_t s, int cell, uint32_t *out, const uint32_t **row)
{
#if MOVES_LUT
    uint32_t key = 0;
    for (int j = 0; j < 4 && T->nbr[cell * 4 + j] >= 0; j++)
        key |= ((s >> (3 * T->nbr[cell * 4 + j])) & 7) << (3 * j);
    const uint32_t *r = T->moves + 12 * (size_t)(T->base[cell] + key);
    *row = r + 1;
    (void)out;
    return (int)r[0];
#else
    *row = out;
    return direct_moves(T, s, cell, out);
#endif
}

/* The answer modulo 2^30 for `depth` moves from `start` (packed, empty count included); *boards gets the number
 * of distinct boards stored over layers 1..depth (canonical boards under SYMMETRY). */
int64_t ceph_solve(ceph_work *w, const ceph_tables *T, uint32_t start, int depth, int64_t *boards)
{
    uint64_t total = 0;
    uint32_t n = 1, scratch[16];
    int64_t stored = 0;
    w->states = (uint32_t *)grow(w->states, &w->cap_states, 2, sizeof(uint32_t));
    size_t cap_c = w->cap_states;
    w->counts = (uint32_t *)realloc(w->counts, cap_c * NC * sizeof(uint32_t));
    w->ncounts = (uint32_t *)realloc(w->ncounts, cap_c * NC * sizeof(uint32_t));
    memset(w->counts + NC, 0, NC * sizeof(uint32_t));
#if SYMMETRY
    int j0;
    w->states[1] = canonical(T, start, &j0);
    w->counts[NC + j0] = 1;
#else
    w->states[1] = start;
    w->counts[NC] = 1;
#endif
    for (int d = 0; d < depth; d++) {
        int last = d == depth - 1;
        (void)last;
        /* 1. the move list: every move of every board of the layer */
        size_t nm = 0;
        for (uint32_t i = 1; i <= n; i++) {
            uint32_t s = w->states[i];
            const uint32_t *c = w->counts + (size_t)i * NC;
            if ((s >> ZERO_SHIFT) == 0) {  /* full board: its paths end here */
                total += board_sum(T, s, c);
                continue;
            }
            if (nm + 32 > w->cap_moves) {
                size_t cap = w->cap_moves;
                w->mv_state = (uint32_t *)grow(w->mv_state, &cap, nm + 32, sizeof(uint32_t));
                w->mv_parent = (uint32_t *)grow(w->mv_parent, &w->cap_moves, nm + 32, sizeof(uint32_t));
            }
            for (int cell = 0; cell < 9; cell++) {
                if ((s >> (3 * cell)) & 7) continue;
                const uint32_t *row;
                int k = moves_of(T, s, cell, scratch, &row);
                for (int q = 0; q < k; q++) {
                    uint32_t t = s + row[q];
#if DIRECT_SUM
                    if (last || (t >> ZERO_SHIFT) == 0) {  /* summed now, never stored */
                        total += board_sum(T, t, c);
                        continue;
                    }
#endif
                    w->mv_state[nm] = t;
                    w->mv_parent[nm] = i;
                    nm++;
                }
            }
        }
        /* 2. merge equal boards into the next layer; old counts stay in `counts` until the swap */
        w->states = (uint32_t *)grow(w->states, &w->cap_states, nm + 2, sizeof(uint32_t));
        if (w->cap_states > cap_c) {
            cap_c = w->cap_states;
            w->counts = (uint32_t *)realloc(w->counts, cap_c * NC * sizeof(uint32_t));
            w->ncounts = (uint32_t *)realloc(w->ncounts, cap_c * NC * sizeof(uint32_t));
        }
        size_t want = 1024;  /* the next layer is usually about as large as this one */
        while (want < 4 * (size_t)n) want *= 2;
        table_reset(w, want);
        uint32_t m = 0;
#if PREFETCH
        uint32_t pend_t = 0, pend_slot = 0, pend_parent = 0;
        int pend_j = 0, pending = 0;
#endif
        for (size_t q = 0; q < nm; q++) {
            if (2 * (size_t)(m + 2) > w->table_size) rehash(w, m);
            uint32_t t = w->mv_state[q];
            int j = 0;
#if SYMMETRY
            t = canonical(T, t, &j);
#endif
            uint32_t slot = slot_hash(t) & ((uint32_t)w->table_size - 1);
#if PREFETCH
            __builtin_prefetch(w->table + slot, 1, 1);
            if (pending) {
                uint32_t idx = find_or_add(w, pend_t, pend_slot & ((uint32_t)w->table_size - 1), &m);
                add_counts(w->ncounts + (size_t)idx * NC, w->counts + (size_t)pend_parent * NC, pend_j, T);
            }
            pend_t = t; pend_slot = slot_hash(t); pend_parent = w->mv_parent[q]; pend_j = j; pending = 1;
#else
            uint32_t idx = find_or_add(w, t, slot, &m);
#if SYMMETRY
            add_counts(w->ncounts + (size_t)idx * NC, w->counts + (size_t)w->mv_parent[q] * NC, j, T);
#else
            w->ncounts[idx] += w->counts[w->mv_parent[q]];
#endif
#endif
        }
#if PREFETCH
        if (pending) {
            if (2 * (size_t)(m + 2) > w->table_size) rehash(w, m);
            uint32_t idx = find_or_add(w, pend_t, pend_slot & ((uint32_t)w->table_size - 1), &m);
            add_counts(w->ncounts + (size_t)idx * NC, w->counts + (size_t)pend_parent * NC, pend_j, T);
        }
#endif
        uint32_t *tmp = w->counts; w->counts = w->ncounts; w->ncounts = tmp;
        n = m;
        stored += m;
    }
    for (uint32_t i = 1; i <= n; i++)
        total += board_sum(T, w->states[i], w->counts + (size_t)i * NC);
    *boards = stored;
    return (int64_t)(total & MASK30);
}
