/* Table-lookup batch scoring for AVX512-VBMI (ours): a score is a sum of a few byte lookups per secret.
 *
 * The score byte is 15 b + all hits (see mm_score.h), and both halves split into independent terms:
 * - black: the pins are cut into groups of m pins (colors^m <= 64). A secret's group index encodes the colors of
 *   those m pins; the guess's table of that group holds, at each index, 15 x (pins of the group equal to the
 *   guess's);
 * - all hits = sum over the guess's colors c of min(count of c in the secret, count of c in the guess). A "hit
 *   plane" holds, per secret, the rank of the vector of its counts of some colors (each capped at the plane's
 *   cap) among all such vectors with sum <= pins; planes are chosen so there are at most 64 ranks. The guess's
 *   table of a plane holds, at each rank, the sum of min(count, guess's count) over the guess's colors in it.
 * Every index is below 64, so one vpermb (_mm512_permutexvar_epi8) looks up 64 secrets at once in a table held in
 * a register: per guess and 64 secrets a term costs one load, one permute and one add (against the sliced
 * kernel's compare and masked add per pin and min and add per color).
 *
 * Which hit planes, per game (never per workload):
 * - one plane per guess where that suffices: a plane for every set of g colors (g: the most whose count vectors
 *   number <= 64) covers every guess of at most g colors; where guesses of more than g colors all have distinct
 *   colors (pins <= g + 1), a plane of presence bits (cap 1) for every set of s1 colors covers them. 4p6c: 20
 *   triples of counts and one plane of the six presence bits, so every guess is 2 pin pairs + 1 hit plane: three
 *   lookups per 64 scores;
 * - otherwise (more than 64 such planes, or guesses needing two), the colors are cut into disjoint groups of g,
 *   one plane each, and every guess looks up every group (a group of colors the guess lacks has a zero table).
 * Every valid game fits the second scheme: colors <= 15 < 64 gives m >= 1 and pins <= 8 gives g >= 2
 * (C(10, 2) = 45), so at most 8 + 8 terms.
 *
 * The secrets' indices are a layout conversion done once (lk_index, called in prepare), as are the game's
 * constant vectors (lk_make_plan): per pin position and guess color the 15-or-0 bytes over all indices, per hit
 * plane and color the (capped) count at each rank. A guess's tables are built in the timed call from those, a few
 * vector operations per guess. Explicit (secret, guess) pairs have no guess shared by many secrets to build tables
 * for: they use the byte-sliced code of score_sliced.h (score_pairs_sliced, included below), as do the games
 * where the lookups would not pay (lk_pays: one pin per group, many groups: score_cross_sliced). */
#include "score_sliced.h"
#include <immintrin.h>
#include <stdlib.h>

#define LK_PINS 8
#define LK_COLORS 15
#define LK_PLANES 64   /* hit planes at most */
#define LK_SLOTS 9     /* colors in one hit plane at most (2 pins: 9 counts; 3 pins: 7 presence bits) */
#define LK_TERMS 16    /* lookups per guess at most: 8 pin groups + 8 color groups */

typedef struct {
    int32_t pins, colors, npg, nhp; /* the game; the numbers of pin groups and of hit planes */
    int32_t per_guess;              /* 1: each guess uses one hit plane (sup); 0: every guess uses every one */
    int8_t pg_first[LK_PINS], pg_len[LK_PINS]; /* pin group t: pins pg_first[t] .. + pg_len[t] - 1 */
    int8_t hp_n[LK_PLANES], hp_cap[LK_PLANES]; /* hit plane h: hp_n colors, counts capped at hp_cap */
    int8_t hp_color[LK_PLANES][LK_SLOTS];      /* its colors, ascending: slot j holds hp_color[h][j] */
    uint8_t sup[1 << LK_COLORS];  /* per_guess: sup[mask], the hit plane of a guess whose colors c are the bits
                                     c - 1 of mask */
    uint8_t eq15[LK_PINS][LK_COLORS + 1][64];   /* 15 where pin k has color v in the index's pin group */
    uint8_t count_at[LK_PLANES][LK_SLOTS][64];  /* the capped count of plane h's slot color at rank r */
    uint8_t splat[LK_PINS + 1][64];             /* v in every byte: a guess's count as a vector operand */
} lk_plan;

size_t lk_plan_bytes(void) { return sizeof(lk_plan); }

static int ipow(int b, int e) {
    int r = 1;
    while (e-- > 0) r *= b;
    return r;
}

