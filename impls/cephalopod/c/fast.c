/* The write-up's later steps (seed 003, submissions 7-17) on top of symmetry and AVX2, and one step it does
 * not take: the last two layers are summed without building a single successor board.
 *
 * Board: cell i in bits 3i..3i+2, the number of empty cells in bits 27..31 (as in search.h). A layer is a
 * state array and a count array of eight uint32 per state (the paths reaching each orientation of the
 * canonical board), index 0 unused; counts wrap modulo 2^32, a multiple of 2^30.
 *
 * What this file does beyond c/avx2.c:
 *  - step 7 and 16: every buffer is allocated and its pages touched by fast_reserve(), called in prepare;
 *    a solve allocates nothing unless a layer outgrows the reservation.
 *  - step 15 taken further: the hash table is never zeroed between layers. A slot holds the board, a layer
 *    tag and the index; a slot whose tag is not the current layer's is empty. Only when the 8-bit tag wraps
 *    (every 255 layers) is the table cleared.
 *  - step 10: the eight forms come from three 256-entry tables over the eight outer cells (the centre never
 *    moves), XORed into the board, so the centre and the empty count ride along: 24 KiB instead of 48 KiB.
 *  - step 9: state hashes from the same kind of byte tables, eight orientations in one register.
 *  - step 11: sums stay in eight 32-bit lanes (exact modulo 2^32) and are reduced once, at the end.
 *  - step 4 done as a pipeline: a move's canonical board is hashed and its slot prefetched LAG moves before
 *    it is inserted, so several cache misses are in flight at once. No move list is written at all (the
 *    write-up's step 17, non-temporal stores to the move list, has nothing left to store; steps 12 and 13,
 *    one state array and terminal boards on the move list, are about that list too). Tried and dropped: a
 *    separate move buffer canonicalised in chunks of 128-1024 (no faster here), and prefetching the count
 *    line of a board already in the table before adding to it (no faster, even at depth 40).
 *  - beyond the write-up: the base-10 hash is linear in the cells, so the hashes of all successors of a
 *    board (all eight orientations) are (number of moves) x (its own hashes) + a per-(cell, neighbours) row
 *    summed over its empty cells (tables.row_hash_changes). The last layer is then one pass over its parents,
 *    and the layer before it one pass over its moves, with no canonical form, hash table or insertion.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MASK30 0x3FFFFFFFu
#define ZERO_SHIFT 27
#define OUTER 0x07FF8FFFu  /* the eight cells a symmetry moves */
#define LOW_BITS 0x01249249u  /* bit 0 of each cell */
#define MAX_INDEX ((1u << 24) - 1)
#ifndef LAG
#define LAG 8  /* moves between a slot's prefetch and its insertion */
#endif
#define RING 16

typedef struct {
    const uint32_t *moves;    /* rows of 12: number of moves, then the deltas */
    const int32_t *base;      /* [9] first row of each cell */
    const uint32_t *nmask;    /* [9] the bits of each cell's neighbours (pext gives the row key) */
    const uint32_t *swap;     /* [3][256][8] */
    const uint32_t *hash;     /* [3][256][8] */
    const uint32_t *rowhash;  /* [rows][8] */
    const int32_t *perm;      /* [8][8] how counts move when lane k held the smallest form */
} fast_tables;

typedef struct {
    uint32_t *states[2], *counts[2];
    size_t cap[2];
    uint64_t *table;  /* board << 32 | tag << 24 | index */
    size_t table_cap;
    uint32_t tag;
} fast_work;

typedef struct {
    uint32_t board, hash, lane;
    const uint32_t *counts;
} pending;

static void *touched(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, bytes ? bytes : 64)) return NULL;
    memset(p, 0, bytes);  /* the kernel zero-fills each page now, not during a solve */
    return p;
}

static int reserve_layer(fast_work *w, int b, size_t n)
{
    if (n <= w->cap[b]) return 0;
    uint32_t *s = (uint32_t *)touched(n * sizeof(uint32_t));
    uint32_t *c = (uint32_t *)touched(n * 8 * sizeof(uint32_t));
    if (!s || !c) { free(s); free(c); return -1; }
    size_t keep = w->cap[b];
    if (keep) {  /* a layer being built keeps what it holds */
        memcpy(s, w->states[b], keep * sizeof(uint32_t));
        memcpy(c, w->counts[b], keep * 8 * sizeof(uint32_t));
    }
    free(w->states[b]); free(w->counts[b]);
    w->states[b] = s; w->counts[b] = c; w->cap[b] = n;
    return 0;
}

static int reserve_table(fast_work *w, size_t slots)
{
    if (slots <= w->table_cap) return 0;
    uint64_t *t = (uint64_t *)touched(slots * sizeof(uint64_t));
    if (!t) return -1;
    free(w->table);
    w->table = t; w->table_cap = slots; w->tag = 0;
    return 0;
}

