/* The write-up's later steps (submissions 7-17) on top of symmetry and AVX2, and one step it does
 * not take: the last two layers are summed without building a single successor board.
 *
 * Board: cell i in bits 3i..3i+2, the number of empty cells in bits 27..31 (as in search.h). A layer is a
 * state array and a count array of eight uint32 per state (the paths reaching each orientation of the
 * canonical board), index 0 unused; counts wrap modulo 2^32, a multiple of 2^30.
 *
 * What this file does beyond c/avx2.c (docs/suites.md has the measurements behind each step):
 *  - step 7 and 16: every buffer is an anonymous mapping made by fast_reserve(), called in prepare, at the largest
 *    size the suite's searches need, and its pages are written there (TOUCH); a solve maps nothing unless a
 *    layer outgrows the reservation. -DTOUCH=0 leaves the pages to be zero-filled at their first use (step 7
 *    alone); -DFRESH_MAPS=1 gives the state before step 7 (every solve maps, grows and returns its buffers).
 *  - step 17, -DNT_MOVES=1: the move list written with non-temporal stores. The write-up's list held a whole
 *    layer; this one is read back a chunk at a time from L1, so streaming it to memory can only cost.
 *  - the prefetch distance: a chunk of CHUNK moves is canonicalised (each slot prefetched) before any is
 *    inserted, so a slot is prefetched up to CHUNK insertions ahead (-DCHUNK=32 and 1024 beside 256).
 *  - step 15 taken further: the hash table is never zeroed between layers. A slot holds the board's 27 cell bits
 *    (its empty count follows from them), a 13-bit layer tag and the index; a slot whose tag is not the current
 *    layer's is empty. Only when the tag wraps (every 8,191 layers) is the table cleared: with an 8-bit tag the
 *    official tests' 195 stored layers cleared megabytes of table in most calls.
 *  - step 10 (-DRING_FORMS=0): the eight forms come from three 256-entry tables over the eight outer cells (the
 *    centre never moves), ORed together: 24 KiB instead of 48 KiB. The centre and the empty count are the same in
 *    every form, so they are left out of the comparison and put back once. Beyond the write-up (RING_FORMS, the
 *    default): the outer cells in ring order, a quarter turn turns the ring by two cells and a mirror reverses it,
 *    so the eight forms are shifts of the ring and of its reverse; eight moves are canonicalised at once, one per
 *    lane (canonical8), with the symmetry in the three low bits of each form so the minimum carries it. That pass
 *    is then too short to cover the slots prefetched in it, so each slot is prefetched SLOT_AHEAD insertions
 *    ahead of its own instead (docs/suites.md has the figures).
 *  - step 9: state hashes from the same kind of byte tables, eight orientations in one register.
 *  - step 11: sums stay in eight 32-bit lanes (exact modulo 2^32) and are reduced once, at the end.
 *  - the write-up's move list (steps 4, 12, 13), in chunks of CHUNK moves that stay in L1: the moves of the
 *    next parents are listed (each empty cell's row of deltas is copied whole, 8 lanes, and the list
 *    advances by the row's count, so no branch depends on how many moves a cell has), then every move is
 *    canonicalised and its slot prefetched, then the chunk is inserted, so a slot's load has a chunk's
 *    work to arrive in. Most empty cells (71% in the official tests) admit no capture and take one move, a 1;
 *    a parent's such cells are found with byte shuffles (capture_cells) and their moves written in one vector
 *    store, so only the cells where a capture is possible look up their row.
 *  - the table is sized for a load of 1/16 (TABLE_MUL) of the parents, up to TABLE_CAP slots (and never
 *    under 4 per parent): with linear probing, a board found past its first slot costs a mispredicted
 *    branch after a load, and a low load makes that rare. Not buckets of four slots compared in one AVX2
 *    load: the load of a bucket that the previous insertion has just written to waits for the store.
 *  - insertion without a data-dependent branch but the rare probe: the index of a new board is m + 1 by a
 *    conditional move, its board is written to states[m + 1] whether new or not (overwritten by the next
 *    new one otherwise), and the count rows m + 1 and m + 2 are kept zeroed ahead, so a new board's counts
 *    are added to zeros like an old one's: a branch on "new or not" (37% of the moves are new) mispredicts often. The
 *    probe loop's test is one comparison (other_board()): gcc split the obvious test into two branches. The
 *    insertions are a function of their own, and the chunk's canonical moves one 2-D array: inlined into
 *    build_layer, gcc kept the layer's size m on the stack, a load and a store in every insertion's chain.
 *  - beyond the write-up: the base-10 hash is linear in the cells, so the hashes of all successors of a
 *    board (all eight orientations) are (number of moves) x (its own hashes) + a per-(cell, neighbours) row
 *    summed over its empty cells (tables.row_hash_changes). The last layer is then one pass over its parents,
 *    and the layer before it one pass over its moves, with no canonical form, hash table or insertion.
 * Ideas tried and dropped are listed in docs/suites.md; their measurements are in the commit messages of issue 21.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <pthread.h>
#include <time.h>

#define MASK30 0x3FFFFFFFu
#define ZERO_SHIFT 27
#define OUTER 0x07FF8FFFu  /* the eight cells a symmetry moves */
#define LOW_BITS 0x01249249u  /* bit 0 of each cell */
#define MAX_INDEX ((1u << 24) - 1)
#define CELL_BITS 0x07FFFFFFu  /* the nine cells: a slot keeps these, the empty count follows from them */
#define TAG_SHIFT 51
#define KEY_SHIFT 24  /* a slot: tag << 51 | cells << 24 | index, the key (tag << 27 | cells) above the index */
#define TAG_MASK (0x1FFFull << TAG_SHIFT)
#ifndef TAG_MAX  /* the tests build with a tiny value, so that the tags wrap */
#define TAG_MAX 0x1FFFu
#endif
#ifndef CHUNK  /* moves listed, canonicalised and inserted at a time: how far ahead of its insertion a slot is
                  prefetched */
