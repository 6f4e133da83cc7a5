/* Every secret of a game played by one of four strategies, with the spec's tie-break: rank, then a guess that is
 * itself possible, then the lowest codeword; candidates are all codewords not yet played in the game.
 *
 * What every search shares: the game (its codewords, the scores that can occur, the guesses played so far). A
 * search header (knuth_plain.h, knuth_pruned.h) defines struct mm_ctx with MM_GAME_FIELDS first, its own
 * ctx_init/ctx_alloc/ctx_free/proto_free and choose(), and then includes knuth_drivers.h, which plays the games.
 *
 * A module is built for one number of pins, KNUTH_PINS, and plays only games of that many: the per-pin player is a
 * constant-folded copy of the search, and one copy compiles in a seventh of the time of seven. */
#ifndef KNUTH_GAME_H
#define KNUTH_GAME_H
#include "mm_score.h"
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef KNUTH_PINS
#error "build with -DKNUTH_PINS=<pins>: the player is compiled for one number of pins"
#endif

enum { KNUTH, MOST_PARTS, EXPECTED_SIZE, ENTROPY };
#define MAX_DEPTH 32

/* The fields of a game, first in every search's context (a thread's copy shares the pointers). */
#define MM_GAME_FIELDS                                                                                             \
    int pins, colors, n, strategy, arithmetic;                                                                     \
    const int32_t (*sfu)[3];        /* cuda-fast-math: the special function unit's table rows (gpu_sfu.h) */      \
    const uint32_t *codes;          /* n codewords, ascending */                                                   \
    const uint8_t *counts;          /* n x 16 color counts */                                                      \
    int path[MAX_DEPTH + 1], npath; /* per thread: the guesses played, in order */                                 \
    int valid[48], nvalid, win;     /* the score bytes that can occur, ascending */                                \
    uint8_t valid_at[256];          /* each score byte's index in valid[] */                                       \
    int64_t *status;                /* [0] games finished, [1] stop when non-zero */

typedef struct mm_ctx mm_ctx;

/* Defined in knuth_drivers.h, once mm_ctx is complete. */
static void game_init(mm_ctx *x, int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n,
                      int strategy, int arithmetic, const int32_t (*sfu)[3], int64_t *status);
MM_INLINE void play(mm_ctx *x, int g);
MM_INLINE void unplay(mm_ctx *x);
MM_INLINE int stopped(const mm_ctx *x);

MM_INLINE unsigned color_mask(uint32_t code, int pins) {
    unsigned m = 0;
    for (int k = 0; k < pins; k++) m |= 1u << ((code >> (4 * k)) & 15);
    return m;
}
#endif
