/* Entropy in exact arithmetic: a split is better than another when its S = sum of s ln s over its parts is lower
 * (the entropy is ln n - S / n), and equal S is a tie for the tie-break to decide. S orders splits as the integer
 * products of s^s do, so S(a) = S(b) exactly when the two products have the same prime exponents.
 *
 * entropy_order decides in three steps, each exact where it answers: the double sums of s * log(s) where they are
 * apart by more than their rounding can explain (ENTROPY_SLACK); else the prime exponents of the quotient of the two
 * products (none left: a tie); else the sign of the log of that quotient, from a double sum where it is clear, else
 * from the two integer products themselves (32-bit digits). */
#ifndef KNUTH_EXACT_H
#define KNUTH_EXACT_H
#include "knuth_game.h"

/* |D - S| <= ENTROPY_SLACK S for the double sum D of s * log(s), s < 2^26, over at most 44 parts: each term within a
 * few ulps (2^-50), the sum within 43 roundings (2^-47); the rest is room for a libm some ulps off. */
#ifndef ENTROPY_SLACK /* (a test build sets 1: every comparison through the exponents and the integers) */
#define ENTROPY_SLACK 0x1p-40
#endif

/* The double sum of s * log(s) over size[0..parts). */
MM_INLINE double entropy_sum(const int *size, int parts) {
    double d = 0;
    for (int p = 0; p < parts; p++) d += size[p] * log((double)size[p]);
    return d;
}

typedef struct { uint32_t p; int64_t e; } mm_power;

/* e[p] += sign * s * v_p(s) for every part s and prime p of s, in the list pw[0..*n) (one entry per prime). */
static void add_powers(const int *size, int parts, int sign, mm_power *pw, int *n) {
    for (int i = 0; i < parts; i++) {
        uint32_t rest = (uint32_t)size[i];
        for (uint32_t d = 2; rest > 1; d += d == 2 ? 1 : 2) {
            if ((uint64_t)d * d > rest) d = rest;  /* what is left is prime */
            while (rest % d == 0) {
                rest /= d;
                int j = 0;
                while (j < *n && pw[j].p != d) j++;
                if (j == *n) pw[(*n)++] = (mm_power){d, 0};
                pw[j].e += (int64_t)sign * size[i];
            }
        }
    }
}

/* digits[0..len) (32-bit, low first) times f < 2^32; returns the new length. */
static int mul_small(uint32_t *digits, int len, uint64_t f) {
    uint64_t carry = 0;
    for (int i = 0; i < len; i++) {
        const uint64_t v = digits[i] * f + carry;
        digits[i] = (uint32_t)v;
        carry = v >> 32;
    }
    while (carry) { digits[len++] = (uint32_t)carry; carry >>= 32; }
    return len;
}

/* The product of p^|e| over the entries whose e has this sign, into digits (room enough); its length. */
static int power_product(const mm_power *pw, int n, int sign, uint32_t *digits) {
    int len = 1;
    digits[0] = 1;
    for (int i = 0; i < n; i++) {
        if (pw[i].e * sign <= 0) continue;
        uint64_t chunk = 1;
        for (int64_t k = 0; k < pw[i].e * sign; k++) {
            if (chunk * pw[i].p >= (1ull << 32)) { len = mul_small(digits, len, chunk); chunk = 1; }
            chunk *= pw[i].p;
        }
        len = mul_small(digits, len, chunk);
    }
    return len;
}

/* The sign of sum e ln p over pw[0..n) (distinct primes), exactly; -2 when out of memory. */
static int sign_of_log_product(const mm_power *pw, int n) {
    double total = 0, scale = 0;
    size_t bits = 64;
    for (int i = 0; i < n; i++) {
        const double term = (double)pw[i].e * log((double)pw[i].p);
        total += term;
        scale += fabs(term);
        bits += (size_t)llabs(pw[i].e) * (32 - __builtin_clz(pw[i].p));
    }
    if (fabs(total) > scale * ENTROPY_SLACK) return total > 0 ? 1 : -1;
    uint32_t *high = malloc(sizeof(uint32_t) * (bits / 32 + 2)), *low = malloc(sizeof(uint32_t) * (bits / 32 + 2));
    int order = -2;
    if (high && low) {
        const int nh = power_product(pw, n, 1, high), nl = power_product(pw, n, -1, low);
        order = nh != nl ? (nh > nl ? 1 : -1) : 0;
        for (int i = nh - 1; i >= 0 && !order; i--)
            if (high[i] != low[i]) order = high[i] > low[i] ? 1 : -1;
    }
    free(high); free(low);
    return order;
}

/* -1, 0 or 1 as S(a) is below, equal to or above S(b), exactly; da, db: their entropy_sum; -2 when out of memory. */
static int entropy_order(const int *a, int na, double da, const int *b, int nb, double db) {
    if (fabs(da - db) > (da + db) * ENTROPY_SLACK) return da < db ? -1 : 1;
    mm_power pw[2 * 48 * 8];  /* a part below 2^26 has at most 8 primes */
    int n = 0, kept = 0;
    add_powers(a, na, 1, pw, &n);
    add_powers(b, nb, -1, pw, &n);
    for (int i = 0; i < n; i++)
        if (pw[i].e) pw[kept++] = pw[i];
    return kept ? sign_of_log_product(pw, kept) : 0;
}
#endif