#define CHUNK 256
#endif
#ifndef TOUCH      /* step 16: fast_reserve() writes every page of what it maps, before any solve */
#define TOUCH 1
#endif
#ifndef FRESH_MAPS /* before step 7: a solve maps small buffers, grows them by doubling and unmaps them at its end */
#define FRESH_MAPS 0
#endif
#ifndef NT_MOVES   /* step 17: the move list written with non-temporal stores */
#define NT_MOVES 0
#endif
#ifndef RING_FORMS /* a layer's moves canonicalised eight at once from ring turns (else one by one from byte tables,
                      step 10, each slot prefetched there) */
#define RING_FORMS 1
#endif
#ifndef SLOT_AHEAD /* RING_FORMS: slots prefetched this many insertions ahead, within a chunk */
#define SLOT_AHEAD 32
#endif
#ifndef CELL_LISTS /* a parent's empty cells listed without a branch on how many it has (list_moves) */
#define CELL_LISTS 1
#endif
#if CELL_LISTS  /* a chunk lists up to CHUNK + 8 empty cells, each up to 11 moves, and a row is copied 8 at a time */
#define LIST_MAX (11 * (CHUNK + 9) + 8)
#else           /* a chunk's last board adds up to 9 rows of 11 moves, and a row is copied 8 at a time */
#define LIST_MAX (CHUNK + 128)
#endif
#ifndef TABLE_MUL  /* the tests build with tiny values, so that layers outgrow their tables */
#define TABLE_MUL 16    /* table slots per parent board, from TABLE_MIN up to TABLE_CAP */
#define TABLE_MIN 4096
#endif
#define TABLE_CAP (1u << 20)

typedef struct {
    const uint32_t *moves;    /* rows of 12: number of moves, then the deltas */
    const int32_t *base;      /* [9] first row of each cell */
    const uint32_t *nmask;    /* [9] the bits of each cell's neighbours (pext gives the row key) */
    const uint32_t *land;     /* [3][256][8] where the bits of a byte of the outer cells land, per symmetry */
    const uint32_t *hash;     /* [3][256][8] */
    const uint32_t *rowhash;  /* [rows][8] */
    const int32_t *perm;      /* [8][8] how counts move when lane k held the smallest form */
    const uint32_t *rowcount; /* [rows] the moves of each row (its first word in moves), 25 KiB beside 300 */
} fast_tables;

#define LAYER_BUFFERS 3  /* a search on one thread rotates two; one split over threads (split.c) three */
typedef struct {
    uint32_t *states[LAYER_BUFFERS], *counts[LAYER_BUFFERS];
    size_t cap[LAYER_BUFFERS];
    uint64_t *table;  /* tag << 51 | cells << 24 | index */
    size_t table_cap;
    uint32_t tag;
} fast_work;

/* Buffers are anonymous mappings (step 7): the kernel hands out pages of zeros, each filled at its first write. A
 * page written in prepare (TOUCH, step 16) costs a solve nothing; one written first during a solve costs it a fault
 * and the zeroing of 4 KiB. */
static void *mapped(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 64, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) return NULL;
#if TOUCH
    for (size_t i = 0; i < bytes; i += 4096) ((volatile char *)p)[i] = 0;
#endif
    return p;
}

static void unmapped(void *p, size_t bytes)
{
    if (p) munmap(p, bytes ? bytes : 64);
}

static int reserve_layer(fast_work *w, int b, size_t n)
{
    if (n <= w->cap[b]) return 0;
    uint32_t *s = (uint32_t *)mapped(n * sizeof(uint32_t));
    uint32_t *c = (uint32_t *)mapped(n * 8 * sizeof(uint32_t));
    if (!s || !c) { unmapped(s, n * sizeof(uint32_t)); unmapped(c, n * 8 * sizeof(uint32_t)); return -1; }
    size_t keep = w->cap[b];
    if (keep) {  /* a layer being built keeps what it holds */
        memcpy(s, w->states[b], keep * sizeof(uint32_t));
        memcpy(c, w->counts[b], keep * 8 * sizeof(uint32_t));
    }
    unmapped(w->states[b], keep * sizeof(uint32_t)); unmapped(w->counts[b], keep * 8 * sizeof(uint32_t));
    w->states[b] = s; w->counts[b] = c; w->cap[b] = n;
    return 0;
}

static int reserve_table(fast_work *w, size_t slots)
{
    if (slots <= w->table_cap) return 0;
    uint64_t *t = (uint64_t *)mapped(slots * sizeof(uint64_t));
    if (!t) return -1;
    unmapped(w->table, w->table_cap * sizeof(uint64_t));
    w->table = t; w->table_cap = slots; w->tag = 0;
    return 0;
}

/* Every buffer back to the kernel (FRESH_MAPS: after each solve, as a process that solves one test ends). */
static void release(fast_work *w)
{
    for (int b = 0; b < LAYER_BUFFERS; b++) {
        unmapped(w->states[b], w->cap[b] * sizeof(uint32_t));
        unmapped(w->counts[b], w->cap[b] * 8 * sizeof(uint32_t));
        w->states[b] = NULL; w->counts[b] = NULL; w->cap[b] = 0;
    }
    unmapped(w->table, w->table_cap * sizeof(uint64_t));
    w->table = NULL; w->table_cap = 0; w->tag = 0;
}

fast_work *fast_new(void)
{
    return (fast_work *)calloc(1, sizeof(fast_work));
}

void fast_free(fast_work *w)
{
    if (!w) return;
    release(w);
    free(w);
}

/* Room for layers of `states` boards and a table of `slots` slots (a power of two), pages touched. */
int fast_reserve(fast_work *w, size_t states, size_t slots)
{
    return reserve_layer(w, 0, states) | reserve_layer(w, 1, states) | reserve_table(w, slots);
}

static inline __m256i load8(const uint32_t *p)
{
    return _mm256_loadu_si256((const __m256i *)p);
}

/* the base-10 hashes of the eight forms of s */
static inline __m256i hashes(const fast_tables *T, uint32_t s)
{
    uint32_t u = _pext_u32(s, OUTER);
    __m256i h = _mm256_add_epi32(load8(T->hash + (u & 255) * 8), load8(T->hash + 2048 + ((u >> 8) & 255) * 8));
    h = _mm256_add_epi32(h, load8(T->hash + 4096 + (u >> 16) * 8));
    return _mm256_add_epi32(h, _mm256_set1_epi32((int)(((s >> 12) & 7) * 10000)));
}

