/* The talk's SWAR building blocks and their naive twins, over the same words.
 * Built twice: portable (scalar, no vectorizer) and with POPCNT + BMI2, where the builtin popcount is one
 * instruction and pdep exists. Functions that need BMI2 exist only in that build. */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#ifdef __BMI2__
#include <immintrin.h>
#endif


/* ---- lane popcounts: the levels of the classic SWAR popcount, stopping at the lane width ---------------- */
static inline uint64_t swar_popcount(uint64_t x, int width) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    if (width == 2) return x;
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    if (width == 4) return x;
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    if (width == 8) return x;
    x = (x + (x >> 8)) & 0x00FF00FF00FF00FFULL;
    if (width == 16) return x;
    x = (x + (x >> 16)) & 0x0000FFFF0000FFFFULL;
    if (width == 32) return x;
    return (x + (x >> 32)) & 0xFFFFFFFFULL;
}

#define LANE_LOOP(W, BODY) case W: for (size_t i = 0; i < n; i++) { uint64_t x = in[i]; BODY; } break;

void popcount_swar(const uint64_t *in, uint64_t *out, size_t n, int width) {
    switch (width) { /* one loop per width, so each is compiled with its levels fixed */
        LANE_LOOP(2, out[i] = swar_popcount(x, 2)) LANE_LOOP(4, out[i] = swar_popcount(x, 4))
        LANE_LOOP(8, out[i] = swar_popcount(x, 8)) LANE_LOOP(16, out[i] = swar_popcount(x, 16))
        LANE_LOOP(32, out[i] = swar_popcount(x, 32)) LANE_LOOP(64, out[i] = swar_popcount(x, 64))
    }
}

static inline uint64_t builtin_lanes(uint64_t x, int w) {
    if (w == 64) return (uint64_t)__builtin_popcountll(x);
    uint64_t mask = (1ULL << w) - 1, r = 0;
    for (int s = 0; s < 64; s += w) r |= (uint64_t)__builtin_popcountll((x >> s) & mask) << s;
    return r;
}

void popcount_builtin(const uint64_t *in, uint64_t *out, size_t n, int width) {
    switch (width) {
        LANE_LOOP(2, out[i] = builtin_lanes(x, 2)) LANE_LOOP(4, out[i] = builtin_lanes(x, 4))
        LANE_LOOP(8, out[i] = builtin_lanes(x, 8)) LANE_LOOP(16, out[i] = builtin_lanes(x, 16))
        LANE_LOOP(32, out[i] = builtin_lanes(x, 32)) LANE_LOOP(64, out[i] = builtin_lanes(x, 64))
    }
}

void popcount_naive(const uint64_t *in, uint64_t *out, size_t n, int width) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = 0;
        for (int b = 0; b < 64; b++) r += ((in[i] >> b) & 1) << (b / width * width);
        out[i] = r;
    }
}

/* ---- rank counts and greaterEqual<N> ----------------------------------------------------------------- */
void rank_counts_swar(const uint64_t *in, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = swar_popcount(in[i], 4);
}

void rank_counts_naive(const uint64_t *in, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = 0;
        for (int c = 0; c < 52; c++) r += ((in[i] >> c) & 1) << (c & ~3);
        out[i] = r;
    }
}

#define NIB 0x1111111111111111ULL
#define HIB (NIB << 3)

void greater_equal_swar(const uint64_t *in, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t v = in[i] | HIB; /* the talk: set each lane's top bit, subtract N, keep the top bits */
        out[4 * i] = (v - NIB) & HIB;
        out[4 * i + 1] = (v - 2 * NIB) & HIB;
        out[4 * i + 2] = (v - 3 * NIB) & HIB;
        out[4 * i + 3] = (v - 4 * NIB) & HIB;
    }
}

void greater_equal_naive(const uint64_t *in, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        for (int k = 1; k <= 4; k++) {
            uint64_t r = 0;
            for (int lane = 0; lane < 16; lane++)
                if (((in[i] >> (4 * lane)) & 15) >= (uint64_t)k) r |= 8ULL << (4 * lane);
            out[4 * i + k - 1] = r;
        }
}

