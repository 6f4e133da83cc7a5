/* The bandwidth probe (swarbench.explain.bandwidth): stream reads and writes over one buffer, 64 bytes a step
 * in the widest vectors the build's flags allow (GCC/Clang vector extensions: AVX-512, AVX2, SSE2 or NEON).
 * Four independent accumulators keep the reads from waiting on one another; the empty asm with a memory clobber
 * makes every repeat read (or write) the buffer again. */
#include <stddef.h>
#include <stdint.h>

typedef uint64_t v8 __attribute__((vector_size(64)));

uint64_t probe_read(const void *buffer, size_t bytes, size_t repeats)
{
    const v8 *p = (const v8 *)buffer;
    size_t n = bytes / 64 / 4 * 4;
    v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
    for (size_t r = 0; r < repeats; r++) {
        for (size_t i = 0; i < n; i += 4) {
            a0 ^= p[i];
            a1 ^= p[i + 1];
            a2 ^= p[i + 2];
            a3 ^= p[i + 3];
        }
        __asm__ volatile("" : : : "memory");
    }
    v8 a = a0 ^ a1 ^ a2 ^ a3;
    return a[0] ^ a[1] ^ a[2] ^ a[3] ^ a[4] ^ a[5] ^ a[6] ^ a[7];
}

void probe_write(void *buffer, size_t bytes, size_t repeats)
{
    v8 *p = (v8 *)buffer;
    size_t n = bytes / 64;
    for (size_t r = 0; r < repeats; r++) {
        v8 v = {r, r + 1, r + 2, r + 3, r + 4, r + 5, r + 6, r + 7};
        for (size_t i = 0; i < n; i++)
            p[i] = v;
        __asm__ volatile("" : : : "memory");
    }
}