#if RING_FORMS
/* The constants of the ring functions below, eight lanes each, read as memory operands through a pointer gcc cannot
 * see through (ring_constants): written as immediates, they were rebuilt (three instructions each) in every group of
 * eight moves, gcc being short of registers. */
enum { K_STAY, K_5_7, K_8, K_3, K_BACK_5_7, K_BACK_8, K_BACK_3, K_HALF, K_PAIRS, K_CELLS, K_FORM, K_SEVEN, K_FIXED,
       K_SLOT_MUL, K_LANE };  /* K_LANE + k: symmetry k */
#define X8(v) {(v), (v), (v), (v), (v), (v), (v), (v)}
static const uint32_t ring_consts[K_LANE + 8][8] __attribute__((aligned(32))) = {
    X8(0x1C01FF), X8(0x38E00), X8(0x7000), X8(0xE00000), X8(0xE38000), X8(0x7000000), X8(0xE00), X8(0xFFF),
    X8(0x03F03F), X8(0x1C71C7), X8(0x7FFFFF8), X8(7), X8(~OUTER), X8(0x587a1437u),
    X8(0), X8(1), X8(2), X8(3), X8(4), X8(5), X8(6), X8(7)};
#undef X8

static inline const __m256i *ring_constants(void)
{
    const __m256i *k = (const __m256i *)ring_consts;
    __asm__("" : "+r"(k));
    return k;
}

/* The eight outer cells in ring order (cells 0 1 2 5 8 7 6 3, 3 bits each from bit 0) of eight boards at once: a
 * quarter turn of the board turns the ring by two cells, and a mirror image reverses it, so each symmetry's form
 * is the ring or its reverse turned by a fixed number of bits. */
static inline __m256i ring_of(const __m256i *K, __m256i s)
{
    __m256i r = _mm256_and_si256(s, K[K_STAY]);  /* cells 0 1 2 and 6 stay */
    r = _mm256_or_si256(r, _mm256_and_si256(_mm256_srli_epi32(s, 6), K[K_5_7]));  /* 5 and 7 */
    r = _mm256_or_si256(r, _mm256_and_si256(_mm256_srli_epi32(s, 12), K[K_8]));
    return _mm256_or_si256(r, _mm256_and_si256(_mm256_slli_epi32(s, 12), K[K_3]));
}

static inline __m256i board_of_ring(const __m256i *K, __m256i r)  /* the inverse of ring_of, outer cells only */
{
    __m256i s = _mm256_and_si256(r, K[K_STAY]);
    s = _mm256_or_si256(s, _mm256_and_si256(_mm256_slli_epi32(r, 6), K[K_BACK_5_7]));
    s = _mm256_or_si256(s, _mm256_and_si256(_mm256_slli_epi32(r, 12), K[K_BACK_8]));
    return _mm256_or_si256(s, _mm256_and_si256(_mm256_srli_epi32(r, 12), K[K_BACK_3]));
}

static inline __m256i reversed_ring(const __m256i *K, __m256i r)  /* ring cell j to 7 - j: halves, pairs, cells */
{
    __m256i x = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(r, K[K_HALF]), 12), _mm256_srli_epi32(r, 12));
    x = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(x, K[K_PAIRS]), 6),
                        _mm256_and_si256(_mm256_srli_epi32(x, 6), K[K_PAIRS]));
    return _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(x, K[K_CELLS]), 3),
                           _mm256_and_si256(_mm256_srli_epi32(x, 3), K[K_CELLS]));
}

/* Ring x (shifted left by 3) turned left by `bits` within its 24 bits, with symmetry k in the 3 bits below: the
 * smallest of the eight is the smallest form, and the symmetry that made it. */
#define TURNED(x3, bits, k) _mm256_or_si256(_mm256_and_si256(_mm256_or_si256(_mm256_slli_epi32(x3, bits), \
                                _mm256_srli_epi32(x3, 24 - (bits))), K[K_FORM]), K[K_LANE + (k)])

/* The canonical forms of eight boards (the form with the smallest ring, by the symmetries' numbering in spec.PERMS:
 * 0-3 turn the ring by 0, 2, 4, 6 cells, 4-7 turn its reverse by 3, 5, 7, 1) and in *lane the symmetry of each. */
static inline __m256i canonical8(const __m256i *K, __m256i s, __m256i *lane)
{
    __m256i r = ring_of(K, s);
    __m256i r3 = _mm256_slli_epi32(r, 3), v3 = _mm256_slli_epi32(reversed_ring(K, r), 3);
    __m256i m = _mm256_min_epu32(_mm256_min_epu32(r3, TURNED(r3, 6, 1)), _mm256_min_epu32(TURNED(r3, 12, 2),
                                                                                          TURNED(r3, 18, 3)));
    m = _mm256_min_epu32(m, _mm256_min_epu32(_mm256_min_epu32(TURNED(v3, 9, 4), TURNED(v3, 15, 5)),
                                             _mm256_min_epu32(TURNED(v3, 21, 6), TURNED(v3, 3, 7))));
    *lane = _mm256_and_si256(m, K[K_SEVEN]);
    return _mm256_or_si256(board_of_ring(K, _mm256_srli_epi32(m, 3)), _mm256_and_si256(s, K[K_FIXED]));
}
#undef TURNED

/* slot_hash() of eight boards */
static inline __m256i slot_hash8(const __m256i *K, __m256i b)
{
    __m256i h = _mm256_mullo_epi32(b, K[K_SLOT_MUL]);
    return _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
}
#endif

/* the smallest form of s; *lane is the symmetry that produced it */
static inline uint32_t canonical(const fast_tables *T, uint32_t s, uint32_t *lane)
{
    uint32_t u = _pext_u32(s, OUTER);
    __m256i f = _mm256_or_si256(load8(T->land + (u & 255) * 8), load8(T->land + 2048 + ((u >> 8) & 255) * 8));
    f = _mm256_or_si256(f, load8(T->land + 4096 + (u >> 16) * 8));  /* the outer cells of each form */
    __m256i m = _mm256_min_epu32(f, _mm256_permute2x128_si256(f, f, 1));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
    *lane = (uint32_t)__builtin_ctz((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(f, m))));
    return (uint32_t)_mm256_cvtsi256_si32(m) | (s & ~OUTER);
}