/* ---- straights: bit j of the result when ranks j..j+4 are present (bit 0 = the ace playing low) ------- */
void straights_shift5(const uint32_t *in, uint32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t x = (in[i] << 1) | (in[i] >> 12);
        out[i] = x & (x >> 1) & (x >> 2) & (x >> 3) & (x >> 4);
    }
}

void straights_chain(const uint32_t *in, uint32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t x = (in[i] << 1) | (in[i] >> 12);
        uint32_t s = x & (x >> 1); /* runs of 2 */
        s &= s >> 2;               /* runs of 4 */
        out[i] = s & (x >> 4);     /* runs of 5 */
    }
}

void straights_naive(const uint32_t *in, uint32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t r = 0;
        for (int j = 0; j < 10; j++) {
            int all = 1;
            for (int k = j; k < j + 5; k++) {
                int rank = k == 0 ? 12 : k - 1;
                all &= (in[i] >> rank) & 1;
            }
            r |= (uint32_t)all << j;
        }
        out[i] = r;
    }
}

/* ---- every k-subset of n bits in increasing order -------------------------------------------------------- */
size_t subsets_gosper(int n, int k, uint64_t *out) {
    uint64_t x = (1ULL << k) - 1, stop = 1ULL << n;
    size_t m = 0;
    while (x < stop) {
        out[m++] = x;
        uint64_t c = x & -x, r = x + c; /* Gosper's hack: the next integer with as many set bits */
        x = (((r ^ x) >> 2) / c) | r;
    }
    return m;
}

size_t subsets_naive(int n, int k, uint64_t *out) {
    /* positions p[0] < .. < p[k-1]; advance the lowest position that can move up, reset those below it */
    int p[64];
    for (int i = 0; i < k; i++) p[i] = i;
    size_t m = 0;
    for (;;) {
        uint64_t v = 0;
        for (int i = 0; i < k; i++) v |= 1ULL << p[i];
        out[m++] = v;
        int i = 0;
        while (i < k && p[i] + 1 == (i + 1 < k ? p[i + 1] : n)) i++;
        if (i == k) return m;
        p[i]++;
        for (int j = 0; j < i; j++) p[j] = j;
    }
}

/* ---- deposit: the low bits of a value into the set bits of a mask -------------------------------------- */
void deposit_loop(const uint64_t *values, const uint64_t *masks, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t m = masks[i], v = values[i], r = 0;
        for (uint64_t bit = 1; m; bit <<= 1) { /* one step per set bit of the mask */
            uint64_t low = m & -m;
            if (v & bit) r |= low;
            m ^= low;
        }
        out[i] = r;
    }
}

#ifdef __BMI2__
void deposit_pdep(const uint64_t *values, const uint64_t *masks, uint64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = _pdep_u64(values[i], masks[i]);
}
#endif

/* ---- eight ASCII digits to their value --------------------------------------------------------------------- */
void atoi8_swar(const uint64_t *in, uint32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t x = in[i] - 0x3030303030303030ULL;       /* eight digit values, most significant first */
        x = (x * 10 + (x >> 8)) & 0x00FF00FF00FF00FFULL;   /* pairs: 10*a + b in every other byte */
        x = (x * 100 + (x >> 16)) & 0x0000FFFF0000FFFFULL; /* quads */
        out[i] = (uint32_t)((x * 10000 + (x >> 32)) & 0xFFFFFFFFULL);
    }
}

void atoi8_naive(const uint64_t *in, uint32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint32_t v = 0;
        for (int b = 0; b < 8; b++) v = v * 10 + (uint32_t)(((in[i] >> (8 * b)) & 0xFF) - '0');
        out[i] = v;
    }
}

/* ---- strlen ------------------------------------------------------------------------------------------- */
void strlen_swar(const uint8_t *buf, const int64_t *offsets, int64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = buf + offsets[i];
        for (size_t k = 0;; k += 8) {
            uint64_t w;
            memcpy(&w, p + k, 8);
            uint64_t z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL; /* a zero byte's top bit */
            if (z) { out[i] = (int64_t)(k + (__builtin_ctzll(z) >> 3)); break; }
        }
    }
}

void strlen_naive(const uint8_t *buf, const int64_t *offsets, int64_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const uint8_t *p = buf + offsets[i];
        int64_t k = 0;
        while (p[k]) k++;
        out[i] = k;
    }
}
