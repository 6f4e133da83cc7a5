/* The post's second version in C: the 15 comparisons written out, one hand at a time. */
#include <stddef.h>
#include <stdint.h>

void contains_batch(const int32_t *a, const int32_t *b, uint8_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        const int32_t *v = a + 16 * j, *o = b + 16 * j;
        out[j] = v[1] >= o[1] && v[2] >= o[2] && v[3] >= o[3] && v[4] >= o[4] && v[5] >= o[5] &&
                 v[6] >= o[6] && v[7] >= o[7] && v[8] >= o[8] && v[9] >= o[9] && v[10] >= o[10] &&
                 v[11] >= o[11] && v[12] >= o[12] && v[13] >= o[13] && v[14] >= o[14] && v[15] >= o[15];
    }
}

void remove_batch(const int32_t *a, const int32_t *b, int32_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        const int32_t *v = a + 16 * j, *o = b + 16 * j;
        int32_t *r = out + 16 * j;
        r[0] = 0;
        r[1] = v[1] - o[1];   r[2] = v[2] - o[2];   r[3] = v[3] - o[3];   r[4] = v[4] - o[4];
        r[5] = v[5] - o[5];   r[6] = v[6] - o[6];   r[7] = v[7] - o[7];   r[8] = v[8] - o[8];
        r[9] = v[9] - o[9];   r[10] = v[10] - o[10]; r[11] = v[11] - o[11]; r[12] = v[12] - o[12];
        r[13] = v[13] - o[13]; r[14] = v[14] - o[14]; r[15] = v[15] - o[15];
    }
}