static inline uint32_t empty_cells(uint32_t s)  /* bit c set when cell c is empty */
{
    return _pext_u32(~(s | (s >> 1) | (s >> 2)), LOW_BITS);
}

static inline uint32_t row_of(const fast_tables *T, uint32_t s, int cell)
{
    return (uint32_t)T->base[cell] + _pext_u32(s, T->nmask[cell]);
}

/* Sum over every successor of s of its eight hashes; a full board (no successor) is its own final board. */
static inline __m256i successor_hashes(const fast_tables *T, uint32_t s)
{
    uint32_t e = empty_cells(s);
    if (!e) return hashes(T, s);
    __m256i acc = _mm256_setzero_si256();
    uint32_t n = 0;
    for (; e; e &= e - 1) {
        uint32_t row = row_of(T, s, __builtin_ctz(e));
        n += T->moves[12 * (size_t)row];
        acc = _mm256_add_epi32(acc, load8(T->rowhash + 8 * (size_t)row));
    }
    return _mm256_add_epi32(acc, _mm256_mullo_epi32(hashes(T, s), _mm256_set1_epi32((int)n)));
}

static inline uint32_t slot_hash(uint32_t s)
{
    uint32_t h = s * 0x587a1437u;
    return h ^ (h >> 16);
}

/* A fresh tag for a layer's table; the table is cleared only when the tags run out. */
static void next_tag(fast_work *w)
{
    if (++w->tag > TAG_MAX) {
        memset(w->table, 0, w->table_cap * sizeof(uint64_t));
        w->tag = 1;
    }
}

static inline __m256i sum8(__m256i acc, __m256i h, const uint32_t *c)
{
    return _mm256_add_epi32(acc, _mm256_mullo_epi32(h, load8(c)));
}

/* 1 when slot entry e holds a board of this layer other than the one whose key (tag << 27 | cells) is given. One
 * comparison against a constant that fits an instruction: the keys' difference is another board of this layer
 * exactly when it is neither 0 (the same board) nor 2^27 or more (another layer's tag: an empty slot). */
static inline int other_board(uint64_t e, uint64_t key)
{
    uint64_t x = (e >> KEY_SHIFT) ^ key;
    return x - 1 < CELL_BITS;
}

static inline uint64_t slot_entry(uint32_t b, uint64_t tag, uint32_t idx)
{
    return tag | (uint64_t)(b & CELL_BITS) << KEY_SHIFT | idx;
}

/* Insert board b of the layer being built (tag `tag`) with counts v; m is the number of boards so far. */
static inline __attribute__((always_inline)) uint32_t insert(uint64_t *table, size_t mask, uint64_t tag,
                                                             uint32_t *states, uint32_t *counts, uint32_t m,
                                                             uint32_t b, size_t slot, __m256i v)
{
    uint64_t key = tag >> KEY_SHIFT | (b & CELL_BITS), e = table[slot];
    while (other_board(e, key)) {
        slot = (slot + 1) & mask;
        e = table[slot];
    }
    /* the probe stopped at this board (the same key) or at an empty slot (another tag) */
    uint32_t fresh = (e >> KEY_SHIFT) != key;
    uint32_t idx = fresh ? m + 1 : (uint32_t)e & MAX_INDEX;
    table[slot] = key << KEY_SHIFT | idx;  /* slot_entry(b, tag, idx), from the key at hand */
    states[m + 1] = b;
    __m256i *dst = (__m256i *)(counts + 8 * (size_t)idx);
    _mm256_storeu_si256(dst, _mm256_add_epi32(_mm256_loadu_si256(dst), v));
    /* row m + 2 zeroed whether this board is new or not (if not, row m + 1 stays zero and m + 2 is unused yet):
     * the store's place then waits on the insertion before, not on this one's table load */
    _mm256_storeu_si256((__m256i *)(counts + 8 * (size_t)(m + 2)), _mm256_setzero_si256());
    return m + fresh;
}

/* Move q of cm (board, slot, lane, parent) inserted, its parent's counts turned by its symmetry. */
static inline __attribute__((always_inline)) uint32_t insert_move(uint64_t *table, size_t mask, uint64_t tag,
                                                                  uint32_t *ns, uint32_t *nc, uint32_t m,
                                                                  uint32_t (*cm)[LIST_MAX], size_t q,
                                                                  const uint32_t *counts, const uint32_t *perm)
{
    __m256i v = _mm256_permutevar8x32_epi32(load8(counts + 8 * (size_t)cm[3][q]), load8(perm + 8 * cm[2][q]));
    return insert(table, mask, tag, ns, nc, m, cm[0][q], cm[1][q], v);
}

/* The j canonical moves of cm (board, slot, lane, parent) merged into the layer; returns its new size. With
 * `ahead`, each slot is prefetched that many insertions before its own (else the caller has prefetched them). Apart
 * from build_layer, so that gcc keeps m and the pointers in registers. */
static __attribute__((noinline)) uint32_t insert_chunk(uint64_t *table, size_t mask, uint64_t tag, uint32_t *ns,
                                                       uint32_t *nc, uint32_t m, uint32_t (*cm)[LIST_MAX],
                                                       size_t j, const uint32_t *counts, const uint32_t *perm,
                                                       size_t ahead)
{
    for (size_t q = 0; q < j && q < ahead; q++) _mm_prefetch((const char *)(table + cm[1][q]), _MM_HINT_T0);
    /* the prefetched stretch apart from the last `ahead` moves: no clamp of the prefetch's index in the loop, and
     * gcc keeps one value fewer on the stack */
    size_t q = 0;
    if (ahead)
        for (; q + ahead < j; q++) {
            _mm_prefetch((const char *)(table + cm[1][q + ahead]), _MM_HINT_T0);
            m = insert_move(table, mask, tag, ns, nc, m, cm, q, counts, perm);
        }
    for (; q < j; q++) m = insert_move(table, mask, tag, ns, nc, m, cm, q, counts, perm);
    return m;
}

