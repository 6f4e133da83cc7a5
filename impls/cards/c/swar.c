/* The post's third version in C: 15 nibble counts in one uint64, one hand per step (scalar, built with
 * -fno-tree-vectorize so the compiler does not turn it into the SIMD versions below). */
#include <stddef.h>
#include <stdint.h>

#define HIGH 0x8888888888888888ULL

void contains_batch(const uint64_t *a, const uint64_t *b, uint8_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++)
        out[j] = (((a[j] | HIGH) - b[j]) & HIGH) == HIGH;
}

void remove_batch(const uint64_t *a, const uint64_t *b, uint64_t *out, size_t n)
{
    for (size_t j = 0; j < n; j++)
        out[j] = a[j] - b[j];
}
