/* The post's first version in C: a for loop over 16 ints per hand (index 0 unused). */
#include <stddef.h>
#include <stdint.h>

void contains_batch(const int32_t *a, const int32_t *b, uint8_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        const int32_t *v = a + 16 * j, *o = b + 16 * j;
        uint8_t ok = 1;
        for (int i = 1; i < 16; i++) {
            if (v[i] < o[i]) {
                ok = 0;
                break;
            }
        }
        out[j] = ok;
    }
}

void remove_batch(const int32_t *a, const int32_t *b, int32_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++)
        for (int i = 0; i < 16; i++)
            out[16 * j + i] = a[16 * j + i] - b[16 * j + i];
}