static int binom(int n, int k) {
    long r = 1;
    for (int i = 1; i <= k; i++) r = r * (n - k + i) / i; /* exact at every step: a product of i binomials */
    return (int)r;
}

/* Vectors of n counts, each at most cap, with sum <= pins, in lexicographic order: vec(r) is the r-th. Visits
 * the base-(cap + 1) numbers in increasing order, which is that order; returns how many there are. With
 * key_rank, key_rank[key] = r for the vector whose base-(cap + 1) digits are key (others untouched). */
static int lk_ranks(int n, int cap, int pins, uint8_t (*vec)[64], uint8_t *key_rank) {
    int r = 0;
    for (int key = 0; key < ipow(cap + 1, n); key++) {
        int k[LK_COLORS], sum = 0; /* n <= colors: planes, and the probes for the widest plane */
        for (int j = n - 1, q = key; j >= 0; j--, q /= cap + 1) sum += k[j] = q % (cap + 1);
        if (sum > pins) continue;
        if (r < 64 && vec)
            for (int j = 0; j < n; j++) vec[j][r] = (uint8_t)k[j];
        if (key_rank) key_rank[key] = (uint8_t)r;
        r++;
    }
    return r;
}

static void lk_add_plane(lk_plan *pl, unsigned mask, int cap) {
    int h = pl->nhp++, n = 0;
    pl->hp_cap[h] = (int8_t)cap;
    for (int c = 1; c <= pl->colors; c++)
        if (mask >> (c - 1) & 1) pl->hp_color[h][n++] = (int8_t)c;
    pl->hp_n[h] = (int8_t)n;
    lk_ranks(n, cap, pl->pins, pl->count_at[h], NULL);
}

/* The set of `size` colors that holds `mask` and after it the lowest colors it lacks. */
static unsigned lk_fill(unsigned mask, int size) {
    for (unsigned b = 1; __builtin_popcount(mask) < size; b <<= 1) mask |= b;
    return mask;
}

/* Fill the game's plan; returns the number of index planes (pin groups + hit planes), 0 for a game beyond
 * 8 pins or 15 colors (or out of memory). */
int lk_make_plan(int pins, int colors, void *buf) {
    lk_plan *pl = buf;
    memset(pl, 0, sizeof *pl);
    if (pins < 1 || pins > LK_PINS || colors < 1 || colors > LK_COLORS) return 0;
    pl->pins = pins;
    pl->colors = colors;
    int m = 1, g = 1, s1 = 1;
    while (m < pins && ipow(colors, m + 1) <= 64) m++;
    while (g < colors && lk_ranks(g + 1, pins, pins, NULL, NULL) <= 64) g++;
    while (s1 < colors && lk_ranks(s1 + 1, 1, pins, NULL, NULL) <= 64) s1++;
    for (int f = 0; f < pins; f += m) {
        int t = pl->npg++, len = pins - f < m ? pins - f : m;
        pl->pg_first[t] = (int8_t)f;
        pl->pg_len[t] = (int8_t)len;
        /* index = the group's pin colors - 1 as base-colors digits, the first pin most significant */
        for (int r = 0; r < ipow(colors, len); r++)
            for (int j = 0, q = r; j < len; j++, q /= colors) pl->eq15[f + len - 1 - j][q % colors + 1][r] = 15;
    }
    for (int v = 0; v <= pins; v++) memset(pl->splat[v], v, 64);

    /* One plane per guess: guesses of more than g colors exist only if pins and colors exceed g; they are covered
     * if they cannot repeat a color (pins <= g + 1) and have at most s1 colors. */
    int most = pins < colors ? pins : colors;
    int planes = binom(colors, g) + (most > g ? binom(colors, s1) : 0);
    if ((most <= g || (pins <= g + 1 && most <= s1)) && planes <= LK_PLANES) {
        uint8_t *plane_of = calloc((size_t)1 << colors, 1);
        if (!plane_of) return 0;
        for (unsigned mask = 0; mask < 1u << colors; mask++)
            if (__builtin_popcount(mask) == g) {
                plane_of[mask] = (uint8_t)pl->nhp;
                lk_add_plane(pl, mask, pins);
            }
        if (most > g)
            for (unsigned mask = 0; mask < 1u << colors; mask++)
                if (__builtin_popcount(mask) == s1) {
                    plane_of[mask] = (uint8_t)pl->nhp;
                    lk_add_plane(pl, mask, 1);
                }
        for (unsigned mask = 1; mask < 1u << colors; mask++) {
            int k = __builtin_popcount(mask);
            if (k <= most) pl->sup[mask] = plane_of[lk_fill(mask, k <= g ? g : s1)];
        }
        free(plane_of);
        pl->per_guess = 1;
    } else {
        for (int f = 1; f <= colors; f += g) {
            int len = colors + 1 - f < g ? colors + 1 - f : g;
            lk_add_plane(pl, ((1u << len) - 1) << (f - 1), pins);
        }
    }
    return pl->npg + pl->nhp;
}

