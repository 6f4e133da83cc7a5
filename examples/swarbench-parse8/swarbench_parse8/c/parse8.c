/* parse8.checked in C: eight ASCII bytes (one little-endian word) to their number, or -1.
 * parse8_swar follows Daniel Lemire's check and parse; parse8_naive is the byte loop it is measured against. */
#include <stddef.h>
#include <stdint.h>

static int32_t parse_one(uint64_t w) {
    uint64_t high = w & 0xF0F0F0F0F0F0F0F0ull;
    uint64_t checked = high | (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4);
    w = ((w & 0x0F0F0F0F0F0F0F0Full) * 2561) >> 8;
    w = ((w & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
    int32_t value = (int32_t)(((w & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32);
    /* parse whatever the bytes are, then choose: no branch to mispredict on a random mix of good and bad words */
    return checked == 0x3333333333333333ull ? value : -1;
}

void parse8_swar(const uint64_t *words, int32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++)
        out[i] = parse_one(words[i]);
}

void parse8_naive(const uint64_t *words, int32_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) {
        uint64_t w = words[i];
        int32_t value = 0;
        for (int k = 0; k < 8; k++) {
            unsigned c = (unsigned)(w >> (8 * k)) & 0xFF;
            if (c < '0' || c > '9') {
                value = -1;
                break;
            }
            value = value * 10 + (int32_t)(c - '0');
        }
        out[i] = value;
    }
}
