/* NVIDIA's special function unit's reciprocal and log2 (MUFU.RCP, MUFU.LG2), bit for bit, for cuda-fast-math: the
 * steps gpu_sfu.py describes, on the table rows it reads from data/gpu_sfu_tables.csv and passes in (reciprocal's 128
 * slices, then log2's 64, each value, slope, curvature). Inputs are positive normal floats. */
#ifndef GPU_SFU_H
#define GPU_SFU_H
#include <stdint.h>
#include <string.h>

#define SFU_LG2_AT 128 /* the first log2 row */

static uint32_t sfu_square17(uint32_t x) {
    uint32_t acc = 0;
    for (int i = 0; i < 17; i++)
        if (x >> i & 1) acc += x >> (18 - i);
    return acc >> 1;
}

static float sfu_float(uint32_t bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static float sfu_rcp(const int32_t (*row)[3], float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t f = bits & 0x7fffff, r = f & 0xffff;
    const int32_t *t = row[f >> 16];
    int biased = 253 - (int)(bits >> 23 & 0xff);
    int64_t top = (((int64_t)t[0] << 13) + (int64_t)t[1] * r + (int64_t)t[2] * sfu_square17(r << 1) + 0x47e7) >> 15;
    if (top == 1 << 24) { top = 1 << 23; biased++; }  /* a power of two */
    return sfu_float((uint32_t)biased << 23 | (uint32_t)(top - (1 << 23)));
}

static float sfu_lg2(const int32_t (*row)[3], float x) {
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    const uint32_t f = bits & 0x7fffff, r = f & 0x1ffff;
    const int e = (int)(bits >> 23 & 0xff) - 127;
    if (!f && !e) return 0.0f;
    const int32_t *t = row[SFU_LG2_AT + (f >> 17)];
    int64_t v = (((int64_t)t[0] << 12) + (int64_t)t[1] * r + ((int64_t)t[2] * sfu_square17(r) << 1) + 0x3345) >> 2;
    v += (int64_t)e * ((int64_t)1 << 36);
    uint32_t sign = 0;
    if (v < 0) { sign = 1u << 31; v = -v - 1; }  /* ones' complement */
    if (!v) return 0.0f;
    int shift = 0;
    while (v >> (24 + shift)) shift++;
    int lead = 23;  /* the top 24 bits, truncated, normalised */
    int64_t top = v >> shift;
    while (!(top >> lead & 1)) lead--;
    top <<= 23 - lead;
    const int biased = 127 + shift + lead - 36;  /* the value is top 2^(shift - 36 - 23 + lead) */
    return sfu_float(sign | (uint32_t)biased << 23 | (uint32_t)(top - (1 << 23)));
}
#endif