/* Whether the lookups should beat the byte-sliced rows (score_cross_sliced) on this game: 1, or 0 to use those.
 * Per 64 secrets and guess, the lookups cost nt permutes, all on one port (5 on Intel); the sliced rows cost a
 * compare (port 5) and a masked add per pin and a min and an add per color the guess has, spread over ports 0
 * and 5: about pins + colors-in-the-guess cycles, with colors(1 - (1 - 1/colors)^pins) colors on average over
 * all guesses. Measured: 4p6c 3 lookups against 4 + 3.1, the lookups 2.5x faster; 6p9c (one pin per group, 11
 * lookups) against 6 + 4.4, 12% slower. */
int lk_pays(const void *plan) {
    const lk_plan *pl = plan;
    double colors_in_guess = pl->colors * (1.0 - __builtin_pow(1.0 - 1.0 / pl->colors, pl->pins));
    int nt = pl->npg + (pl->per_guess ? 1 : pl->nhp);
    return nt < pl->pins + colors_in_guess;
}

/* The layout conversion: plane t (pin groups, then hit planes) of codeword i in idx[t * stride + i]. Returns 0,
 * or -1 out of memory. */
int lk_index(const void *plan, const uint32_t *codes, size_t n, uint8_t *idx, size_t stride) {
    const lk_plan *pl = plan;
    int keys = 1;
    for (int h = 0; h < pl->nhp; h++)
        if (ipow(pl->hp_cap[h] + 1, pl->hp_n[h]) > keys) keys = ipow(pl->hp_cap[h] + 1, pl->hp_n[h]);
    uint8_t *key_rank = malloc((size_t)keys);
    if (!key_rank) return -1;
    for (size_t i = 0; i < n; i++) {
        uint8_t p[LK_PINS];
        pins_of(codes[i], pl->pins, p);
        for (int t = 0; t < pl->npg; t++) {
            int r = 0;
            for (int j = 0; j < pl->pg_len[t]; j++) r = r * pl->colors + p[pl->pg_first[t] + j] - 1;
            idx[t * stride + i] = (uint8_t)r;
        }
    }
    for (int h = 0; h < pl->nhp; h++) {
        int cap = pl->hp_cap[h];
        uint8_t *out = idx + (pl->npg + h) * stride;
        lk_ranks(pl->hp_n[h], cap, pl->pins, NULL, key_rank);
        for (size_t i = 0; i < n; i++) {
            int cnt[LK_COLORS + 1] = {0}, key = 0;
            for (int k = 0; k < pl->pins; k++) cnt[(codes[i] >> (4 * k)) & 15]++;
            for (int j = 0; j < pl->hp_n[h]; j++) {
                int x = cnt[pl->hp_color[h][j]];
                key = key * (cap + 1) + (x < cap ? x : cap);
            }
            out[i] = key_rank[key];
        }
    }
    free(key_rank);
    return 0;
}

/* A guess's tables, one per term, and for a per_guess plan the hit plane its last term looks up. Pin groups come
 * first; a plan without per_guess gives every guess a table for every hit plane, all-zero for one whose colors
 * the guess lacks: then every row has the same planes and several rows share each plane load. */