static size_t table_size(uint32_t n)
{
    size_t size = TABLE_MIN;
    while (size < TABLE_MUL * (size_t)n && size < TABLE_CAP) size *= 2;
    while (size < 4 * (size_t)n) size *= 2;
    return size;
}

/* Double the table (a layer outgrew it), re-placing the m boards of the layer under a new tag. */
static __attribute__((noinline, cold)) int grow_table(fast_work *w, const uint32_t *states, uint32_t m, size_t *size)
{
    *size *= 2;
    if (*size > w->table_cap && reserve_table(w, *size)) return -1;
    next_tag(w);
    uint64_t tag = (uint64_t)w->tag << TAG_SHIFT;
    size_t mask = *size - 1;
    for (uint32_t i = 1; i <= m; i++) {
        size_t slot = slot_hash(states[i]) & mask;
        while ((w->table[slot] & TAG_MASK) == tag) slot = (slot + 1) & mask;
        w->table[slot] = slot_entry(states[i], tag, i);
    }
    return 0;
}

static __attribute__((noinline, cold)) int grow_layer(fast_work *w, int b, size_t need)
{
    size_t cap = w->cap[b];
    while (cap < need) cap *= 2;
    if (need > MAX_INDEX) return -1;
    return reserve_layer(w, b, cap);
}

/* One empty cell's row of moves from board s (parent i) copied whole to the list at k; returns the moves in it. */
static inline __attribute__((always_inline)) uint32_t list_row(const fast_tables *T, uint32_t s, uint32_t i, int cell,
                                                               uint32_t *mv_board, uint32_t *mv_parent, size_t k)
{
    const uint32_t *r = T->moves + 12 * (size_t)row_of(T, s, cell);
#if NT_MOVES
    for (uint32_t q = 0; q < r[0]; q++) {  /* a row starts anywhere: only 4-byte streaming stores fit */
        _mm_stream_si32((int *)(mv_board + k + q), (int)(s + r[1 + q]));
        _mm_stream_si32((int *)(mv_parent + k + q), (int)i);
    }
#else
    __m256i sv = _mm256_set1_epi32((int)s), iv = _mm256_set1_epi32((int)i);
    _mm256_storeu_si256((__m256i *)(mv_board + k), _mm256_add_epi32(sv, load8(r + 1)));
    _mm256_storeu_si256((__m256i *)(mv_parent + k), iv);
    if (__builtin_expect(r[0] > 8, 0)) {
        _mm256_storeu_si256((__m256i *)(mv_board + k + 8), _mm256_add_epi32(sv, load8(r + 9)));
        _mm256_storeu_si256((__m256i *)(mv_parent + k + 8), iv);
    }
#endif
    return r[0];
}

static uint8_t cells_of[512][16];  /* the cells of each set of empty cells (bit c: cell c), in order */

static void __attribute__((constructor)) make_cells_of(void)
{
    for (int e = 0; e < 512; e++)
        for (int c = 0, k = 0; c < 9; c++)
            if (e >> c & 1) cells_of[e][k++] = (uint8_t)c;
}


/* The lanes of each cell's neighbours (up, left, right, down), 15 where there is none: lane 15 of capture_cells'
 * bytes is 255, "no die". */
static const uint8_t neighbour_lanes[4][16] __attribute__((aligned(16))) = {
    {15, 15, 15, 0, 1, 2, 3, 4, 5, 15, 15, 15, 15, 15, 15, 15},
    {15, 0, 1, 15, 3, 4, 15, 6, 7, 15, 15, 15, 15, 15, 15, 15},
    {1, 2, 15, 4, 5, 15, 7, 8, 15, 15, 15, 15, 15, 15, 15, 15},
    {3, 4, 5, 6, 7, 8, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15}};
#define ONE_MOVE(c) ((1u << (3 * (c))) - (1u << ZERO_SHIFT))  /* a 1 put in empty cell c, nothing captured */
#define ONE_MOVE_8 ONE_MOVE(8)
static const uint32_t one_moves[8] __attribute__((aligned(32))) = {ONE_MOVE(0), ONE_MOVE(1), ONE_MOVE(2), ONE_MOVE(3),
                                                                  ONE_MOVE(4), ONE_MOVE(5), ONE_MOVE(6), ONE_MOVE(7)};

/* Bit c set when a die put in cell c of s would capture: two of its neighbours hold dice summing to 6 or less, that
 * is, its two smallest dice do. One byte lane a cell, each die minus 1 (an empty cell 255), so a saturating sum of
 * the two smallest is 4 or less exactly then. *empty gets the empty cells (from the same lanes: fewer instructions
 * than empty_cells()). */
static inline uint32_t capture_cells(const __m128i *N, uint32_t s, uint32_t *empty)
{
    __m128i v = _mm_set_epi64x((long long)((s >> 24) & 7), (long long)_pdep_u64(s, 0x0707070707070707ull));
    *empty = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) & 511;
    v = _mm_sub_epi8(v, _mm_set1_epi8(1));
    __m128i a = _mm_shuffle_epi8(v, N[0]), b = _mm_shuffle_epi8(v, N[1]);
    __m128i c = _mm_shuffle_epi8(v, N[2]), d = _mm_shuffle_epi8(v, N[3]);
    __m128i lo1 = _mm_min_epu8(a, b), hi1 = _mm_max_epu8(a, b), lo2 = _mm_min_epu8(c, d), hi2 = _mm_max_epu8(c, d);
    __m128i first = _mm_min_epu8(lo1, lo2), second = _mm_min_epu8(_mm_max_epu8(lo1, lo2), _mm_min_epu8(hi1, hi2));
    __m128i over = _mm_subs_epu8(_mm_adds_epu8(first, second), _mm_set1_epi8(4));
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128()));
}

/* The moves of parents *i.. of the layer (states, counts, n boards), about a chunk of CHUNK empty cells. A full
 * parent (only the start can be one) is summed into *acc. Returns the moves listed.
 * CELL_LISTS: a parent's empty cells where no capture is possible each take a 1: those moves are written at once,
 * the parent's board plus each cell's delta put in order by a table of each set's cells, the list advancing by the
 * set's size. Its cells where a capture is possible (29% of the official tests' cells) are written out as (cell,
 * board, parent) triples the same way, and after the chunk's parents each triple's row of moves is copied whole. No
 * branch depends on how many empty cells a parent has (the loop over them mispredicted its exit once a parent). */