fast_work *fast_new(void)
{
    return (fast_work *)calloc(1, sizeof(fast_work));
}

void fast_free(fast_work *w)
{
    if (!w) return;
    free(w->states[0]); free(w->states[1]); free(w->counts[0]); free(w->counts[1]); free(w->table);
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

/* the eight symmetric forms of s, lane k = symmetry k (centre and empty count unchanged) */
static inline __m256i forms(const fast_tables *T, uint32_t s)
{
    uint32_t u = _pext_u32(s, OUTER);
    __m256i x = _mm256_xor_si256(load8(T->swap + (u & 255) * 8), load8(T->swap + 2048 + ((u >> 8) & 255) * 8));
    x = _mm256_xor_si256(x, load8(T->swap + 4096 + (u >> 16) * 8));
    return _mm256_xor_si256(x, _mm256_set1_epi32((int)s));
}

/* the base-10 hashes of the eight forms of s */
static inline __m256i hashes(const fast_tables *T, uint32_t s)
{
    uint32_t u = _pext_u32(s, OUTER);
    __m256i h = _mm256_add_epi32(load8(T->hash + (u & 255) * 8), load8(T->hash + 2048 + ((u >> 8) & 255) * 8));
    h = _mm256_add_epi32(h, load8(T->hash + 4096 + (u >> 16) * 8));
    return _mm256_add_epi32(h, _mm256_set1_epi32((int)(((s >> 12) & 7) * 10000)));
}

/* the smallest form of s; *lane is the symmetry that produced it */
static inline uint32_t canonical(const fast_tables *T, uint32_t s, uint32_t *lane)
{
    __m256i f = forms(T, s);
    __m256i m = _mm256_min_epu32(f, _mm256_permute2x128_si256(f, f, 1));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_min_epu32(m, _mm256_shuffle_epi32(m, _MM_SHUFFLE(2, 3, 0, 1)));
    *lane = (uint32_t)__builtin_ctz((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(f, m))));
    return (uint32_t)_mm256_cvtsi256_si32(m);
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

static inline __m256i moved_counts(const fast_tables *T, const uint32_t *c, uint32_t lane)
{
    return _mm256_permutevar8x32_epi32(load8(c), load8((const uint32_t *)T->perm + 8 * lane));
}

/* A fresh tag for a layer's table; the table is cleared only when the tags run out. */
static void next_tag(fast_work *w)
{
    if (++w->tag > 255) {
        memset(w->table, 0, w->table_cap * sizeof(uint64_t));
        w->tag = 1;
    }
}

typedef struct {
    fast_work *w;
    const fast_tables *T;
    uint32_t *states, *counts;  /* the layer being built */
    int b;                      /* its buffer */
    size_t size;                /* table slots in use (a power of two) */
    uint32_t m;                 /* boards in the layer */
} builder;

static inline __attribute__((always_inline)) int place(builder *L, uint32_t board, uint32_t hash, uint32_t *idx)
{
    uint64_t *table = L->w->table;
    uint64_t tag = (uint64_t)L->w->tag << 24;
    size_t mask = L->size - 1;
    for (size_t slot = hash & mask;; slot = (slot + 1) & mask) {
        uint64_t e = table[slot];
        if ((e & 0xFF000000u) != tag) {
            *idx = ++L->m;
            table[slot] = (uint64_t)board << 32 | tag | *idx;
            return 1;
        }
        if ((uint32_t)(e >> 32) == board) {
            *idx = (uint32_t)e & MAX_INDEX;
            return 0;
        }
    }
}

/* Double the table, re-placing the layer's boards under a new tag. */
static __attribute__((noinline, cold)) int grow_table(builder *L)
{
    size_t size = L->size * 2;
    if (size > L->w->table_cap && reserve_table(L->w, size)) return -1;
    next_tag(L->w);
    L->size = size;
    uint32_t m = L->m, idx;
    L->m = 0;
    for (uint32_t i = 1; i <= m; i++) place(L, L->states[i], slot_hash(L->states[i]), &idx);
    return 0;
}

static __attribute__((noinline, cold)) int grow_layer(builder *L)
{
    if (L->m >= MAX_INDEX || reserve_layer(L->w, L->b, 2 * L->w->cap[L->b])) return -1;
    L->states = L->w->states[L->b];
    L->counts = L->w->counts[L->b];
    return 0;
}

static inline __attribute__((always_inline)) int settle(builder *L, const pending *p)
{
    if (__builtin_expect(2 * ((size_t)L->m + 1) > L->size, 0) && grow_table(L)) return -1;
    if (__builtin_expect((size_t)L->m + 2 > L->w->cap[L->b], 0) && grow_layer(L)) return -1;
    uint32_t idx;
    __m256i v = moved_counts(L->T, p->counts, p->lane);
    int fresh = place(L, p->board, p->hash, &idx);
    __m256i *dst = (__m256i *)(L->counts + 8 * (size_t)idx);
    if (fresh)
        L->states[idx] = p->board;
    else
        v = _mm256_add_epi32(_mm256_loadu_si256(dst), v);
    _mm256_storeu_si256(dst, v);
    return 0;
}

static inline __m256i sum8(__m256i acc, __m256i h, const uint32_t *c)
{
    return _mm256_add_epi32(acc, _mm256_mullo_epi32(h, load8(c)));
}

/* The answer modulo 2^30 for `depth` moves from `start`; *boards gets the canonical boards stored (layers 1 to
 * depth-2: the last two are summed without being stored). -1 when memory runs out. */
int64_t fast_solve(fast_work *w, const fast_tables *T, uint32_t start, int depth, int64_t *boards)
{
    *boards = 0;
    if (depth == 0) return (uint32_t)_mm256_cvtsi256_si32(hashes(T, start)) & MASK30;
    if (fast_reserve(w, 2, 1024)) return -1;
    __m256i acc = _mm256_setzero_si256();
    uint32_t lane, n = 1;
    int cur = 0;
    w->states[0][1] = canonical(T, start, &lane);
    uint32_t one[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    _mm256_storeu_si256((__m256i *)(w->counts[0] + 8), moved_counts(T, one, lane));
    for (int d = 0; d < depth; d++) {
        const uint32_t *states = w->states[cur], *counts = w->counts[cur];
        if (d == depth - 1) {  /* the last layer: every parent's successors at once */
            for (uint32_t i = 1; i <= n; i++)
                acc = sum8(acc, successor_hashes(T, states[i]), counts + 8 * (size_t)i);
            break;
        }
        if (d == depth - 2) {  /* the layer before: each move's successors, no board stored */
            for (uint32_t i = 1; i <= n; i++) {
                uint32_t s = states[i];
                const uint32_t *c = counts + 8 * (size_t)i;
                uint32_t e = empty_cells(s);
                if (!e) acc = sum8(acc, hashes(T, s), c);
                __m256i h = _mm256_setzero_si256();
                for (; e; e &= e - 1) {
                    const uint32_t *r = T->moves + 12 * (size_t)row_of(T, s, __builtin_ctz(e));
                    for (uint32_t q = 1; q <= r[0]; q++) h = _mm256_add_epi32(h, successor_hashes(T, s + r[q]));
                }
                acc = sum8(acc, h, c);
            }
            break;
        }
        /* a layer to store: canonical boards through the hash table, slots prefetched LAG moves ahead */
        builder L = {w, T, w->states[!cur], w->counts[!cur], !cur, 4096, 0};
        while (L.size < 4 * (size_t)n) L.size *= 2;
        if (L.size > w->table_cap && reserve_table(w, L.size)) return -1;
        next_tag(w);
        pending ring[RING];
        size_t queued = 0, done = 0;
        for (uint32_t i = 1; i <= n; i++) {
            uint32_t s = states[i];
            const uint32_t *c = counts + 8 * (size_t)i;
            uint32_t e = empty_cells(s);
            if (!e) acc = sum8(acc, hashes(T, s), c);  /* only the start can be full */
            for (; e; e &= e - 1) {
                const uint32_t *r = T->moves + 12 * (size_t)row_of(T, s, __builtin_ctz(e));
                for (uint32_t q = 1; q <= r[0]; q++) {
                    uint32_t t = s + r[q];
                    if ((t >> ZERO_SHIFT) == 0) {  /* full: its paths end here */
                        acc = sum8(acc, hashes(T, t), c);
                        continue;
                    }
                    pending *p = ring + (queued++ & (RING - 1));
                    p->board = canonical(T, t, &p->lane);
                    p->hash = slot_hash(p->board);
                    p->counts = c;
                    _mm_prefetch((const char *)(w->table + (p->hash & (L.size - 1))), _MM_HINT_T0);
                    if (queued - done > LAG && settle(&L, ring + (done++ & (RING - 1)))) return -1;
                }
            }
        }
        while (done < queued)
            if (settle(&L, ring + (done++ & (RING - 1)))) return -1;
        cur = !cur;
        n = L.m;
        *boards += n;
        if (n == 0) break;  /* every game has ended: nothing left to move */
    }
    __m128i q = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(1, 0, 3, 2)));
    q = _mm_add_epi32(q, _mm_shuffle_epi32(q, _MM_SHUFFLE(2, 3, 0, 1)));
    return (uint32_t)_mm_cvtsi128_si32(q) & MASK30;
}