static int lk_tables(const lk_plan *pl, uint32_t code, __m512i *tab) {
    uint8_t gp[LK_PINS], gc[LK_COLORS + 1] = {0};
    unsigned mask = 0;
    uint32_t top = code << (4 * (LK_PINS - pl->pins)); /* the first pin in the top nibble */
    for (int k = 0; k < LK_PINS; k++) gp[k] = top >> (28 - 4 * k) & 15; /* a fixed count: straight-line code */
    for (int k = 0; k < pl->pins; k++) {
        gc[gp[k]]++;
        mask |= 1u << (gp[k] - 1);
    }
    for (int t = 0; t < pl->npg; t++) {
        int f = pl->pg_first[t];
        __m512i v = _mm512_loadu_si512(pl->eq15[f][gp[f]]);
        for (int k = f + 1; k < f + pl->pg_len[t]; k++) v = _mm512_add_epi8(v, _mm512_loadu_si512(pl->eq15[k][gp[k]]));
        tab[t] = v;
    }
    int h0 = pl->per_guess ? pl->sup[mask] : 0, h1 = pl->per_guess ? h0 + 1 : pl->nhp;
    for (int h = h0; h < h1; h++) {
        __m512i v = _mm512_setzero_si512();
        for (int j = 0; j < pl->hp_n[h]; j++) /* a color the guess lacks adds min(x, 0) = 0: no branch to miss */
            v = _mm512_add_epi8(v, _mm512_min_epu8(_mm512_loadu_si512(pl->count_at[h][j]),
                                                   _mm512_loadu_si512(pl->splat[gc[pl->hp_color[h][j]]])));
        tab[pl->npg + h - h0] = v;
    }
    return h0;
}

/* Scores of secrets i .. i + 63 (lanes outside m are not loaded) against the guesses of the rows: row q sums
 * its nt lookups, tables tab[q * nt ..]. The first nt - own planes (ix) are the same for every row and loaded
 * once for all; with own = 1 the last is row q's own plane hx[q]. */
MM_INLINE void lk_block(const uint8_t *const *ix, const uint8_t *const *hx, size_t i, __mmask64 m,
                        const __m512i *tab, const int nt, const int own, const int rows, __m512i *acc) {
    __m512i x = _mm512_maskz_loadu_epi8(m, ix[0] + i);
    for (int q = 0; q < rows; q++) acc[q] = _mm512_permutexvar_epi8(x, tab[q * nt]);
#pragma GCC unroll 16
    for (int t = 1; t < nt - own; t++) {
        x = _mm512_maskz_loadu_epi8(m, ix[t] + i);
        for (int q = 0; q < rows; q++) acc[q] = _mm512_add_epi8(acc[q], _mm512_permutexvar_epi8(x, tab[q * nt + t]));
    }
    if (own)
        for (int q = 0; q < rows; q++)
            acc[q] = _mm512_add_epi8(acc[q], _mm512_permutexvar_epi8(_mm512_maskz_loadu_epi8(m, hx[q] + i),
                                                                      tab[q * nt + nt - 1]));
}

/* rows guesses against secrets lo .. hi - 1 of n, row q written to out + q * pitch; every row starts a bytes
 * before a 64-byte boundary (a < 64) and lo and hi are 0, n or a + a multiple of 64. The stores are aligned: a
 * partial block of a secrets first, whole blocks, then the rest (an unaligned 64-byte store writes two cache
 * lines, and several rows of them at once were seen to cost half as much again as the lookups). Inlined with nt,
 * own and rows constants, the loops unroll and the tables stay in registers. stream: whole blocks by
 * non-temporal stores (see row_sliced in mm_score.h). */
MM_INLINE void lk_rows(const uint8_t *const *ix, const uint8_t *const *hx, size_t lo, size_t hi, size_t a,
                       const __m512i *tab, const int nt, const int own, const int rows, uint8_t *out, size_t pitch,
                       int stream) {
    __m512i acc[4];
    size_t i = lo;
    if (i < a && i < hi) { /* lo = 0 */
        __mmask64 m = ~0ull >> (64 - (a < hi ? a : hi));
        lk_block(ix, hx, 0, m, tab, nt, own, rows, acc);
        for (int q = 0; q < rows; q++) _mm512_mask_storeu_epi8(out + q * pitch, m, acc[q]);
        i = a;
    }
    for (; i + 64 <= hi; i += 64) {
        lk_block(ix, hx, i, ~0ull, tab, nt, own, rows, acc);
        for (int q = 0; q < rows; q++)
            if (stream)
                _mm512_stream_si512((__m512i *)(out + q * pitch + i), acc[q]);
            else
                _mm512_store_si512(out + q * pitch + i, acc[q]);
    }
    if (i < hi) {
        __mmask64 m = ~0ull >> (64 - (hi - i));
        lk_block(ix, hx, i, m, tab, nt, own, rows, acc);
        for (int q = 0; q < rows; q++) _mm512_mask_storeu_epi8(out + q * pitch + i, m, acc[q]);
    }
}