static inline __attribute__((always_inline)) size_t list_moves(const fast_tables *T, const uint32_t *states,
                                                               const uint32_t *counts, uint32_t *i_io, uint32_t n,
                                                               uint32_t *mv_board, uint32_t *mv_parent,
                                                               __m256i *acc)
{
    size_t k = 0;
    uint32_t i = *i_io;
#if CELL_LISTS
    uint32_t cell[CHUNK + 16], board[CHUNK + 16], parent[CHUNK + 16];  /* cells with a capture */
    size_t np = 0, nc = 0;
    const __m128i *N = (const __m128i *)neighbour_lanes;
    __m256i one_move = _mm256_load_si256((const __m256i *)one_moves);
    for (; i <= n && np < CHUNK; i++) {
        uint32_t s = states[i], e, cap = capture_cells(N, s, &e);
        if (__builtin_expect(!e, 0)) {  /* only the start can be full */
            *acc = sum8(*acc, hashes(T, s), counts + 8 * (size_t)i);
            continue;
        }
        np += (size_t)__builtin_popcount(e);
        cap &= e;
        uint32_t lone = e & ~cap;
        __m256i at = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)cells_of[lone & 255]));
        __m256i sv = _mm256_set1_epi32((int)s), iv = _mm256_set1_epi32((int)i);
        _mm256_storeu_si256((__m256i *)(mv_board + k), _mm256_permutevar8x32_epi32(_mm256_add_epi32(sv, one_move),
                                                                                    at));
        _mm256_storeu_si256((__m256i *)(mv_parent + k), iv);
        size_t k8 = k + (size_t)__builtin_popcount(lone & 255);
        mv_board[k8] = s + ONE_MOVE_8;  /* cell 8: kept only if it is a lone move, else overwritten */
        mv_parent[k8] = i;
        k = k8 + (lone >> 8);
        /* at most 8 cells where a capture is possible: it needs two dice */
        __m128i cs = _mm_loadl_epi64((const __m128i *)cells_of[cap]);
        _mm256_storeu_si256((__m256i *)(cell + nc), _mm256_cvtepu8_epi32(cs));
        _mm256_storeu_si256((__m256i *)(board + nc), sv);
        _mm256_storeu_si256((__m256i *)(parent + nc), iv);
        nc += (size_t)__builtin_popcount(cap);
    }
    np = nc;
    for (size_t q = 0; q < np; q++) k += list_row(T, board[q], parent[q], (int)cell[q], mv_board, mv_parent, k);
#else
    for (; i <= n && k < CHUNK; i++) {
        uint32_t s = states[i];
        uint32_t e = empty_cells(s);
        if (__builtin_expect(!e, 0)) {  /* only the start can be full */
            *acc = sum8(*acc, hashes(T, s), counts + 8 * (size_t)i);
            continue;
        }
        do {
            k += list_row(T, s, i, __builtin_ctz(e), mv_board, mv_parent, k);
            e &= e - 1;
        } while (e);
    }
#endif
#if NT_MOVES
    _mm_sfence();  /* the streamed moves are read back next */
#endif
    *i_io = i;
    return k;
}

#if RING_FORMS
/* The lanes of v picked by `pick`, stored in order from dst (eight words written). */
static inline void packed_store(uint32_t *dst, __m256i v, uint32_t pick)
{
    __m256i at = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)cells_of[pick]));
    _mm256_storeu_si256((__m256i *)dst, _mm256_permutevar8x32_epi32(v, at));
}

/* The k listed moves canonicalised eight at a time into cm (board, slot = slot hash & mask, symmetry, parent), in
 * order; returns how many. The full ones (3%: a group of eight holds one a fifth of the time, so no branch on them)
 * go to the front of mv_board and mv_parent instead (*nf of them; their paths end here). With `sends` (c/split.c),
 * a move whose slot hash has its top bit unlike `own` (1 << 31 or 0) belongs to the other thread: it goes to
 * sends[0..2] + *sent (board, symmetry, parent) instead of cm. Slots are not prefetched here: the pass is too short
 * to cover their loads (insert_chunk prefetches them ahead). */
static inline __attribute__((always_inline)) size_t canonical_moves(const __m256i *K, uint32_t *mv_board,
                                                                    uint32_t *mv_parent, size_t k, uint32_t mask,
                                                                    uint32_t (*cm)[LIST_MAX], uint32_t own,
                                                                    uint32_t *const *sends, size_t *sent, size_t *nf)
{
    size_t j = 0, f = 0, o = *sent;
    for (size_t q = 0; q < k; q += 8) {
        __m256i t = load8(mv_board + q), parent = load8(mv_parent + q), lane, b = canonical8(K, t, &lane);
        __m256i h = slot_hash8(K, b), slot = _mm256_and_si256(h, _mm256_set1_epi32((int)mask));
        uint32_t valid = k - q >= 8 ? 255u : (1u << (k - q)) - 1;
        uint32_t full = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(
                            _mm256_cmpeq_epi32(_mm256_srli_epi32(t, ZERO_SHIFT), _mm256_setzero_si256()))) & valid;
        uint32_t keep = valid & ~full, send = 0;
        if (sends) {
            uint32_t top = (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(h));  /* the owner of each lane */
            send = keep & (own ? ~top : top);
            keep &= ~send;
            packed_store(sends[0] + o, b, send);
            packed_store(sends[1] + o, lane, send);
            packed_store(sends[2] + o, parent, send);
            o += (size_t)__builtin_popcount(send);
        }
        packed_store(cm[0] + j, b, keep);
        packed_store(cm[1] + j, slot, keep);
        packed_store(cm[2] + j, lane, keep);
        packed_store(cm[3] + j, parent, keep);
        packed_store(mv_board + f, t, full);  /* read already */
        packed_store(mv_parent + f, parent, full);
        j += (size_t)__builtin_popcount(keep);
        f += (size_t)__builtin_popcount(full);
    }
    *sent = o;
    *nf = f;
    return j;
}
#endif

/* One stored layer: every move of the n boards of buffer `cur`, canonicalised and merged into buffer !cur.
 * Returns its number of boards, or -1 when memory runs out. */
static int64_t build_layer(fast_work *w, const fast_tables *T, int cur, uint32_t n, __m256i *acc_io)
{
    uint32_t mv_board[LIST_MAX], mv_parent[LIST_MAX];
    /* the canonical moves, cm[0..3][q] = board, slot, lane, parent: one base register for the four (as a struct,
     * gcc assembled each move in a vector register; as four arrays, it ran out of registers) */
    uint32_t cm[4][LIST_MAX];
    const uint32_t *states = w->states[cur], *counts = w->counts[cur];
    int nb = !cur;
    size_t size = table_size(n);
    if (size > w->table_cap && reserve_table(w, size)) return -1;
    next_tag(w);
    __m256i acc = *acc_io;
    uint32_t m = 0;
    _mm256_storeu_si256((__m256i *)(w->counts[nb] + 8), _mm256_setzero_si256());
    for (uint32_t i = 1; i <= n;) {
        /* 1. the moves of the next parents */
        size_t k = list_moves(T, states, counts, &i, n, mv_board, mv_parent, &acc);
        if (__builtin_expect(2 * ((size_t)m + k) > size, 0) && grow_table(w, w->states[nb], m, &size)) return -1;
        if (__builtin_expect((size_t)m + k + 2 > w->cap[nb], 0) && grow_layer(w, nb, (size_t)m + k + 2)) return -1;
        /* 2. canonical boards, their slots prefetched */
        uint64_t *table = w->table;
        size_t mask = size - 1, j = 0;
#if RING_FORMS
        size_t nf, o = 0;
        j = canonical_moves(ring_constants(), mv_board, mv_parent, k, (uint32_t)mask, cm, 0, NULL, &o, &nf);
        for (size_t q = 0; q < nf; q++)  /* full: their paths end here */
            acc = sum8(acc, hashes(T, mv_board[q]), counts + 8 * (size_t)mv_parent[q]);
#else
        for (size_t q = 0; q < k; q++) {
            uint32_t t = mv_board[q];
            if (__builtin_expect((t >> ZERO_SHIFT) == 0, 0)) {  /* full: its paths end here */
                acc = sum8(acc, hashes(T, t), counts + 8 * (size_t)mv_parent[q]);
                continue;
            }
            uint32_t lane, b = canonical(T, t, &lane), slot = slot_hash(b) & (uint32_t)mask;
            _mm_prefetch((const char *)(table + slot), _MM_HINT_T0);
            cm[0][j] = b; cm[1][j] = slot; cm[2][j] = lane; cm[3][j] = mv_parent[q];
            j++;
        }
#endif
        /* 3. merged into the layer */
        uint64_t tag = (uint64_t)w->tag << TAG_SHIFT;
        uint32_t *ns = w->states[nb], *nc = w->counts[nb];
        const uint32_t *perm = (const uint32_t *)T->perm;
        m = insert_chunk(table, mask, tag, ns, nc, m, cm, j, counts, perm, RING_FORMS ? SLOT_AHEAD : 0);
    }
    *acc_io = acc;
    return m;
}

/* What the boards reached in one more move from the n boards of a layer add to the sum. */
static __m256i sum_last_layer(const fast_tables *T, const uint32_t *states, const uint32_t *counts, uint32_t n,
                              __m256i acc)
{
    for (uint32_t i = 1; i <= n; i++)
        acc = sum8(acc, successor_hashes(T, states[i]), counts + 8 * (size_t)i);
    return acc;
}

/* What the boards reached in two more moves add: each move's successors, no board stored. No branch depends on
 * how many empty cells a board has or how many moves a row holds: the parents' moves are listed as for a stored
 * layer (list_moves). A move's empty cells where no capture is possible each add one successor, a 1 put there: as
 * many times the move's hashes, plus the hashes of a board of 1s in those cells (the hash is linear in the cells),
 * each times the parent's counts. The other (move, empty cell) pairs are listed from cells_of, and each adds its
 * row's hash changes and its row's moves times the move's hashes, each times the parent's counts. */
#define TWO_BLOCK 128  /* moves whose (move, cell) pairs are listed at a time: at most 8 cells each */
static __m256i sum_last_two_layers(const fast_tables *T, const uint32_t *states, const uint32_t *counts, uint32_t n,
                                   __m256i acc)
{
    uint32_t mv_board[LIST_MAX], mv_parent[LIST_MAX];
    uint32_t wx[TWO_BLOCK][8];                       /* a move's hashes times its parent's counts */
    uint32_t pcell[8 * TWO_BLOCK + 8], pboard[8 * TWO_BLOCK + 8], pmove[8 * TWO_BLOCK + 8], pparent[8 * TWO_BLOCK + 8];
    __m256i acc_r = _mm256_setzero_si256();         /* sum of counts x row hash changes */
    __m256i acc_n = _mm256_setzero_si256();         /* sum of row moves x (counts x hashes) */
    const __m128i *N = (const __m128i *)neighbour_lanes;
    for (uint32_t i = 1; i <= n;) {
        size_t k = list_moves(T, states, counts, &i, n, mv_board, mv_parent, &acc);
        for (size_t b0 = 0; b0 < k; b0 += TWO_BLOCK) {
            size_t nb = k - b0 < TWO_BLOCK ? k - b0 : TWO_BLOCK, np = 0;
            for (size_t q = 0; q < nb; q++) {
                uint32_t x = mv_board[b0 + q], p = mv_parent[b0 + q], e, cap = capture_cells(N, x, &e);
                __m256i c = load8(counts + 8 * (size_t)p), w = _mm256_mullo_epi32(hashes(T, x), c);
                _mm256_storeu_si256((__m256i *)wx[q], w);
                /* a full move ends its paths: its own hashes, once */
                acc = _mm256_add_epi32(acc, _mm256_and_si256(w, _mm256_set1_epi32(-(int)(e == 0))));
                cap &= e;
                uint32_t lone = e & ~cap;
                acc_n = _mm256_add_epi32(acc_n, _mm256_mullo_epi32(w, _mm256_set1_epi32(__builtin_popcount(lone))));
                acc_r = sum8(acc_r, hashes(T, _pdep_u32(lone, LOW_BITS)), counts + 8 * (size_t)p);
                __m128i cs = _mm_loadl_epi64((const __m128i *)cells_of[cap]);
                _mm256_storeu_si256((__m256i *)(pcell + np), _mm256_cvtepu8_epi32(cs));
                _mm256_storeu_si256((__m256i *)(pboard + np), _mm256_set1_epi32((int)x));
                _mm256_storeu_si256((__m256i *)(pmove + np), _mm256_set1_epi32((int)q));
                _mm256_storeu_si256((__m256i *)(pparent + np), _mm256_set1_epi32((int)p));
                np += (size_t)__builtin_popcount(cap);
            }
            for (size_t r = 0; r < np; r++) {
                uint32_t row = row_of(T, pboard[r], (int)pcell[r]);
                __m256i nm = _mm256_set1_epi32((int)T->rowcount[row]);
                acc_n = _mm256_add_epi32(acc_n, _mm256_mullo_epi32(nm, load8(wx[pmove[r]])));
                acc_r = sum8(acc_r, load8(T->rowhash + 8 * (size_t)row), counts + 8 * (size_t)pparent[r]);
            }
        }
    }
    return _mm256_add_epi32(acc, _mm256_add_epi32(acc_n, acc_r));
}