/* All guesses, nt lookups each (own: whether the last is the guess's own hit plane). Rows whose starts share
 * their offset in a cache line (every period-th row) go LK_GROUP(nt) at a time (as many as keep their tables
 * within the 32 registers), sharing the loads of common planes; the rows left over go one at a time. Many
 * secrets are taken LK_CHUNK at a time, every row over one chunk before the next: that chunk of the planes is
 * then read from the caches by every row (whole planes of 531,441 secrets, 6p9c, came from memory for each row,
 * and made the lookups slower than the sliced kernel). A row's tables are built again for each chunk: a few
 * dozen operations against hundreds of blocks. */
#define LK_GROUP(NT) ((NT) <= 5 ? 4 : (NT) <= 13 ? 2 : 1)
#define LK_CHUNK ((size_t)1 << 15)
MM_INLINE void lk_cross(const lk_plan *pl, const uint8_t *idx, size_t stride, size_t ns, const uint32_t *g,
                        size_t ng, uint8_t *out, const int nt, const int own, int stream) {
    const int G = LK_GROUP(nt);
    const size_t period = 64 >> (ns % 64 ? __builtin_ctzll(ns) : 6); /* 64 / gcd(ns, 64) */
    const uint8_t *ix[LK_TERMS], *hx[4];
    const uint8_t *hit = idx + pl->npg * stride;
    __m512i tab[4 * LK_TERMS];
    for (int t = 0; t < nt - own; t++) ix[t] = idx + t * stride;
    for (size_t c = 0; c * LK_CHUNK < ns; c++) {
        /* chunk c of a row starting a bytes before a line: from a + c LK_CHUNK (0 for the first) to the next */
#define LK_LO(a) (c ? (a) + c * LK_CHUNK : 0)
#define LK_HI(a) ((a) + (c + 1) * LK_CHUNK < ns ? (a) + (c + 1) * LK_CHUNK : ns)
        size_t j = 0;
        for (; G > 1 && j + G * period <= ng; j += G * period)
            for (size_t r = j; r < j + period; r++) {
                uint8_t *row = out + r * ns;
                size_t a = -(uintptr_t)row % 64;
                if (LK_LO(a) >= LK_HI(a)) continue;
                for (int q = 0; q < G; q++) hx[q] = hit + lk_tables(pl, g[r + q * period], tab + q * nt) * stride;
                lk_rows(ix, hx, LK_LO(a), LK_HI(a), a, tab, nt, own, G, row, period * ns, stream);
            }
        for (; j < ng; j++) {
            uint8_t *row = out + j * ns;
            size_t a = -(uintptr_t)row % 64;
            if (LK_LO(a) >= LK_HI(a)) continue;
            hx[0] = hit + lk_tables(pl, g[j], tab) * stride;
            lk_rows(ix, hx, LK_LO(a), LK_HI(a), a, tab, nt, own, 1, row, 0, stream);
        }
#undef LK_LO
#undef LK_HI
    }
}

/* Every guess g[0..ng) against the ns secrets whose planes lk_index wrote (stride apart); out[j * ns + i] is
 * guess j against secret i. */
void score_cross_lookup(const void *plan, const uint8_t *idx, size_t stride, size_t ns, const uint32_t *g,
                        size_t ng, uint8_t *out) {
    const lk_plan *pl = plan;
    int stream = ns * ng >= MM_STREAM_BYTES; /* every whole block is stored aligned */
    /* one unrolled loop per number of lookups: per guess plane, or all planes shared */
    if (pl->per_guess) {
        switch (pl->npg + 1) {
#define LK_CASE(N) case N: lk_cross(pl, idx, stride, ns, g, ng, out, N, 1, stream); break;
            LK_CASE(2) LK_CASE(3) LK_CASE(4) LK_CASE(5) LK_CASE(6) LK_CASE(7) LK_CASE(8) LK_CASE(9)
#undef LK_CASE
        }
    } else {
        switch (pl->npg + pl->nhp) {
#define LK_CASE(N) case N: lk_cross(pl, idx, stride, ns, g, ng, out, N, 0, stream); break;
            LK_CASE(2) LK_CASE(3) LK_CASE(4) LK_CASE(5) LK_CASE(6) LK_CASE(7) LK_CASE(8) LK_CASE(9)
            LK_CASE(10) LK_CASE(11) LK_CASE(12) LK_CASE(13) LK_CASE(14) LK_CASE(15) LK_CASE(16)
#undef LK_CASE
        }
    }
    if (stream) _mm_sfence(); /* the streamed lines are visible before the caller reads them */
}