/* The eight lane sums added, modulo 2^30: the answer. */
static uint32_t reduced(__m256i acc)
{
    __m128i q = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(1, 0, 3, 2)));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)_mm_cvtsi128_si32(q) & MASK30;
}

/* The answer modulo 2^30 for `depth` moves from `start`; *boards gets the canonical boards stored (layers 1 to
 * depth-2: the last two are summed without being stored). -1 when memory runs out. */
static int64_t solve(fast_work *w, const fast_tables *T, uint32_t start, int depth, int64_t *boards)
{
    *boards = 0;
    if (depth == 0) return (uint32_t)_mm256_cvtsi256_si32(hashes(T, start)) & MASK30;
    if (fast_reserve(w, 4, 4096)) return -1;
    __m256i acc = _mm256_setzero_si256();
    uint32_t lane, n = 1;
    int cur = 0;
    w->states[0][1] = canonical(T, start, &lane);
    uint32_t one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    _mm256_storeu_si256((__m256i *)(w->counts[0] + 8),
                        _mm256_permutevar8x32_epi32(load8(one), load8((const uint32_t *)T->perm + 8 * lane)));
    for (int d = 0; d < depth; d++) {
        const uint32_t *states = w->states[cur], *counts = w->counts[cur];
        if (d == depth - 1) {  /* the last layer: every parent's successors at once */
            acc = sum_last_layer(T, states, counts, n, acc);
            break;
        }
        if (d == depth - 2) {  /* the layer before: each move's successors, no board stored */
            acc = sum_last_two_layers(T, states, counts, n, acc);
            break;
        }
        int64_t m = build_layer(w, T, cur, n, &acc);
        if (m < 0) return -1;
        cur = !cur;
        n = (uint32_t)m;
        *boards += n;
        if (n == 0) break;  /* every game has ended: nothing left to move */
    }
    return reduced(acc);
}

int64_t fast_solve(fast_work *w, const fast_tables *T, uint32_t start, int depth, int64_t *boards)
{
    int64_t answer = solve(w, T, start, depth, boards);
#if FRESH_MAPS
    release(w);
#endif
    return answer;
}

/* ---- many tests at once, on several cores (fast_solve_many) ------------------------------------------------ */
typedef struct {
    fast_work *w;
    const fast_tables *T;
    const uint32_t *starts;
    const int32_t *depths, *order;
    int n;
    int *next;  /* the next entry of `order` to take, shared */
    int64_t *answers, *boards;
    double *seconds;
    int failed;
} many_job;

/* A thread with room for a search's frame (its move lists take about 100 KiB with a chunk of 256, 300 KiB with
 * 1024): some C libraries give a new thread 128 KiB by default. */
static int start_thread(pthread_t *tid, void *(*run)(void *), void *arg)
{
    pthread_attr_t attr;
    if (pthread_attr_init(&attr)) return -1;
    int failed = pthread_attr_setstacksize(&attr, (size_t)8 << 20) || pthread_create(tid, &attr, run, arg);
    pthread_attr_destroy(&attr);
    return failed ? -1 : 0;
}

static void *many_worker(void *arg)
{
    many_job *j = arg;
    for (;;) {
        int q = __atomic_fetch_add(j->next, 1, __ATOMIC_RELAXED);
        if (q >= j->n) return NULL;
        int c = j->order[q];
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        j->answers[c] = fast_solve(j->w, j->T, j->starts[c], j->depths[c], &j->boards[c]);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        j->seconds[c] = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        j->failed |= j->answers[c] < 0;
    }
}

/* The n tests solved by `threads` threads, one workspace each; a thread takes the next test of `order` when it
 * is free (the caller lists the longest first). Per-test seconds are each test's own wall time. -1 when a
 * search ran out of memory. */
int fast_solve_many(fast_work **works, int threads, const fast_tables *T, const uint32_t *starts,
                    const int32_t *depths, const int32_t *order, int n, int64_t *answers, int64_t *boards,
                    double *seconds)
{
    many_job jobs[16];
    pthread_t tid[16];
    int next = 0, failed = 0;
    if (threads < 1) threads = 1;
    if (threads > 16) threads = 16;
    for (int t = 0; t < threads; t++)
        jobs[t] = (many_job){works[t], T, starts, depths, order, n, &next, answers, boards, seconds, 0};
    for (int t = 1; t < threads; t++)
        if (start_thread(&tid[t], many_worker, &jobs[t])) jobs[t].failed = -1;
    many_worker(&jobs[0]);
    for (int t = 1; t < threads; t++) {
        if (jobs[t].failed == -1) { jobs[t].failed = 0; many_worker(&jobs[t]); continue; }
        pthread_join(tid[t], NULL);
    }
    for (int t = 0; t < threads; t++) failed |= jobs[t].failed;
    return failed ? -1 : 0;
}
