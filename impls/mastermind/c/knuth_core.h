/* Every secret of a game played by one of four strategies, with the spec's exact tie-break: rank, then a guess
 * that is itself possible, then the lowest codeword; candidates are all codewords not yet played in the game.
 * The rank comes from the sizes of the parts the candidate splits the possible secrets into, by score:
 *   Knuth: |possible| minus the largest part; Most Parts: the number of parts;
 *   Expected Size: -round(1e6 * sum of s*s/n) and Entropy: round(1e9 * sum of -p ln p), each summed as the
 *   mikemag/Mastermind project sums it (a float, the parts in ascending score order; see spec.py).
 *
 * The including file picks the scoring: either PAIR_SCORE(x, guess_index, secret_index) (the article's scalar
 * variations, every score computed, as the article did) or ROW_BATCH (byte-sliced rows of possible secrets
 * scored 64 or 32 at a time). PRUNE adds exact shortcuts, each skipping only guesses that a lower codeword
 * matches or beats: a Knuth candidate stops as soon as its largest part shows it cannot win; only the lowest
 * codeword of each class of interchangeable colors is tried (Ville's free colors, and colors no possible secret
 * holds), and of each orbit of Ville's symmetric codewords (pin and color permutations fixing the guesses
 * played); a guess scoring every possible secret as an earlier one does (same signature; a search of 64 secrets
 * or fewer scores it instead, see rows_first) is skipped, and so is one that two of its pins' colors, swapped,
 * make lower with the same scores (swap_lower), and one whose colors alone show it cannot win (split_bound: the
 * pegs in all depend on the colors only), or, in a search of 32 secrets or fewer, the pairs of secrets it leaves
 * in one part (pair_floor; Expected Size and Entropy; the generator scores these itself), and, in a search of 64
 * or fewer, one whose last pin adds the same scores as a lower color's (class_rows); the possible secrets go
 * first, so the search ends when one of them reaches the best key any guess could, and the scan of the other
 * codewords ends at the first to reach the best key a guess that is not possible could.
 *
 * A module is built for one number of pins, KNUTH_PINS, and plays only games of that many: the per-pin player
 * is a constant-folded copy of the search, and one copy compiles in a seventh of the time of seven.
 *
 * Two drivers: knuth_each plays each game on its own; knuth_shared walks the tree of score histories once, so
 * games sharing a history share one search. Both spread their work over `threads` threads, count finished games
 * in status[0] and stop soon after status[1] is set (returning 1), so a caller can show progress and honour
 * Ctrl-C while the call runs. */
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
#define SMALL_SECRETS 32 /* searches of this many secrets or fewer count their split's pairs first (pair_floor) */
#define PAIRS (SMALL_SECRETS * (SMALL_SECRETS - 1) / 2)
#define TIE_SECRETS 16 /* searches of this many secrets or fewer know the best rank of every measure (see tie_lost) */


typedef struct {
    int pins, colors, n, strategy;
    const uint32_t *codes;         /* n codewords, ascending */
    const uint8_t *counts;         /* n x 16 color counts */
    uint8_t *played, *inposs;      /* n flags each, one pair per thread (played only without PRUNE) */
    int *cands;                    /* per thread: n slots for the candidates of one search */
    uint64_t *sigs;                /* per thread: their signatures (see class_lowest_codes) */
    uint64_t *seen;                /* per thread: the guess signatures of one search, tagged (see seen_before) */
    uint32_t search;               /* the current search's tag, 1..0xFFFF */
    uint64_t *prefixes;            /* per thread: the signatures of the first pins met in one search, tagged */
    uint32_t prefix_search;        /* their search's tag, 1..0x1FFF */
    int path[MAX_DEPTH + 1], npath; /* per thread: the guesses played, in order (their flags are in played) */
    int valid[48], nvalid, win;    /* the score bytes that can occur, ascending */
    uint8_t valid_at[256];         /* each score byte's index in valid[] */
    uint64_t with_pegs[9];         /* per number of pegs in all, its scores (bits by valid[] index) */
    int big_first[48];             /* valid[]'s indices 1.. in the order a split's parts are counted (ctx_init) */
    uint64_t *pin_rows;            /* shared: per codeword, its pins' rows of the pin table, a byte each (ctx_init) */
    uint8_t *rows;                 /* per thread: one search's score of each pin choice (see fill_rows) */
    uint32_t *color_set;           /* shared: per codeword, the index of its multiset of colors (ctx_init) */
    int *set_code;                 /* shared: per multiset of colors, a codeword holding it */
    uint8_t *set_dead;             /* per thread: per multiset, whether pass 1's guesses with it cannot win */
    uint32_t *sub_next;            /* shared: per multiset of fewer than `pins` colors and per color, the multiset
                                    * with that color added (its number among the smaller ones, or its set) */
    uint16_t *sub_live;            /* per thread: per multiset of fewer than `pins` colors, the colors (bits) whose
                                    * addition leaves it in some multiset of `pins` colors that is not dead */
    int64_t *set_bound;            /* per thread: one search's bound per multiset of colors (see split_bound) */
    uint64_t *set_held;            /* per thread: with it, the scores (bits by valid[] index) some secret can get */
    uint32_t *set_tag, set_search; /* per thread: the search each bound was worked out in */
    uint32_t *held_tag;            /* per thread: per multiset, the search whose possible secrets have it */
    int *held_at, *held_by, *held_count, nheld; /* per thread: the possible secrets' multisets, one secret each */
    int64_t *status;               /* [0] games finished, [1] stop when non-zero */
    /* shared, Expected Size and Entropy: per number of secrets n <= SMALL_SECRETS and of pairs of them in one
     * part, the least measure of a split of n secrets with that many such pairs (see least_measures) */
    int64_t *pair_floor;
    int64_t *forced_floor;         /* the same for splits with that many pairs or more (see pairs_of) */
    /* shared, Expected Size and Entropy: per n <= TIE_SECRETS, the measures a split of n secrets can have,
     * ascending, from tie_at[n] to tie_at[n + 1], each with the best rank of a split with that measure or more */
    int64_t *tie_measure, *tie_rank;
    int tie_at[TIE_SECRETS + 2];
} mm_ctx;

#ifndef FILTER_SCORE
#define FILTER_SCORE PAIR_SCORE
#endif
#define SEEN_SLOTS (1 << 16)
#define AHEAD 16
#define ROW_BYTES 64 /* a row of the pin table: up to 64 secrets */
#define PREFIX_SLOTS (1 << 14)
#define CHUNK 4096 /* candidates made at a time (see mm_codes) */
#define RUN_SECRETS 64 /* searches of more possible secrets make no runs (see forced_loses): one bit each */
#define ADAPT 256 /* guesses scored between two sorts of a search's count order (see count_order) */
#define BLOCK_MOST 1024 /* secrets scored and counted between two tests of a split of more than 64 (choose_p) */
_Static_assert(BLOCK_MOST / 32 < 256, "a block's counts are summed in bytes first (mmv_count_eq4_n)");
#define KNUTH_FIRST 6 /* the scores a Knuth split of more than 64 secrets counts in its first scan */

#ifdef PRUNE
/* The binomial C(a, b) for a <= 22 (15 colors and 8 pins at most). */
static size_t choose_of(int a, int b) {
    if (b < 0 || b > a) return 0;
    size_t r = 1;
    for (int i = 1; i <= b; i++) r = r * (a - b + i) / i;
    return r;
}

/* How many multisets of `pins` colors there are: C(colors + pins - 1, pins). */
static size_t color_sets(int pins, int colors) { return choose_of(colors + pins - 1, pins); }
#endif

/* One thread's own buffers (a copied context gets new ones). */
static int ctx_alloc(mm_ctx *x) {
    int played_ok = 1;
#ifdef PRUNE  /* the cut builds never test a guess for having been played (see choose_p) */
    x->played = NULL;
#else
    played_ok = (x->played = calloc(x->n, 1)) != NULL;
#endif
    x->inposs = calloc(x->n, 1);
    x->seen = calloc(SEEN_SLOTS, sizeof(uint64_t));
    x->prefixes = calloc(PREFIX_SLOTS, sizeof(uint64_t));
    x->prefix_search = 0;
    x->cands = malloc(sizeof(int) * x->n);
    x->sigs = malloc(sizeof(uint64_t) * x->n);
    x->search = 0;
    x->npath = 0;
    x->rows = aligned_alloc(64, ROW_BYTES * 128 * KNUTH_PINS);
    int sets_ok = 1;
#ifdef PRUNE  /* the multiset bound's buffers (see split_bound); builds without PRUNE never use them */
    const size_t sets = color_sets(x->pins, x->colors);
    x->set_bound = malloc(sizeof(int64_t) * sets);
    x->set_held = malloc(sizeof(uint64_t) * sets);
    x->set_tag = calloc(sets, sizeof(uint32_t));
    x->set_search = 0;
    x->held_tag = calloc(sets, sizeof(uint32_t));
    x->held_at = malloc(sizeof(int) * sets);
    x->held_by = malloc(sizeof(int) * sets);
    x->held_count = malloc(sizeof(int) * sets);
    x->set_dead = malloc(sets);
    x->sub_live = malloc(sizeof(uint16_t) * color_sets(x->pins - 1, x->colors + 1));
    sets_ok = x->set_bound && x->set_held && x->set_tag && x->held_tag && x->held_at && x->held_by && x->held_count
              && x->set_dead && x->sub_live;
#else
    x->set_bound = NULL; x->set_held = NULL; x->set_tag = x->held_tag = NULL;
    x->held_at = x->held_by = x->held_count = NULL; x->set_dead = NULL; x->sub_live = NULL;
#endif
    return played_ok && x->inposs && x->seen && x->prefixes && x->cands && x->sigs && x->rows && sets_ok ? 0 : -1;
}

#ifdef PRUNE
/* The rank of the multiset of the colors c[0..j) (ascending) among those of j colors, in the combinatorial number
 * system: c_1 <= ... <= c_j made strictly increasing as c_i + i - 2, the rank is the sum of C(c_i + i - 2, i). */
static size_t multiset_rank(const int *c, int j) {
    size_t index = 0;
    for (int i = 1; i <= j; i++) index += choose_of(c[i - 1] + i - 2, i);
    return index;
}

/* sub_next for the multisets of 0..pins - 1 colors, numbered by size, then rank: those of j colors start at
 * color_sets(j - 1, colors + 1), the number of smaller ones. A multiset of pins - 1 colors and one more color
 * give the rank of a codeword's multiset (color_set). */
static int plan_sub_sets(mm_ctx *x) {
    const int pins = x->pins, colors = x->colors;
    if (!(x->sub_next = malloc(sizeof(uint32_t) * 16 * color_sets(pins - 1, colors + 1)))) return -1;
    for (int j = 0; j < pins; j++) {
        int c[8];
        for (int i = 0; i < j; i++) c[i] = 1;
        for (;;) {  /* every ascending c[0..j), in turn */
            const size_t at = (j ? color_sets(j - 1, colors + 1) : 0) + multiset_rank(c, j);
            const size_t next_base = j + 1 < pins ? color_sets(j, colors + 1) : 0;
            for (int add = 1; add <= colors; add++) {
                int d[8], m = 0;
                for (int i = 0; i < j && c[i] <= add; i++) d[m++] = c[i];
                d[m++] = add;
                for (int i = m - 1; i < j; i++) d[m++] = c[i];
                x->sub_next[16 * at + add] = (uint32_t)(next_base + multiset_rank(d, j + 1));
            }
            int i = j - 1;
            while (i >= 0 && c[i] == colors) i--;
            if (i < 0) break;
            c[i]++;
            for (int k = i + 1; k < j; k++) c[k] = c[i];
        }
    }
    return 0;
}
#endif

#ifdef PRUNE
static int least_measures(mm_ctx *x);
#endif

static int ctx_init(mm_ctx *x, int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n,
                    int strategy, int64_t *status) {
    x->pins = pins; x->colors = colors; x->codes = codes; x->counts = counts; x->n = n;
    x->color_set = NULL; x->set_code = NULL; x->sub_next = NULL; x->pair_floor = NULL;
    x->forced_floor = NULL; x->tie_measure = NULL; x->tie_rank = NULL;
    x->strategy = strategy; x->status = status;
    x->nvalid = 0;
    memset(x->with_pegs, 0, sizeof x->with_pegs);
    for (int b = 0; b <= pins; b++)
        for (int w = 0; b + w <= pins; w++)
            if (!(b == pins - 1 && w == 1)) {
                x->valid_at[(b << 4) | w] = (uint8_t)x->nvalid;
                x->with_pegs[b + w] |= 1ull << x->nvalid;
                x->valid[x->nvalid++] = (b << 4) | w;
            }
    x->win = pins << 4;
    /* The nonzero scores, those of about half the pins in pegs first: most of a split's secrets are there, so a
     * split that cannot win shows it sooner (any order gives the same counts). */
    for (int d = 0, m = 0; d <= pins; d++)  /* d: how far the pegs are from half the pins, doubled */
        for (int v = 1; v < x->nvalid; v++) {
            const int pegs = (x->valid[v] >> 4) + (x->valid[v] & 15);
            if ((2 * pegs > pins ? 2 * pegs - pins : pins - 2 * pegs) == d) x->big_first[++m] = v;
        }
    x->pin_rows = NULL;
    if (ctx_alloc(x)) return -1;
    /* Which row of a search's table each pin of a codeword adds: its color, and how often it came before. */
    if (!(x->pin_rows = malloc(sizeof(uint64_t) * n))) return -1;
    for (int i = 0; i < n; i++) {
        uint64_t held = 0, sel = 0;  /* held: a nibble per color */
        for (int k = 0; k < pins; k++) {
            int c = (codes[i] >> (4 * (pins - 1 - k))) & 15;
            sel |= (8 * c + ((held >> (4 * c)) & 15)) << (8 * k);
            held += 1ull << (4 * c);
        }
        x->pin_rows[i] = sel;
    }
    /* A codeword's multiset of colors, ranked (multiset_rank) from its colors in ascending order. */
#ifdef PRUNE
    if (!(x->color_set = malloc(sizeof(uint32_t) * n))) return -1;
    if (!(x->set_code = malloc(sizeof(int) * color_sets(pins, colors)))) return -1;
    for (int i = n - 1; i >= 0; i--) {
        int ascending[8], j = 0;
        for (int c = 1; c <= colors; c++)
            for (int k = 0; k < counts[16 * i + c]; k++) ascending[j++] = c;
        const size_t index = multiset_rank(ascending, j);
        x->color_set[i] = (uint32_t)index;
        x->set_code[index] = i;
    }
    if (plan_sub_sets(x) || least_measures(x)) return -1;
#endif
    return 0;
}

static void ctx_free(mm_ctx *x) {
    free(x->played); free(x->inposs); free(x->seen); free(x->cands); free(x->sigs); free(x->prefixes); free(x->rows);
    free(x->set_bound); free(x->set_held); free(x->set_tag); free(x->held_tag); free(x->held_at); free(x->held_by);
    free(x->held_count); free(x->set_dead); free(x->sub_live);
}

/* The prototype context also holds what its copies share. */
static void proto_free(mm_ctx *x) {
    ctx_free(x); free(x->pin_rows); free(x->color_set); free(x->set_code); free(x->sub_next); free(x->pair_floor);
    free(x->forced_floor); free(x->tie_measure); free(x->tie_rank);
}

/* Guesses are played and taken back last first: the path says in what order (the symmetries of a node need the
 * guesses themselves), and builds without PRUNE keep a flag per codeword as well. */
MM_INLINE void play(mm_ctx *x, int g) {
#ifndef PRUNE
    x->played[g] = 1;
#endif
    x->path[x->npath++] = g;
}
MM_INLINE void unplay(mm_ctx *x) {
#ifndef PRUNE
    x->played[x->path[x->npath - 1]] = 0;
#endif
    x->npath--;
}

MM_INLINE int stopped(const mm_ctx *x) { return __atomic_load_n(&x->status[1], __ATOMIC_RELAXED) != 0; }

/* The term a part of size s adds (s = 0..np): float s*s/n (Expected Size), double p ln p of the float p = s/n
 * (Entropy, subtracted), as the project's float accumulator and its unqualified log of a float compute them. */
static void *make_terms(int strategy, int np) {
    if (strategy == EXPECTED_SIZE) {
        float *t = malloc(sizeof(float) * (np + 1));
        if (t) for (int s = 0; s <= np; s++) t[s] = ((float)s * (float)s) / (float)np;
        return t;
    }
    if (strategy == ENTROPY) {
        double *t = malloc(sizeof(double) * (np + 1));
        if (t) {
            t[0] = 0;
            for (int s = 1; s <= np; s++) { float p = (float)s / (float)np; t[s] = (double)p * log((double)p); }
        }
        return t;
    }
    return NULL;
}

/* A split's rank from the sizes of the parts that occur, in ascending score order, and the largest: Expected Size
 * and Entropy summed as the mikemag/Mastermind project sums them (a float, in that order; see spec.py). */
MM_INLINE int64_t rank_of_parts(const mm_ctx *x, const int *size, int parts, int largest, int np,
                                const void *terms) {
    float sum = 0;
    switch (x->strategy) {
    case KNUTH:
        return np - largest;
    case MOST_PARTS:
        return parts;
    case EXPECTED_SIZE:
        for (int p = 0; p < parts; p++) sum += ((const float *)terms)[size[p]];
        return -(int64_t)floor((double)sum * 1e6 + 0.5);
    default:
        for (int p = 0; p < parts; p++) sum = (float)((double)sum - ((const double *)terms)[size[p]]);
        return (int64_t)floor((double)sum * 1e9 + 0.5);
    }
}

/* The sizes of the parts that occur, in score order, without a branch on whether a part is empty; returns how
 * many. Where measure is given, *q is the sum of its terms over them (see make_measure). */
MM_INLINE int parts_of(const mm_ctx *x, const int *cnt, int *size, int *largest, const int64_t *measure,
                       int64_t *q) {
    int parts = 0;
    *largest = 0;
    for (int v = 0; v < x->nvalid; v++) {
        int c = cnt[x->valid[v]];
        *largest = c > *largest ? c : *largest;
        size[parts] = c;
        parts += c > 0;
        if (measure) *q += measure[c];
    }
    return parts;
}

MM_INLINE int64_t rank_of(const mm_ctx *x, const int *cnt, int np, const void *terms) {
    int size[48], largest, parts = parts_of(x, cnt, size, &largest, NULL, NULL);
    return rank_of_parts(x, size, parts, largest, np, terms);
}

#ifdef PRUNE
/* Expected Size and Entropy: an integer per part size whose sum over a split (its measure) orders splits as their
 * float keys do wherever two splits are far apart (see worse_from): s*s - s, and s ln s in units of 2^-20. Both
 * are 0 for a part of one, so the measure so far of a split still being counted is a bound that shows a loser
 * early. (With s*s, each secret not yet counted would add at least 1 more, and the bound would reach a loser's
 * measure only near the end of its count.) The parts' sizes sum to np, so s*s - s orders splits as s*s does. */
static int64_t *make_measure(int strategy, int np) {
    if (strategy < EXPECTED_SIZE) return NULL;
    int64_t *m = malloc(sizeof(int64_t) * (np + 1));
    if (!m) return NULL;
    m[0] = 0;
    if (strategy == EXPECTED_SIZE)  /* each from the one before: s*s - s = (s-1)^2 - (s-1) + 2(s-1) */
        for (int s = 1; s <= np; s++) m[s] = m[s - 1] + 2 * (s - 1);
    else
        for (int s = 1; s <= np; s++) m[s] = llround(s * log(s) * 1048576.0);
    return m;
}

/* For every n <= TIE_SECRETS, every measure a split of n secrets can have and the best rank of a split with that
 * measure or more (tie_measure, tie_rank; see tie_lost): every order of parts summing to n (every composition of
 * n), ranked as rank_of_parts ranks it. worse_from's q_lost leaves room for the float sums' rounding, so a split
 * with the best's measure was scored in full, and the colors' bound (split_bound) dropped none that only tie it;
 * these show at once when no split with that measure can rank higher. */
static int tie_ranks(mm_ctx *x) {
    int total = 0;
    for (int n = 1; n <= TIE_SECRETS; n++) total += 1 << (n - 1);
    int64_t *meas = malloc(sizeof(int64_t) * total), *rank = malloc(sizeof(int64_t) * total);
    x->tie_measure = meas; x->tie_rank = rank;
    if (!meas || !rank) return -1;
    x->tie_at[0] = x->tie_at[1] = 0;
    for (int n = 1; n <= TIE_SECRETS; n++) {
        void *terms = make_terms(x->strategy, n);
        int64_t *m = make_measure(x->strategy, n);
        if (!terms || !m) { free(terms); free(m); return -1; }
        const int from = x->tie_at[n];
        int count = from;
        for (uint32_t cuts = 0; cuts < 1u << (n - 1); cuts++) {  /* a part ends after secret i where bit i is set */
            int size[TIE_SECRETS], parts = 0, s = 1;
            int64_t q = 0;
            for (int i = 0; i < n - 1; i++, s++)
                if (cuts >> i & 1) { q += m[s]; size[parts++] = s; s = 0; }
            q += m[s];
            size[parts++] = s;
            const int64_t r = rank_of_parts(x, size, parts, 0, n, terms);
            int at = from;
            while (at < count && meas[at] != q) at++;
            if (at == count) { meas[count] = q; rank[count++] = r; }
            else if (r > rank[at]) rank[at] = r;
        }
        free(terms); free(m);
        for (int i = from + 1; i < count; i++)  /* ascending by measure (an insertion sort: a few hundred) */
            for (int j = i; j > from && meas[j - 1] > meas[j]; j--) {
                const int64_t tq = meas[j], tr = rank[j];
                meas[j] = meas[j - 1]; rank[j] = rank[j - 1]; meas[j - 1] = tq; rank[j - 1] = tr;
            }
        for (int i = count - 2; i >= from; i--) rank[i] = rank[i] > rank[i + 1] ? rank[i] : rank[i + 1];
        x->tie_at[n + 1] = count;
    }
    return 0;
}

/* For every n <= SMALL_SECRETS and every number of pairs of secrets sharing a part, the least measure of a split
 * of n secrets with that many pairs (a part of s secrets holds s(s-1)/2 of them), as pair_floor: a bound on a split
 * from its pairs alone. For Expected Size it is twice the pairs; a number of pairs no split has gets 0. And the
 * least measure of a split with that many pairs or more, as forced_floor (INT64_MAX where none has). */
static int least_measures(mm_ctx *x) {
    enum { N = SMALL_SECRETS };
    if (x->strategy < EXPECTED_SIZE) return 0;
    int64_t *m = make_measure(x->strategy, N);
    int64_t (*least)[PAIRS + 1] = malloc(sizeof(int64_t) * (N + 1) * (PAIRS + 1));  /* n secrets, parts of 2+ */
    x->pair_floor = malloc(sizeof(int64_t) * (N + 1) * (PAIRS + 1));
    x->forced_floor = malloc(sizeof(int64_t) * (N + 1) * (PAIRS + 1));
    if (!m || !least || !x->pair_floor || !x->forced_floor) { free(m); free(least); return -1; }
    for (int n = 0; n <= N; n++)
        for (int p = 0; p <= PAIRS; p++) least[n][p] = n == 0 && p == 0 ? 0 : INT64_MAX;
    for (int n = 2; n <= N; n++)
        for (int p = 0; p <= PAIRS; p++)
            for (int part = 2, in = 1; part <= n && in <= p; in += part, part++)  /* in: the part's pairs */
                if (least[n - part][p - in] != INT64_MAX && least[n - part][p - in] + m[part] < least[n][p])
                    least[n][p] = least[n - part][p - in] + m[part];
    for (int p = 0; p <= PAIRS; p++) {
        int64_t low = INT64_MAX;
        for (int n = 0; n <= N; n++) {  /* the other secrets are parts of one, measure 0 */
            low = least[n][p] < low ? least[n][p] : low;
            x->pair_floor[n * (PAIRS + 1) + p] = low == INT64_MAX ? 0 : low;
            least[n][p] = low;  /* now over every split of n secrets with p pairs */
        }
    }
    for (int n = 0; n <= N; n++) {
        int64_t *at_least = x->forced_floor + n * (PAIRS + 1);
        for (int p = PAIRS; p >= 0; p--)
            at_least[p] = p < PAIRS && at_least[p + 1] < least[n][p] ? at_least[p + 1] : least[n][p];
    }
    free(m); free(least);
    return tie_ranks(x);
}

/* The q_lost a best key gives a search of np <= TIE_SECRETS secrets where that is lower than worse_from's: the
 * least measure from which on no split ranks above the best (equal ranks go to the guess met first, a possible
 * one or a lower codeword), or INT64_MAX. */
MM_INLINE int64_t tie_lost(const mm_ctx *x, int np, int64_t best_key) {
    for (int i = x->tie_at[np]; i < x->tie_at[np + 1]; i++)
        if (2 * x->tie_rank[i] <= best_key) return x->tie_measure[i];
    return INT64_MAX;
}

/* The least measure q of a split that ranks below the best so far (measure best_q) whatever the float sums'
 * rounding, or INT64_MAX: from there on a split's float key cannot win and is not computed, and since a split's
 * measure only grows as its parts are counted, the count stops there. A split has k <= 44 parts; u = 2^-24 (float
 * rounding).
 * Expected Size: the key is -round(1e6 F), F the float sum of the terms s*s/np, each rounded twice; with Q = q + np
 * the sum of s*s, by the bound for recursive summation |F - Q/np| <= 45u/(1 - 45u) Q/np < 2^-17 Q/np. So when
 * (Q - B) 2^17 > Q + B + np (B = best_q + np), F - F_best > (Q - B)/np - 2^-17 (Q + B)/np > 2^-17 > 7e-6: its key
 * is at least 7 below the best's (the double product's rounding is below 1e-3 for np < 2^20).
 * Entropy: the key is round(1e9 H), H the float sum of -p ln p over float p = s/np. Each partial sum is rounded
 * once (it is at most ln k) and each p once, so |H - exact entropy| <= u (k ln k + ln k + 1)(1 + 2^-20) < 1.1e-5;
 * the exact entropy is ln np - S/np with S = sum s ln s, and q is S in units of 2^-20 to within 0.63 a part (28
 * a split). When q - best_q > 64 + 64 np, S - S_best > 64 np 2^-20, so the exact entropy is more than 6.1e-5
 * lower, H more than 3.9e-5 lower and the key lower by thousands. */
MM_INLINE int64_t worse_from(int strategy, int64_t best_q, int np) {
    if (best_q == INT64_MAX || np >= (1 << 20)) return INT64_MAX;
    /* (Q - B) 2^17 > Q + B + np, that is Q (2^17 - 1) > B (2^17 + 1) + np */
    if (strategy == EXPECTED_SIZE) return ((best_q + np) * ((1 << 17) + 1) + np) / ((1 << 17) - 1) + 1 - np;
    return best_q + 65 + 64 * (int64_t)np;  /* q - best_q > 64 + 64 np */
}

/* The multisets of colors of the possible secrets, with one secret and the number of secrets holding each: a
 * large search has far fewer of them than secrets. */
static void hold_sets(mm_ctx *x, const int *poss, int np) {
    x->nheld = 0;
    for (int i = 0; i < np; i++) {
        const uint32_t set = x->color_set[poss[i]];
        if (x->held_tag[set] != x->set_search) {
            x->held_tag[set] = x->set_search;
            x->held_at[set] = x->nheld;
            x->held_by[x->nheld] = poss[i];
            x->held_count[x->nheld++] = 0;
        }
        x->held_count[x->held_at[set]]++;
    }
}

/* A bound on the split of every guess with the colors of guess g, whatever their order: the pegs in all (black
 * plus white) depend on the colors alone, and the secrets with t pegs fall into at most scores[t] parts, the
 * scores with t pegs. Knuth: the largest part is at least the most even share of the largest such group; Most
 * Parts: at most min(n_t, scores[t]) parts for each t; Expected Size and Entropy: the measure is at least that of
 * every group split evenly (both terms are convex), less, for Entropy, 64 for the rounding of the table's terms
 * (half a unit per part, under 45 parts, on either side). */
static int64_t split_bound(const mm_ctx *x, int g, const int64_t *measure, const int *scores, uint64_t *held) {
    int with[9] = {0};
    const uint8_t *gc = x->counts + 16 * g;
#ifdef __SSE2__
    const __m128i guess = _mm_loadu_si128((const __m128i *)gc);
#endif
    for (int h = 0; h < x->nheld; h++) {  /* the possible secrets, a multiset at a time (see hold_sets) */
        const uint8_t *sc = x->counts + 16 * x->held_by[h];
#ifdef __SSE2__  /* the 16 count bytes at once (unused colors count 0 in both) */
        const __m128i sum = _mm_sad_epu8(_mm_min_epu8(guess, _mm_loadu_si128((const __m128i *)sc)),
                                         _mm_setzero_si128());
        const int t = _mm_cvtsi128_si32(sum) + _mm_extract_epi16(sum, 4);
#else
        int t = 0;
        for (int c = 1; c <= x->colors; c++) t += gc[c] < sc[c] ? gc[c] : sc[c];
#endif
        with[t] += x->held_count[h];
    }
    *held = 0;
    for (int t = 0; t <= x->pins; t++) *held |= with[t] ? x->with_pegs[t] : 0;
    int64_t bound = 0;
    for (int t = 0; t <= x->pins; t++) {
        const int n = with[t], k = scores[t];
        if (!n) continue;
        if (x->strategy == KNUTH) bound = (n + k - 1) / k > bound ? (n + k - 1) / k : bound;
        else if (x->strategy == MOST_PARTS) bound += n < k ? n : k;
        else bound += (n % k ? (n % k) * measure[n / k + 1] : 0) + (k - n % k) * measure[n / k];
    }
    return x->strategy == ENTROPY ? bound - 64 : bound;
}

/* The test a search applies before scoring a guess: whether its colors alone show that it cannot beat the best
 * key so far (best_key; q_lost for Expected Size and Entropy, see worse_from). */
typedef struct { int64_t best_key, q_lost; int np; const int64_t *measure; const int *scores; } mm_hope;

/* Whether a guess whose split is bounded by bound (as split_bound bounds it) cannot beat the best. */
MM_INLINE int bound_loses(const mm_ctx *x, int64_t bound, int is_poss, const mm_hope *h) {
    if (x->strategy == KNUTH) return h->best_key >= 0 && bound > h->np - (h->best_key - is_poss + 2) / 2;
    if (x->strategy == MOST_PARTS) return 2 * bound + is_poss <= h->best_key;
    return bound >= h->q_lost;
}

MM_INLINE int hopeless_set(mm_ctx *x, uint32_t set, int is_poss, const mm_hope *h) {
    if (x->set_tag[set] != x->set_search) {
        x->set_tag[set] = x->set_search;
        x->set_bound[set] = split_bound(x, x->set_code[set], h->measure, h->scores, x->set_held + set);
    }
    return bound_loses(x, x->set_bound[set], is_poss, h);
}

/* The scores (bits by valid[] index) some possible secret can get from a guess with this multiset of colors. */
MM_INLINE uint64_t held_scores(mm_ctx *x, uint32_t set, const mm_hope *h) {
    (void)hopeless_set(x, set, 0, h);  /* works out the set's bound, and with it this, once a search */
    return x->set_held[set];
}

MM_INLINE int hopeless(mm_ctx *x, int g, int is_poss, const mm_hope *h) {
    return hopeless_set(x, x->color_set[g], is_poss, h);
}

/* Pass 1's generator drops a guess whose colors are dead: one flag per multiset, marked for pass 0's best and
 * again before each chunk of candidates once the best has improved. */
static void mark_dead_sets(mm_ctx *x, const mm_hope *h) {
    const uint32_t sets = (uint32_t)color_sets(x->pins, x->colors);
    for (uint32_t set = 0; set < sets; set++) x->set_dead[set] = (uint8_t)hopeless_set(x, set, 0, h);
    /* then which colors lead each smaller multiset to a live one above it, from the largest down */
    for (int j = x->pins - 1; j >= 0; j--) {
        const size_t from = j ? color_sets(j - 1, x->colors + 1) : 0, to = color_sets(j, x->colors + 1);
        for (size_t at = from; at < to; at++) {
            uint16_t live = 0;
            for (int c = 1; c <= x->colors; c++) {
                const uint32_t next = x->sub_next[16 * at + c];
                live |= (j + 1 == x->pins ? !x->set_dead[next] : x->sub_live[next] != 0) << c;
            }
            x->sub_live[at] = live;
        }
    }
}

#endif

/* The best key a guess can reach, or INT64_MAX where it is not known: every part as small as the scores
 * allow. A possible guess has every score; one that is not possible lacks the win, so it has one score fewer.
 * For Expected Size and Entropy only the all-singletons split is known best (its float sum is the same in any
 * order; any other split is worse by far more than the rounding). */
static int64_t best_reachable(const mm_ctx *x, int np, const void *terms, int possible) {
    const int scores = x->nvalid - !possible;
    if (x->strategy == KNUTH) return 2 * (int64_t)(np - (np + scores - 1) / scores) + possible;
    if (x->strategy == MOST_PARTS) return 2 * (int64_t)(np < scores ? np : scores) + possible;
    if (np > scores) return INT64_MAX;
    int cnt[129] = {0};
    for (int v = 0; v < np; v++) cnt[x->valid[v]] = 1;
    return 2 * rank_of(x, cnt, np, terms) + possible;
}

MM_INLINE unsigned color_mask(uint32_t code, int pins) {
    unsigned m = 0;
    for (int k = 0; k < pins; k++) m |= 1u << ((code >> (4 * k)) & 15);
    return m;
}

/* Is code the lowest of the codewords that relabel its colors within the set z and within the set f? That is,
 * do the colors of each set first appear, reading from the first pin, in increasing order from the set's
 * lowest color? */
MM_INLINE int lowest_of_class(uint32_t code, int pins, unsigned z, unsigned f) {
    unsigned seen = 0;
    for (int k = pins - 1; k >= 0; k--) {
        unsigned bit = 1u << ((code >> (4 * k)) & 15), set = bit & z ? z : bit & f ? f : 0;
        if (!set || (seen & bit)) continue;
        unsigned unseen = set & ~seen;
        if (bit != (unseen & -unseen)) return 0;
        seen |= bit;
    }
    return 1;
}

#ifdef PRUNE
/* The signature as one number below 2^48, the digits of a mixed radix: each pin's color where kept (its rank
 * among at_pin's colors, 0 where not kept) and each color's count capped by most[]. A pin of color c after b
 * earlier pins of c adds add[pin][c][b]: its color digit, and one to c's count digit while b < most[c]. */
typedef struct { uint64_t add[8][16][8]; int fits; } mm_signature;

static void plan_signature(mm_signature *sig, int pins, int colors, const unsigned *at_pin, const uint8_t *most) {
    uint64_t radix = 1, pin_digit[8][16], count_unit[16];
    sig->fits = 0;
    for (int k = 0; k < pins; k++) {
        uint64_t rank = 0;
        for (int c = 1; c <= colors; c++) pin_digit[k][c] = (at_pin[k] >> c & 1) ? ++rank * radix : 0;
        if ((radix *= rank + 1) >= (1ull << 48)) goto too_large;
    }
    for (int c = 1; c <= colors; c++) {
        count_unit[c] = radix;
        if ((radix *= most[c] + 1u) >= (1ull << 48)) goto too_large;
    }
    for (int k = 0; k < pins; k++)
        for (int c = 1; c <= colors; c++)
            for (int b = 0; b < pins; b++) sig->add[k][c][b] = pin_digit[k][c] + (b < most[c] ? count_unit[c] : 0);
    sig->fits = 1;
    return;
too_large:
    memset(sig->add, 0, sizeof sig->add);  /* the sums stay defined; no signature is used */
}

/* The indices of the codewords that lowest_of_class keeps, ascending, without visiting the others: depth first
 * over the pins, colors ascending, a class's color taken only where an earlier pin has it or it is the class's
 * lowest color not yet used (codes lists every codeword in order: index = the colors, less one, in base colors).
 * Each one's signature (see seen_before) is summed on the way, under the search's tag, or 0 where it needs no
 * table: every pin kept (the signature names the guess alone), or a signature too large for 48 bits. */
/* Was this signature of the first k + 1 pins met before in the current search? If not, it is stored where a
 * short probe finds room. A slot holds the search's tag (13 bits), k (3 bits) and the signature (48 bits). */
MM_INLINE int prefix_seen(mm_ctx *x, int k, uint64_t sum) {
    const uint64_t tagged = (uint64_t)x->prefix_search << 51 | (uint64_t)k << 48 | sum;
    const uint32_t h = (uint32_t)(((tagged & ((1ull << 51) - 1)) * 0x9E3779B97F4A7C15ull) >> 40);
    for (int probe = 0; probe < 8; probe++) {
        uint64_t *e = x->prefixes + ((h + probe) & (PREFIX_SLOTS - 1));
        if (*e >> 51 != x->prefix_search) { *e = tagged; return 0; }
        if (*e == tagged) return 1;
    }
    return 0;
}

/* The colors lowest_of_class lets pin k take after the colors used on the pins before: every color outside the
 * classes, a class's colors already used, and the lowest unused color of each class. */
MM_INLINE unsigned class_colors(unsigned all, unsigned z, unsigned f, unsigned used) {
    const unsigned zu = z & ~used, fu = f & ~used;
    return (all & ~(z | f)) | (used & (z | f)) | (zu & -zu) | (fu & -fu);
}

/* Ville's symmetric codewords: a permutation of the pins with a relabelling of the colors that maps every guess
 * played so far to itself maps the possible secrets onto themselves and keeps every score, so a candidate and its
 * image split them into parts of the same sizes and are both possible or neither. One such symmetry: pin k of the
 * image is color[pin from[k] of the code]. */
typedef struct { uint8_t from[8], color[16]; } mm_sym;
#define MAX_SYMS 64

/* Where class_lowest_codes stopped: a search's candidates are made a chunk at a time, so each chunk leaves out
 * the colors that the guesses scored before it showed dead, and none is made once the answer is known. */
typedef struct {
    const mm_signature *sig;
    const unsigned *at_pin;
    uint64_t tag;
    unsigned all, z, f;
    const mm_sym *syms;
    int nsyms;
    unsigned closed[MAX_SYMS], any_closed;  /* per symmetry, the lengths j < pins whose first j pins it permutes */
    int k, index[8], kept[8];
    uint32_t prefix[8];         /* the colors of the pins before pin k, a nibble each */
    /* Possible secrets that score alike against every guess below a prefix (see forced_loses), for each prefix
     * length j: runs of secrets with one multiset of colors and the same pins from pin j on, as their first j
     * pins; a run starts at each bit of run_starts[j]. */
    const mm_hope *hope;
    int rows_first;             /* sigs[] gets each codeword's pin_rows, not its signature (see choose_p) */
    uint64_t sel[8];            /* the pin_rows bytes of the pins before pin k */
    unsigned run_lengths;       /* the prefix lengths j that have a run */
    int in_runs[8];
    uint64_t run_starts[8];
    uint32_t run_prefix[8][RUN_SECRETS];
    unsigned used[8], left[8];  /* left: the colors pin k has still to take */
    unsigned lower[8][8];       /* [j][later]: swap_lower's colors for pin later from the first j pins */
    uint32_t sub[8];            /* the multiset of the pins before pin k (its number in sub_next) */
    uint64_t sum[8], held[8];   /* held: how many pins so far have each color, a nibble each */
#ifdef ROW_BATCH
    /* A search scored by rows makes one guess of those that share all but the last pin and whose last pins add
     * equal rows: they split the secrets alike. A search of SMALL_SECRETS or fewer, Expected Size or Entropy
     * (fuse), also scores the guesses' pairs (see pair_floor) and makes only those they leave a chance; acc[k] is
     * the secrets' score from the pins before pin k, added a row at a time (see fill_rows). */
    uint64_t last_like[128];        /* per last-pin row byte, its class of equal rows (see class_rows) */
    int fuse;
    /* per prefix length j and rotation r = 1..16 of the secrets (as pairs_of turns them), where a secret and
     * the one r places on share a run of forced_loses: a fused search finds the pairs a prefix forces into one
     * part from acc alone (see pairs_of) */
    __m256i run_mates[8][16];
    const int64_t *floor_of_pairs;  /* pair_floor's row for this many secrets */
    const int64_t *forced_floor;    /* forced_floor's */
    __m256i acc[8];
#endif
} mm_codes;

/* The runs of forced_loses for the possible secrets poss[0..np), at every prefix length 2..pins - 2: a run's
 * secrets share one multiset of colors and the pins from pin j on. A search of more than RUN_SECRETS has none. */
static void plan_runs(mm_codes *g, const mm_ctx *x, const int *poss, int np, int pins) {
    g->run_lengths = 0;
    if (np > RUN_SECRETS) return;
    for (int j = 2; j <= pins - 2; j++) {
        const uint32_t rest = (1u << (4 * (pins - j))) - 1;  /* the pins from pin j on */
        uint64_t taken = 0;
        int m = 0;
        g->run_starts[j] = 0;
        for (int a = 0; a < np; a++) {
            if (taken >> a & 1) continue;
            const uint32_t code = x->codes[poss[a]];
            const int first = m;
            for (int b = a + 1; b < np; b++) {
                if (taken >> b & 1 || x->color_set[poss[b]] != x->color_set[poss[a]] ||
                    ((x->codes[poss[b]] ^ code) & rest)) continue;
                if (m == first) {
                    g->run_starts[j] |= 1ull << m;
                    g->run_prefix[j][m++] = code >> (4 * (pins - j));
                }
                g->run_prefix[j][m++] = x->codes[poss[b]] >> (4 * (pins - j));
                taken |= 1ull << b;
            }
        }
        g->in_runs[j] = m;
        if (m) g->run_lengths |= 1u << j;
    }
}

/* A search's generator at its first codeword, with the prefix lengths each symmetry permutes and the runs. */
static void start_codes(mm_codes *g, const mm_ctx *x, const int *poss, int np, int pins, unsigned z, unsigned f,
                        const mm_signature *sig, const unsigned *at_pin, uint64_t tag, const mm_sym *syms,
                        int nsyms, const mm_hope *hope) {
    g->sig = sig; g->at_pin = at_pin; g->tag = tag; g->z = z; g->f = f; g->hope = hope;
    g->all = ((1u << (x->colors + 1)) - 1) & ~1u;
    g->syms = syms; g->nsyms = nsyms; g->any_closed = 0;
    for (int s = 0; s < nsyms; s++) {
        unsigned from = 0;
        g->closed[s] = 0;
        for (int j = 1; j < pins; j++) {
            from |= 1u << syms[s].from[j - 1];
            if (from == (1u << j) - 1) g->closed[s] |= 1u << j;
        }
        g->any_closed |= g->closed[s];
    }
    plan_runs(g, x, poss, np, pins);
    g->k = 0; g->used[0] = 0; g->index[0] = 0; g->kept[0] = 0; g->sum[0] = 0; g->held[0] = 0; g->prefix[0] = 0;
    g->sub[0] = 0;  /* the empty multiset */
    g->sel[0] = 0;
#ifdef ROW_BATCH
    g->fuse = 0;
    g->acc[0] = _mm256_setzero_si256();
#endif
    memset(g->lower[0], 0, sizeof g->lower[0]);
    g->left[0] = class_colors(g->all, z, f, 0);
}

/* The colors d that a later pin cannot take because pin i has color c: swapping d with c > d, where no possible
 * secret holds either color on either pin, gives a lower codeword scoring every possible secret alike (no black
 * peg moves, and the colors are the same). Pin `later` gives up the union of these over the pins before it, less
 * at_pin[later] (kept per prefix in mm_codes's lower, a pin at a time). */
MM_INLINE unsigned swap_lower(const unsigned *at_pin, int i, unsigned c, int later) {
    return (at_pin[i] | at_pin[later]) >> c & 1 ? 0 : ((1u << c) - 1) & ~at_pin[i];
}

MM_INLINE int below_by_symmetry(const mm_codes *g, uint32_t prefix, int length) {
    for (int s = 0; s < g->nsyms; s++) {
        if (!(g->closed[s] >> length & 1)) continue;
        uint32_t image = 0;
        for (int i = 0; i < length; i++)
            image = image << 4 | g->syms[s].color[(prefix >> (4 * (length - 1 - g->syms[s].from[i]))) & 15];
        if (image < prefix) return 1;
    }
    return 0;
}

/* Two possible secrets with one multiset of colors get the same pegs in all from any guess, and where they also
 * have the same pins from pin j on, the same black pegs there. So below a prefix of j pins that gives them the
 * same black pegs, every guess puts them in one part: the split is the union of such groups at best. Its bound
 * (the largest group, the number of groups, or the groups' measure, less the rounding of Entropy's terms, half a
 * unit for each part and each group) decides, as split_bound's does, whether the prefix's guesses can win. */
MM_INLINE int forced_loses(const mm_ctx *x, const mm_codes *g, uint32_t prefix, int j) {
    const mm_hope *h = g->hope;
    const int64_t *measure = h->measure;
    int64_t bound = x->strategy == KNUTH ? 1 : x->strategy == MOST_PARTS ? h->np : h->np * measure[1];
    int count[8] = {0};  /* per number of black pegs, the run's secrets so far */
    for (int i = 0; i < g->in_runs[j]; i++) {
        if (g->run_starts[j] >> i & 1) memset(count, 0, sizeof count);
        const uint32_t d = prefix ^ g->run_prefix[j][i];
        const int c = count[j - __builtin_popcount((d | d >> 1 | d >> 2 | d >> 3) & 0x11111111u)]++;
        if (x->strategy == KNUTH) bound = c + 1 > bound ? c + 1 : bound;
        else if (x->strategy == MOST_PARTS) bound -= c > 0;
        else bound += measure[c + 1] - measure[c] - measure[1];
    }
    if (x->strategy == ENTROPY) bound -= 64 + h->np;
    return bound_loses(x, bound, 0, h);
}

#ifdef ROW_BATCH
#if MMV_BYTES == 64
#define MMV_LOW32(v) _mm512_castsi512_si256(v)
#else
#define MMV_LOW32(v) (v)
#endif

/* How many pairs of the first np bytes of v are equal (np <= 32; the others are distinct padding), counting only
 * the pairs that mates marks where mates is given (see run_mates). Each byte is compared with the one r places on,
 * cyclically: in 32 bytes r = 1..15, and 16 from the first half only, so no pair counts twice; a search of 16
 * secrets or fewer has every score in the first 16 bytes, and counts them in half the work (r = 1..7, and 8 from
 * the first half). The matches are summed per byte and then once: no branch, where counting parts one by one
 * stops at a count no predictor foresees. Always inlined, so where mates is NULL no mask is applied. */
MM_INLINE int pairs_of(__m256i v, const __m256i *mates, int np) {
    if (np <= 16) {
        const __m128i w = _mm256_castsi256_si128(v);
        __m128i same = _mm_setzero_si128();
#define MATES(r) (mates ? _mm256_castsi256_si128(mates[(r) - 1]) : _mm_set1_epi8(-1))
#define TURN(r) same = _mm_sub_epi8(same, _mm_and_si128(_mm_cmpeq_epi8(w, _mm_alignr_epi8(w, w, r)), MATES(r)))
        TURN(1); TURN(2); TURN(3); TURN(4); TURN(5); TURN(6); TURN(7);
#undef TURN
        const __m128i sums = _mm_sad_epu8(same, _mm_setzero_si128());
        const __m128i half = _mm_and_si128(_mm_cmpeq_epi8(w, _mm_alignr_epi8(w, w, 8)), MATES(8));
#undef MATES
        return (int)(_mm_cvtsi128_si64(sums) + _mm_extract_epi64(sums, 1)) +
               __builtin_popcount((unsigned)_mm_movemask_epi8(half) & 0xFFu);
    }
    const __m256i swapped = _mm256_permute2x128_si256(v, v, 1);
    __m256i same = _mm256_setzero_si256();
#define MATES(r) (mates ? mates[(r) - 1] : _mm256_set1_epi8(-1))
#define TURN(r) same = _mm256_sub_epi8(same, _mm256_and_si256(_mm256_cmpeq_epi8(v, _mm256_alignr_epi8(swapped, v, r)), \
                                                           MATES(r)))
    TURN(1); TURN(2); TURN(3); TURN(4); TURN(5); TURN(6); TURN(7); TURN(8);
    TURN(9); TURN(10); TURN(11); TURN(12); TURN(13); TURN(14); TURN(15);
#undef TURN
    const __m256i sums = _mm256_sad_epu8(same, _mm256_setzero_si256());
    const __m128i half = _mm_add_epi64(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
    return (int)(_mm_cvtsi128_si64(half) + _mm_extract_epi64(half, 1)) +
           __builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_and_si256(_mm256_cmpeq_epi8(v, swapped), MATES(16)))
                              & 0xFFFFu);
#undef MATES
}

/* run_mates for a fused search: at each prefix length j with runs, each secret's run as a byte (the first secret
 * with its multiset of colors and its pins from pin j on; the padding, each its own), compared with the byte r
 * places on as pairs_of turns the scores (in 16 bytes for 16 secrets or fewer). */
static void plan_run_mates(mm_codes *g, const mm_ctx *x, const int *poss, int np, int pins) {
    for (int j = 2; j <= pins - 2; j++) {
        if (!(g->run_lengths >> j & 1)) continue;
        const uint32_t rest = (1u << (4 * (pins - j))) - 1;  /* the pins from pin j on */
        uint8_t run[32];
        for (int a = 0; a < 32; a++) {
            run[a] = (uint8_t)a;
            for (int b = 0; a < np && b < a; b++)
                if (x->color_set[poss[b]] == x->color_set[poss[a]] &&
                    !((x->codes[poss[b]] ^ x->codes[poss[a]]) & rest)) {
                    run[a] = (uint8_t)b;
                    break;
                }
        }
        const __m256i id = _mm256_loadu_si256((const __m256i *)run), swapped = _mm256_permute2x128_si256(id, id, 1);
        const __m128i low = _mm256_castsi256_si128(id);
        __m256i *mates = g->run_mates[j];
        if (np <= 16) {
#define TURN(r) mates[r - 1] = _mm256_castsi128_si256(_mm_cmpeq_epi8(low, _mm_alignr_epi8(low, low, r)))
            TURN(1); TURN(2); TURN(3); TURN(4); TURN(5); TURN(6); TURN(7); TURN(8);
#undef TURN
        } else {
#define TURN(r) mates[r - 1] = _mm256_cmpeq_epi8(id, _mm256_alignr_epi8(swapped, id, r))
            TURN(1); TURN(2); TURN(3); TURN(4); TURN(5); TURN(6); TURN(7); TURN(8);
            TURN(9); TURN(10); TURN(11); TURN(12); TURN(13); TURN(14); TURN(15);
#undef TURN
            mates[15] = _mm256_cmpeq_epi8(id, swapped);
        }
    }
}

/* Row k * 128 + byte of the pin table (see fill_rows): the first 32 secrets' scores from one pin choice. */
MM_INLINE __m256i row_of(const mm_ctx *x, int k, unsigned byte) {
    return _mm256_load_si256((const __m256i *)(x->rows + (128 * k + byte) * ROW_BYTES));
}

/* The rows of pin k (row byte 8 c + b: color c after b earlier pins of c) in classes of equal rows (their first
 * 32 bytes, or all 64 where wide), a bit per class, numbered as first met; rows past the 64th class get none (0). */
static void class_rows(const mm_ctx *x, int k, int wide, uint64_t *like) {
    unsigned byte_of[64];
    int classes = 0;
    for (int c = 1; c <= x->colors; c++)
        for (int b = 0; b < x->pins; b++) {
            const unsigned byte = 8 * c + b;
            const uint8_t *row = x->rows + (128 * k + byte) * ROW_BYTES;
            int e = 0;
            while (e < classes && memcmp(row, x->rows + (128 * k + byte_of[e]) * ROW_BYTES, wide ? 64 : 32)) e++;
            if (e == classes && classes < 64) byte_of[classes++] = byte;
            like[byte] = e < 64 ? 1ull << e : 0;
        }
}
#endif

/* The next codewords, at most room (room >= 2 * colors), into out and their signatures into sigs; 0 at the end. */
static int class_lowest_codes(mm_ctx *x, int pins, mm_codes *g, int *out, uint64_t *sigs, int room) {
    const mm_signature *sig = g->sig;
    const unsigned *at_pin = g->at_pin, all = g->all, z = g->z, f = g->f;
    const uint64_t tag = g->tag;
    int count = 0, k = g->k;
    while (k >= 0 && count + x->colors <= room) {
        if (!g->left[k]) {
            k--;
            continue;
        }
        const int c = __builtin_ctz(g->left[k]);
        g->left[k] &= g->left[k] - 1;
        int idx = g->index[k] * x->colors + c - 1, kept_now = g->kept[k] + (at_pin[k] >> c & 1);
        uint64_t sum_now = g->sum[k] + sig->add[k][c][(g->held[k] >> (4 * c)) & 15];
        const uint32_t prefix_now = g->prefix[k] << 4 | c, sub_now = x->sub_next[16 * g->sub[k] + c];
        const uint64_t sel_now = g->sel[k] | (8 * c + ((g->held[k] >> (4 * c)) & 15)) << (8 * k);
        /* every codeword below this prefix has dead colors (mark_dead_sets): the whole subtree is skipped */
        if (!x->sub_live[sub_now]) continue;
        /* A symmetry that permutes the first k + 1 pins among themselves maps this prefix to one below it: then
         * every codeword here has a lower image (lowest_of_orbit's test, for the whole subtree at once). */
        if (g->any_closed >> (k + 1) & 1 && below_by_symmetry(g, prefix_now, k + 1)) continue;
        /* Two first-pin choices with the same signature lead to the same signatures whatever follows (a color's
         * count digit already holds its count capped by most[]), so every codeword below the later one scores
         * as a lower one does: one below the earlier choice, or its color class's lowest, at most that. So the
         * later choice's codewords are not generated (none that is possible: pass 0 had those). Where every
         * pin so far is kept, the signature names the choice alone. Before the last pin the choices are too many
         * for the table, and a twin there costs only a few probes of seen_before. */
        if (sig->fits && kept_now <= k && k + 2 < pins && prefix_seen(x, k, sum_now)) continue;
#ifdef ROW_BATCH
        /* a fused search's score so far, which finds its forced pairs too (see run_mates) */
        const __m256i acc_now = g->fuse ? _mm256_add_epi8(g->acc[k], row_of(x, k, sel_now >> (8 * k) & 255))
                                        : _mm256_setzero_si256();
        if (g->run_lengths >> (k + 1) & 1 &&
            (g->fuse ? g->forced_floor[pairs_of(acc_now, g->run_mates[k + 1], g->hope->np)] >= g->hope->q_lost
                     : forced_loses(x, g, prefix_now, k + 1)))
            continue;
#else
        if (g->run_lengths >> (k + 1) & 1 && forced_loses(x, g, prefix_now, k + 1)) continue;
#endif
        const unsigned used_now = g->used[k] | 1u << c;
        const uint64_t held_now = g->held[k] + (1ull << (4 * c));
        if (k + 1 == pins - 1) {  /* the last pin: every color it may take, in one loop */
            const int last = k + 1;
            /* a color that makes the guess's multiset dead is masked off: such a guess cannot beat the best so
             * far (nor can one splitting the secrets as it does, if its prefix's twin is skipped) */
            const unsigned lower = (g->lower[k][last] | swap_lower(at_pin, k, c, last)) & ~at_pin[last];
            const unsigned colors_here = class_colors(all, z, f, used_now) & ~lower
                                         & x->sub_live[sub_now];
#ifdef ROW_BATCH
            const __m256i head = acc_now;
            const int64_t q_lost = g->hope->q_lost;  /* as the chunk began: the search's own is no larger */
            uint64_t met = 0;  /* the classes of last_like met so far */
#endif
            for (unsigned m = colors_here; m; m &= m - 1) {
                const int d = __builtin_ctz(m), kept_code = kept_now + (at_pin[last] >> d & 1);
                const int code = idx * x->colors + d - 1;
                if (g->rows_first) {
                    const unsigned byte = 8 * d + ((held_now >> (4 * d)) & 15);
#ifdef ROW_BATCH
                    /* a last color adding the same row as a lower one splits the secrets alike: it cannot win */
                    const uint64_t like = g->last_like[byte];
                    if (met & like) continue;
                    met |= like;
                    if (g->fuse && g->floor_of_pairs[pairs_of(_mm256_add_epi8(head, row_of(x, last, byte)),
                                                              NULL, g->hope->np)] >= q_lost)
                        continue;
#endif
                    sigs[count] = sel_now | (uint64_t)byte << (8 * last);
                } else
                    sigs[count] = kept_code == pins || !sig->fits ? 0
                                  : tag | (sum_now + sig->add[last][d][(held_now >> (4 * d)) & 15]);
                out[count++] = code;
            }
            continue;
        }
        g->used[k + 1] = used_now; g->index[k + 1] = idx; g->kept[k + 1] = kept_now; g->sum[k + 1] = sum_now;
        g->held[k + 1] = held_now; g->prefix[k + 1] = prefix_now; g->sub[k + 1] = sub_now; g->sel[k + 1] = sel_now;
#ifdef ROW_BATCH
        g->acc[k + 1] = acc_now;
#endif
        for (int later = k + 1; later < pins; later++)
            g->lower[k + 1][later] = g->lower[k][later] | swap_lower(at_pin, k, c, later);
        g->left[k + 1] = class_colors(all, z, f, used_now) & ~(g->lower[k + 1][k + 1] & ~at_pin[k + 1])
                         & x->sub_live[sub_now];
        k++;
    }
    g->k = k;
    return count;
}

/* The symmetries fixing every played guess, other than the identity, found by choosing the pins' sources one at a
 * time while the colors they imply stay a one-to-one map; colors no guess holds map to themselves (relabelling
 * those is the free-color class's business). At most max are kept: any subset still drops only candidates with
 * a lower equivalent, so the tie-break stays exact. */
static int find_syms(const uint32_t *guesses, int ng, int pins, mm_sym *out, int max) {
    int from[8], count = 0, k = 0;
    uint8_t fwd[16], back[16];
    unsigned held = 0;
    for (int i = 0; i < ng; i++) held |= color_mask(guesses[i], pins);
    if (ng == 0) return 0;
    for (from[0] = -1;;) {
        /* advance pin k's source to the next one unused and consistent with every guess */
        int ok = 0;
        while (!ok && ++from[k] < pins) {
            ok = 1;
            for (int j = 0; j < k && ok; j++) ok = from[j] != from[k];
            if (!ok) continue;
            memset(fwd, 0, 16); memset(back, 0, 16);
            for (int j = 0; j <= k && ok; j++)
                for (int i = 0; i < ng && ok; i++) {
                    int a = (guesses[i] >> (4 * (pins - 1 - from[j]))) & 15, b = (guesses[i] >> (4 * (pins - 1 - j))) & 15;
                    ok = (!fwd[a] || fwd[a] == b) && (!back[b] || back[b] == a);
                    fwd[a] = (uint8_t)b; back[b] = (uint8_t)a;
                }
        }
        if (!ok) { if (--k < 0) break; continue; }
        if (k < pins - 1) { from[++k] = -1; continue; }
        int identity = 1;
        for (int j = 0; j < pins; j++) identity &= from[j] == j;
        if (!identity) {
            mm_sym *m = out + count++;
            for (int j = 0; j < pins; j++) m->from[j] = (uint8_t)from[j];
            for (int c = 0; c < 16; c++) m->color[c] = (held >> c & 1) ? fwd[c] : (uint8_t)c;
            if (count == max) break;
        }
    }
    return count;
}

/* The lowest codeword that relabels code's colors within z and within f (the class lowest_of_class tests). */
MM_INLINE uint32_t class_lowest(uint32_t code, int pins, unsigned z, unsigned f) {
    uint8_t map[16] = {0};
    unsigned zfree = z, ffree = f;
    uint32_t out = 0;
    for (int k = pins - 1; k >= 0; k--) {
        int c = (code >> (4 * k)) & 15;
        unsigned bit = 1u << c;
        if ((bit & (z | f)) && !map[c]) {
            unsigned *avail = bit & z ? &zfree : &ffree;
            map[c] = (uint8_t)__builtin_ctz(*avail);
            *avail &= *avail - 1;
        }
        out = (out << 4) | (map[c] ? map[c] : c);
    }
    return out;
}

/* Is code (already the lowest of its color class) the lowest codeword its symmetries and color classes reach? */
MM_INLINE int lowest_of_orbit(uint32_t code, int pins, const mm_sym *syms, int nsyms, unsigned z, unsigned f) {
    for (int s = 0; s < nsyms; s++) {
        /* the image's pins from the first, while they equal the code's: most images are above it at once */
        int k = 0, mapped = 0, own = 0;
        for (; k < pins; k++) {
            mapped = syms[s].color[(code >> (4 * (pins - 1 - syms[s].from[k]))) & 15];
            own = (code >> (4 * (pins - 1 - k))) & 15;
            if (mapped != own) break;
        }
        if (k == pins || mapped > own) continue;
        uint32_t image = 0;
        for (k = 0; k < pins; k++)
            image = (image << 4) | syms[s].color[(code >> (4 * (pins - 1 - syms[s].from[k]))) & 15];
        if (class_lowest(image, pins, z, f) < code) return 0;
    }
    return 1;
}
#endif

#ifdef PRUNE
/* Two guesses with the same signature score alike against every possible secret: a pin's color matters only
 * where some possible secret has that color on that pin (else it never scores black there), and a color's count
 * only up to the most that any possible secret holds (min(guess, secret) cannot grow past it). */
MM_INLINE uint32_t seen_slot(uint64_t tagged) { return (uint32_t)(((tagged & ((1ull << 48) - 1)) * 0x9E3779B97F4A7C15ull) >> 40); }

/* Was this tagged signature stored earlier in the current search? If not, it is stored where a short probe of the
 * first mask + 1 slots finds room (one not stored only costs its equivalents a scoring they could have skipped).
 * A slot's tag says which search stored it, so a new search needs no clearing. */
MM_INLINE int seen_before(mm_ctx *x, uint64_t tagged, unsigned mask) {
    if (!tagged) return 0;
    const uint32_t h = seen_slot(tagged);
    for (int probe = 0; probe < 8; probe++) {
        uint64_t *e = x->seen + ((h + probe) & mask);
        if (*e >> 48 != x->search) { *e = tagged; return 0; }
        if (*e == tagged) return 1;
    }
    return 0;
}
#endif

#ifdef PRUNE
#define FREE_MEASURE free(measure)
#else
#define FREE_MEASURE (void)0
#endif

#if defined(ROW_BATCH) && defined(PRUNE)
/* For up to 64 possible secrets: what a pin adds to each one's score, for every pin k, color c and count b of c in
 * the earlier pins (row 128 k + 8 c + b), so a guess is scored by adding one row per pin (see pin_rows). */
static void fill_rows(mm_ctx *x, const uint8_t *sp, const uint8_t *scn, int stride, int lanes, int pins,
                      const mmv *bytes, int np) {
    for (int k = 0; k < pins; k++)
        for (uint8_t c = 1; c <= x->colors; c++)
            for (uint8_t b = 0; b < pins; b++)
                for (int i = 0; i < lanes; i += MMV_BYTES)
                    mmv_store(x->rows + (128 * k + 8 * c + b) * ROW_BYTES + i,
                              mmv_score_pins(sp + k * stride, scn, stride, i, &c, &b, bytes, 1));
    /* the padding lanes of the first pin's rows score 0xFF, 0xFE, ..., which no score is: no count takes them,
     * and no two are equal (see pairs_of) */
    for (int r = 0; r < 128; r++)
        for (int i = np; i < lanes; i++) x->rows[r * ROW_BYTES + i] = (uint8_t)(0xFF - (i - np));
}

MM_INLINE mmv score_by_rows(const mm_ctx *x, uint64_t sel, int i, int pins) {
    mmv acc = mmv_load(x->rows + (sel & 255) * ROW_BYTES + i);
    for (int k = 1; k < pins; k++)
        acc = mmv_add(acc, mmv_load(x->rows + (128 * k + ((sel >> (8 * k)) & 255)) * ROW_BYTES + i));
    return acc;
}

/* A search's count order (the scores, order_at, and their vectors, count_order) sorted by how many losers showed
 * on each count, most first; an insertion sort, stable, as the order changes little from one sort to the next. */
static void sort_by_losses(int *lost_on, int *order_at, mmv *count_order, int n) {
    for (int j = 1; j < n; j++) {
        const int h = lost_on[j], at = order_at[j];
        const mmv o = count_order[j];
        int k = j;
        for (; k > 0 && lost_on[k - 1] < h; k--) {
            lost_on[k] = lost_on[k - 1]; order_at[k] = order_at[k - 1]; count_order[k] = count_order[k - 1];
        }
        lost_on[k] = h; order_at[k] = at; count_order[k] = o;
    }
}
#endif

#if defined(ROW_BATCH) && defined(PRUNE)
/* One block's counts of the scores scan[0..nscan) (places in count_order; the first block sets them), added to
 * counted[]: the place in scan of the count that shows the split cannot win (past limit, or the measure so far,
 * *so_far, reaching q_lost), or nscan. */
MM_INLINE int count_block(const mmv *sc, int m, const int *scan, int nscan, const mmv *count_order,
                          const int *order_at, int *counted, int first, int off, int limit, const int64_t *measure,
                          int64_t *so_far, int64_t q_lost) {
    int64_t q = *so_far;
    int e = 0;
#define COUNTED(at, add) do { \
        const int j = scan[at], was = first ? 0 : counted[j], now = was + (add); \
        counted[j] = now; \
        const int c = now - (order_at[j] == 0 ? off : 0);  /* the padding lanes score 0 */ \
        if (c > limit || (measure && (q += measure[c] - measure[was]) >= q_lost)) { e = at; goto done; } \
    } while (0)
    for (; e + 3 < nscan; e += 4) {  /* four counts at a time, one pass over the block */
        const mmv b[4] = {count_order[scan[e]], count_order[scan[e + 1]], count_order[scan[e + 2]],
                          count_order[scan[e + 3]]};
        const uint64_t four = mmv_count_eq4_n(sc, m, b);
        COUNTED(e, (int)(four & 0xFFFF));
        COUNTED(e + 1, (int)(four >> 16 & 0xFFFF));
        COUNTED(e + 2, (int)(four >> 32 & 0xFFFF));
        COUNTED(e + 3, (int)(four >> 48));
    }
    for (; e < nscan; e++) COUNTED(e, mmv_count_eq_n(sc, m, count_order[scan[e]]));
#undef COUNTED
done:
    *so_far = q;
    return e;
}

/* The same as a function of its own, which keeps the measure so far in a register: inside choose_p it lived in
 * memory, and each count waited for the one before to store it. */
static __attribute__((noinline)) int count_block_apart(const mmv *sc, int m, const int *scan, int nscan,
                                                       const mmv *count_order, const int *order_at, int *counted,
                                                       int first, int off, int limit, const int64_t *measure,
                                                       int64_t *so_far, int64_t q_lost) {
    return count_block(sc, m, scan, nscan, count_order, order_at, counted, first, off, limit, measure, so_far,
                       q_lost);
}
#endif

/* The next guess for the possible secrets poss[0..np), or -1 when stopped or out of memory. */
MM_INLINE int choose_p(mm_ctx *x, const int *poss, int np, int pins) {
    int cnt[129];
    int best = -1;
    int64_t best_key = INT64_MIN;
    void *terms = make_terms(x->strategy, np);
#ifdef PRUNE
    int64_t *measure = make_measure(x->strategy, np), q_lost = INT64_MAX;  /* q_lost: see worse_from */
    if (x->strategy >= EXPECTED_SIZE && (!terms || !measure)) { free(terms); free(measure); return -1; }
#else
    if (x->strategy >= EXPECTED_SIZE && !terms) return -1;
#endif
    for (int i = 0; i < np; i++) x->inposs[poss[i]] = 1;
#ifdef ROW_BATCH
    /* The possible secrets byte-sliced, padded with zero lanes to a multiple of 64, 64-byte aligned. */
    const int stride = (np + 63) & ~63;
    /* the vectors scored: padded lanes score 0 and come off the count of score 0 (in a search scored by rows they
     * score distinct bytes that are no score, counted by none: see fill_rows's caller) */
    const int lanes = (np + MMV_BYTES - 1) / MMV_BYTES * MMV_BYTES, pad = lanes - np;
#ifdef PRUNE
    const int kept_rows = KNUTH_PINS;  /* the prefixes' scores (see part below) */
#else
    const int kept_rows = 0;
#endif
    uint8_t *sp = aligned_alloc(64, (size_t)stride * (24 + kept_rows));
    if (!sp) { free(terms); FREE_MEASURE; for (int i = 0; i < np; i++) x->inposs[poss[i]] = 0; return -1; }
    uint8_t *scn = sp + (size_t)stride * 8;
    memset(sp, 0, (size_t)stride * 24);
    for (int i = 0; i < np; i++) {
        uint8_t gp[8];
        pins_of(x->codes[poss[i]], pins, gp);
        for (int k = 0; k < pins; k++) sp[k * stride + i] = gp[k];
        for (int c = 1; c <= x->colors; c++) scn[c * stride + i] = x->counts[16 * poss[i] + c];
    }
    mmv vv[48];
    for (int v = 0; v < x->nvalid; v++) vv[v] = mmv_set1(x->valid[v]);
#ifdef PRUNE
    /* A split's parts are counted in count_order, at first big_first's order with the score of no pegs last (a
     * loser is seldom dropped on that part); then, for every strategy but Most Parts, it is sorted again every
     * ADAPT scored guesses, the counts on which most losers showed first. */
    mmv count_order[48];
    int order_at[48];  /* valid[]'s index of each count */
    for (int j = 0; j < x->nvalid; j++) {
        order_at[j] = j + 1 < x->nvalid ? x->big_first[j + 1] : 0;
        count_order[j] = vv[order_at[j]];
    }
    int lost_on[48] = {0}, scanned = 0;  /* how many losers showed on each count, how many guesses were scored */
#endif
#ifdef PRUNE
    mmv bytes[16];
    for (int b = 0; b < 16; b++) bytes[b] = mmv_set1(b);
    int rows_filled = 0;  /* fill_rows runs once a search: when a guess is first scored by rows, or pass 1 begins */
    uint64_t rows_head = ~0ull;  /* the first pins' row bytes whose sum is head_sc (no row byte is 255) */
    mmv head_sc = mmv_set1(0), head_sc2 = head_sc;
    /* Guesses scored one after another mostly share their first pins (the generator goes depth first). So for a
     * search of more than 64 secrets, each secret's score from the first k pins of the latest guess is kept at
     * part + k * stride (k = 1 .. pins - 1), for the secrets before part_filled[k], while later guesses have the
     * same first k pins (part_of[k]): a guess adds only the pins where it differs from the guess before. */
    uint8_t *part = sp + (size_t)stride * 24;
    uint32_t part_of[8];
    int part_filled[8] = {0};
    for (int k = 0; k < 8; k++) part_of[k] = 0xFFFFFFFFu;  /* no prefix: codes are below 2^32 - 1 */
#endif
#endif
#ifdef PRUNE
    /* Only a possible secret reaches the best reachable key, so when one does, the lowest such one is the
     * answer and the scan of all codewords is skipped (pass 0 tries the possible secrets, ascending, first). */
    const int64_t key_max = best_reachable(x, np, terms, 1), key_max_impossible = best_reachable(x, np, terms, 0);
    /* Interchangeable colors: those no possible secret holds (z), and those never played that some possible
     * secret holds (f). Relabelling colors within z or within f leaves a guess's part for every score and its
     * membership in the possible set unchanged, so only the lowest codeword of each such class can be chosen. */
    unsigned played_colors = 0, present = 0, all = ((1u << (x->colors + 1)) - 1) & ~1u;
    uint32_t path[MAX_DEPTH + 1];
    for (int i = 0; i < x->npath; i++) {
        path[i] = x->codes[x->path[i]];
        played_colors |= color_mask(path[i], pins);
    }
    mm_sym syms[MAX_SYMS];
    const int nsyms = find_syms(path, x->npath, pins, syms, MAX_SYMS);
    for (int i = 0; i < np; i++) present |= color_mask(x->codes[poss[i]], pins);
    const unsigned z = all & ~present, f = all & present & ~played_colors;
    /* Pass 1 scores one guess per signature (see seen_before): a later guess with an earlier one's signature
     * splits the possible secrets alike, so it cannot win the tie-break (possible guesses were settled in pass 0,
     * their signatures stored as pass 1 meets them). */
    unsigned at_pin[8] = {0};
    uint8_t most_of[16] = {0};
    for (int i = 0; i < np; i++) {
        const uint8_t *sc = x->counts + 16 * poss[i];
        for (int k = 0; k < pins; k++) at_pin[k] |= 1u << ((x->codes[poss[i]] >> (4 * (pins - 1 - k))) & 15);
        for (int c = 1; c <= x->colors; c++) most_of[c] = sc[c] > most_of[c] ? sc[c] : most_of[c];
    }
    mm_signature sig;
    plan_signature(&sig, pins, x->colors, at_pin, most_of);
    if (++x->search == 1u << 16) { memset(x->seen, 0, sizeof(uint64_t) * SEEN_SLOTS); x->search = 1; }
    if (++x->set_search == 0) {
        memset(x->set_tag, 0, sizeof(uint32_t) * color_sets(pins, x->colors));
        memset(x->held_tag, 0, sizeof(uint32_t) * color_sets(pins, x->colors));
        x->set_search = 1;
    }
    hold_sets(x, poss, np);
    int scores[9] = {0};  /* how many scores have t pegs in all */
    for (int v = 0; v < x->nvalid; v++) scores[(x->valid[v] >> 4) + (x->valid[v] & 15)]++;
    mm_hope hope = {INT64_MIN, INT64_MAX, np, measure, scores};
    if (++x->prefix_search == 1u << 13) {
        memset(x->prefixes, 0, sizeof(uint64_t) * PREFIX_SLOTS);
        x->prefix_search = 1;
    }
    unsigned mask = 255;
    /* A search of 64 secrets at most probes no table of signatures: scoring by rows drops a loser sooner than a
     * probe would, and a guess splitting the secrets as one scored before it cannot beat the best, as its key is
     * that guess's. Its generator hands over the pin_rows bytes instead of the signatures. Most Parts, which
     * drops no loser early, keeps the table. */
    const int rows_first = lanes <= 64 && x->strategy != MOST_PARTS;
    mm_codes codes;
    const int room = x->n < CHUNK ? x->n : CHUNK;
    for (int pass = 0; pass < 2; pass++) {
        /* Pass 1 keeps pass 0's best: the possible secrets are not scored again, and their keys are odd, so no
         * other guess ties one of them. */
        int64_t marked = best_key, marked_q = q_lost;  /* the best key (and q_lost) set_dead was marked for */
        int made = 0;
        if (pass == 1) {
            hope.best_key = best_key; hope.q_lost = q_lost;
            mark_dead_sets(x, &hope);
            start_codes(&codes, x, poss, np, pins, z, f, &sig, at_pin, (uint64_t)x->search << 48, syms, nsyms,
                        &hope);
            codes.rows_first = rows_first;
            if (rows_first) {
                if (!rows_filled) { fill_rows(x, sp, scn, stride, lanes, pins, bytes, np); rows_filled = 1; }
                class_rows(x, pins - 1, lanes > 32, codes.last_like);
                if (measure && np <= SMALL_SECRETS) {
                    codes.fuse = 1;
                    codes.floor_of_pairs = x->pair_floor + np * (PAIRS + 1);
                    codes.forced_floor = x->forced_floor + np * (PAIRS + 1);
                    plan_run_mates(&codes, x, poss, np, pins);
                }
            }
        }
    for (;;) {  /* pass 1: a chunk of candidates at a time */
        int count = np;
        if (pass == 1) {
            if (best_key != marked || q_lost != marked_q) {
                hope.best_key = marked = best_key; hope.q_lost = marked_q = q_lost;
                mark_dead_sets(x, &hope);
            }
            if (!(count = class_lowest_codes(x, pins, &codes, x->cands, x->sigs, room))) break;
            /* a table twice the candidates so far at least: a small search stays in a few cache lines (one
             * stored under a smaller mask may be missed later, which only costs a twin its scoring) */
            for (made += count; mask < SEEN_SLOTS - 1 && mask < 2u * made; mask = 2 * mask + 1) {}
        }

#else
    for (int pass = 1; pass < 2; pass++) {
        const int count = x->n;
#endif
    for (int t = 0; t < count; t++) {
#ifdef PRUNE
        const int g = pass == 0 ? poss[t] : x->cands[t];
        /* pass 1 skips the possible secrets, or scores them as not possible (see rows_first): no load of
         * inposs[g] per candidate */
        const int is_poss = pass == 0;
        /* the slot of the candidate AHEAD places on is fetched now: a probe is a cache miss */
        if (!rows_first && pass == 1 && t + AHEAD < count && x->sigs[t + AHEAD])
            __builtin_prefetch(x->seen + (seen_slot(x->sigs[t + AHEAD]) & mask), 1);
#else
        const int g = t, is_poss = x->inposs[g];
#endif
        if ((t & 255) == 0 && stopped(x)) { best = -1; goto done; }
#ifndef PRUNE  /* pass 0's guesses are possible secrets, never played; a played guess in pass 1 puts every possible
                 secret in one part, the worst split, and loses to pass 0's best with no test */
        if (x->played[g]) continue;
#endif
#ifdef PRUNE
        if (pass == 0 && !lowest_of_class(x->codes[g], pins, z, f)) continue;
        /* pass 1's generator made no guess with dead colors: they need testing again only for a better best */
        if (pass == 0 || best_key != marked || q_lost != marked_q) {
            hope.best_key = best_key; hope.q_lost = q_lost;
            if (hopeless(x, g, is_poss, &hope)) continue;
        }
        if (nsyms && !lowest_of_orbit(x->codes[g], pins, syms, nsyms, z, f)) continue;
        /* (a possible secret met again scores below its pass 0 key: see rows_first) */
        if (pass == 1 && !rows_first && (seen_before(x, x->sigs[t], mask) || x->inposs[g])) continue;
#endif
        int64_t key;
#ifdef PRUNE
        int64_t q = 0;  /* Expected Size, Entropy: the split's measure */
#endif
#ifdef ROW_BATCH
#ifdef PRUNE
        uint8_t color[8], before[8];
#else
        mmv vp[8], vc[16];
        int used[16], nu = 0;
        const uint8_t *gc = x->counts + 16 * g;
        for (int k = 0; k < pins; k++) vp[k] = mmv_set1((x->codes[g] >> (4 * (pins - 1 - k))) & 15);
        for (int c = 1; c <= x->colors; c++)
            if (gc[c]) { vc[nu] = mmv_set1(gc[c]); used[nu++] = c; }
#define SCORE_AT(i) mmv_score(sp, scn, stride, i, vp, pins, vc, used, nu)
#endif
        /* Knuth: a candidate whose largest part already exceeds what the best so far allows cannot win. */
        int64_t limit = x->strategy == KNUTH && best_key >= 0 ? np - (best_key - is_poss + 2) / 2 : np;
        int lost = 0;
#ifdef PRUNE
        /* Most Parts loses on no count */
        if (x->strategy != MOST_PARTS && ++scanned % ADAPT == 0)
            sort_by_losses(lost_on, order_at, count_order, x->nvalid);
        if (lanes <= 64) {
            /* One row of 64 secrets at most: each part's size is one count (two with 32-byte vectors), ranked as
             * it comes (rank_of_parts, as rank_of, with no table of parts in between). */
            const int two = lanes > MMV_BYTES;
            if (!rows_filled) { fill_rows(x, sp, scn, stride, lanes, pins, bytes, np); rows_filled = 1; }
            const uint64_t sel = pass == 1 && rows_first ? x->sigs[t] : x->pin_rows[g];
            const uint64_t head = sel & ((1ull << (8 * (pins - 1))) - 1);
            if (head != rows_head) {  /* the generator's last pin varies fastest: the others' sum is kept */
                rows_head = head;
                head_sc = score_by_rows(x, sel, 0, pins - 1);
                head_sc2 = two ? score_by_rows(x, sel, MMV_BYTES, pins - 1) : head_sc;
            }
            const uint8_t *last_row = x->rows + (128 * (pins - 1) + ((sel >> (8 * (pins - 1))) & 255)) * ROW_BYTES;
            mmv sc = mmv_add(head_sc, mmv_load(last_row)),
                sc2 = two ? mmv_add(head_sc2, mmv_load(last_row + MMV_BYTES)) : sc;
#define COUNT_EQ(b) (mmv_count_eq(sc, b) + (two ? mmv_count_eq(sc2, b) : 0))
#define COUNT_OF(v) COUNT_EQ(vv[v])
            int largest = 0, parts = 0, size[48];
            /* A split that cannot win is dropped as soon as one part (Knuth) or the measure so far shows it, the
             * counts taken in count_order. */
            if (x->strategy == KNUTH) {  /* the largest part alone */
                int j = 0;
                for (; j < x->nvalid; j++) {
                    const int c = COUNT_EQ(count_order[j]);
                    largest = c > largest ? c : largest;
                    if (largest > limit) break;
                }
                if (j < x->nvalid) { lost_on[j]++; continue; }
            } else if (x->strategy == MOST_PARTS) {  /* the number of parts alone: the scores that occur */
                /* a bit per score (its index in valid[]), one pass over the secrets rather than a count per
                 * score (a count per secret instead was slower for the other strategies: they stop early) */
                uint8_t score[2 * MMV_BYTES] __attribute__((aligned(64)));
                mmv_store(score, sc);
                if (two) mmv_store(score + MMV_BYTES, sc2);
                uint64_t occur = 0;
                for (int i = 0; i < np; i++) occur |= 1ull << x->valid_at[score[i]];
                parts = __builtin_popcountll(occur);
            } else {
                if (measure) {  /* Expected Size, Entropy: the parts are collected only for a split that may win */
                    /* a few secrets: first the least measure a split with as many pairs in one part can have */
                    if (np <= SMALL_SECRETS &&
                        x->pair_floor[np * (PAIRS + 1) + pairs_of(MMV_LOW32(sc), NULL, np)] >= q_lost)
                        continue;
                    int j = 0;
                    for (; j < x->nvalid; j++) {
                        q += measure[COUNT_EQ(count_order[j])];
                        if (q >= q_lost) break;
                    }
                    if (j < x->nvalid) { lost_on[j]++; continue; }
                }
                for (int v = 0; v < x->nvalid; v++) {  /* the parts that occur, in score order, without a branch */
                    int c = COUNT_OF(v);
                    size[parts] = c;
                    parts += c > 0;
                }
            }
#undef COUNT_OF
#undef COUNT_EQ
            key = 2 * rank_of_parts(x, size, parts, largest, np, terms) + is_poss;
            goto ranked;
        }
        for (int k = 0; k < pins; k++) {  /* a pin's row byte is 8 * color + how often the color came before */
            const unsigned row = (x->pin_rows[g] >> (8 * k)) & 255;
            color[k] = row >> 3;
            before[k] = row & 7;
        }
        for (int k = 1; k < pins; k++) {  /* the prefixes this guess does not share with the one before */
            const uint32_t of = x->codes[g] >> (4 * (pins - k));
            if (of != part_of[k]) { part_of[k] = of; part_filled[k] = 0; }
        }
        int64_t so_far = 0;  /* the measure of the counts so far */
        /* A loser other than Knuth's shows only near the end of its count, so it is tested less often: the counts
         * of a larger block cost less each (Knuth's shows early, on one count). */
        const int block = x->strategy == KNUTH ? 256 : BLOCK_MOST;
        int counted[48];  /* the counts in count_order, filed under their scores once the split is kept */
        /* a score with pegs in all that no secret gets against these colors (split_bound) is not counted */
        const uint64_t held = held_scores(x, x->color_set[g], &hope);
        int scan[48], nscan;  /* the scores of count_order (their places in it) this scan counts */
#else
        const int block = 256;
        for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] = 0;
#endif
#ifdef PRUNE
        /* Knuth counts the first KNUTH_FIRST scores of count_order in a first scan: a loser mostly shows on one
         * of them. The secrets it did not count are in the other parts, so where they are no more than its
         * largest part, that is the split's largest; otherwise a second scan counts the other scores. */
        for (int from = 0, to = x->strategy == KNUTH && KNUTH_FIRST < x->nvalid ? KNUTH_FIRST : x->nvalid;;) {
            nscan = 0;
            for (int j = from; j < to; j++)
                if (held >> order_at[j] & 1) scan[nscan++] = j;
                else counted[j] = order_at[j] == 0 ? pad : 0;  /* the padding lanes score 0 */
#endif
        for (int i = 0; i < lanes && !lost; i += block) {  /* a block of secrets at a time, scored, then counted */
            mmv sc[BLOCK_MOST / MMV_BYTES];
            const int m = (lanes - i < block ? lanes - i : block) / MMV_BYTES;
#ifdef PRUNE
/* what pin k of the guess adds to the score of the MMV_BYTES secrets from secret i on */
#define PIN_AT(k, i) mmv_score_pins(sp + (k) * stride, scn, stride, i, color + (k), before + (k), bytes, 1)
            int k = 1;
            while (k < pins && part_filled[k] > i) k++;
            for (; k < pins; k++) {  /* the kept scores from here on are this guess's prefixes' */
                uint8_t *to = part + (size_t)k * stride + i;
                for (int j = 0; j < m * MMV_BYTES; j += MMV_BYTES)
                    mmv_store(to + j, k == 1 ? PIN_AT(0, i + j)
                                             : mmv_add(mmv_load(to - stride + j), PIN_AT(k - 1, i + j)));
                part_filled[k] = i + block;
            }
            for (int j = 0; j < m; j++)
                sc[j] = mmv_add(mmv_load(part + (size_t)(pins - 1) * stride + i + j * MMV_BYTES),
                                PIN_AT(pins - 1, i + j * MMV_BYTES));
#undef PIN_AT
#else
            for (int j = 0; j < m; j++) sc[j] = SCORE_AT(i + j * MMV_BYTES);
#endif
#ifdef PRUNE
            /* Parts only grow, so each count may lose at once: past the limit, or the measure so far past q_lost. */
            const int off = i + block >= lanes ? pad : 0;  /* the padding lanes, all in the last vectors, score 0 */
            /* Knuth's losers mostly show on a block's first counts, and a call cost it more than it saved; its
             * blocks are 256 secrets, and saying so lets the compiler unroll their counts */
            const int e = x->strategy == KNUTH
                          ? count_block(sc, m < 256 / MMV_BYTES ? m : 256 / MMV_BYTES, scan, nscan, count_order,
                                        order_at, counted, i == 0, off, (int)limit, measure, &so_far, q_lost)
                          : count_block_apart(sc, m, scan, nscan, count_order, order_at, counted, i == 0, off,
                                              (int)limit, measure, &so_far, q_lost);
            if (e < nscan) { lost = 1; lost_on[scan[e]]++; }
#else
            for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] += mmv_count_eq_n(sc, m, vv[v]);
#endif
        }
#ifdef PRUNE
            if (lost || to == x->nvalid) break;
            int sum = 0, largest = 0;
            for (int j = 0; j < to; j++) {
                const int c = counted[j] - (order_at[j] == 0 ? pad : 0);
                sum += c;
                largest = c > largest ? c : largest;
            }
            if (np - sum <= largest) {  /* the other parts are left empty: they change neither the largest nor
                                         * the key (the score of no pegs keeps its padding, taken off below) */
                for (int j = to; j < x->nvalid; j++) counted[j] = order_at[j] == 0 ? pad : 0;
                break;
            }
            from = to; to = x->nvalid;
        }
#endif
#undef SCORE_AT
        if (lost) continue;
#ifdef PRUNE
        for (int j = 0; j < x->nvalid; j++) cnt[x->valid[order_at[j]]] = counted[j];
#endif
        cnt[0] -= pad;
#else
        for (int v = 0; v < x->nvalid; v++) cnt[x->valid[v]] = 0;
        for (int i = 0; i < np; i++) cnt[PAIR_SCORE(x, g, poss[i])]++;
#endif
#ifdef PRUNE
        {
            int size[48], largest, parts = parts_of(x, cnt, size, &largest, measure, &q);
            if (q >= q_lost) continue;
            key = 2 * rank_of_parts(x, size, parts, largest, np, terms) + is_poss;
        }
    ranked:
        if (key > best_key) {
            best_key = key; best = g;
            if (measure) {
                q_lost = worse_from(x->strategy, q, np);
                if (np <= TIE_SECRETS) {
                    const int64_t tie = tie_lost(x, np, best_key);
                    q_lost = tie < q_lost ? tie : q_lost;
                }
            }
        }
#else
        key = 2 * rank_of(x, cnt, np, terms) + is_poss;
        if (key > best_key) { best_key = key; best = g; }
#endif
#ifdef PRUNE
        /* Pass 1 runs only while nothing can beat key_max_impossible, the best key of a guess that is not
         * possible: the first to reach it, ascending, is the answer. */
        if (pass == 1 && best_key >= key_max_impossible) break;
#endif
    }
#ifdef PRUNE
        if (pass == 0 || best_key >= key_max_impossible) break;
    }
    /* a possible secret at key_max, or past what any other guess can reach, is the answer */
    if (pass == 0 && (best_key == key_max || best_key > key_max_impossible)) break;
#endif
    }
done:
    for (int i = 0; i < np; i++) x->inposs[poss[i]] = 0;
#ifdef ROW_BATCH
    free(sp);
#endif
    free(terms);
    FREE_MEASURE;
    return best;
}

static int choose(mm_ctx *x, const int *poss, int np) {
    if (np == 1) return poss[0];
    return choose_p(x, poss, np, KNUTH_PINS);
}

/* -- threads: items 0..count) handed out one at a time to `threads` workers, each with its own context ---- */
typedef struct {
    const mm_ctx *proto;
    int count, failed;
    int next;
    void *arg;
    int (*fn)(mm_ctx *x, int item, void *arg); /* non-zero: stop handing out items */
} pool_t;

static void *pool_worker(void *p) {
    pool_t *pool = p;
    mm_ctx x = *pool->proto;
    if (ctx_alloc(&x)) {
        __atomic_store_n(&pool->failed, 1, __ATOMIC_RELAXED);
    } else {
        for (;;) {
            int item = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED);
            if (item >= pool->count || __atomic_load_n(&pool->failed, __ATOMIC_RELAXED)) break;
            if (pool->fn(&x, item, pool->arg)) __atomic_store_n(&pool->failed, 1, __ATOMIC_RELAXED);
        }
    }
    ctx_free(&x);
    return NULL;
}

/* Returns non-zero when an item failed (out of memory, or stopped). */
static int run_pool(const mm_ctx *proto, int threads, int count, int (*fn)(mm_ctx *, int, void *), void *arg) {
    pool_t pool = {proto, count, 0, 0, arg, fn};
    pthread_t tid[64];
    int t = threads < count ? threads : count, started = 0;
    if (t > 64) t = 64;
    for (; started < t - 1; started++)
        if (pthread_create(&tid[started], NULL, pool_worker, &pool)) break;
    pool_worker(&pool); /* the calling thread works too */
    for (int i = 0; i < started; i++) pthread_join(tid[i], NULL);
    return pool.failed;
}

static int threads_or_cores(int threads) {
    if (threads > 0) return threads;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

static int result(const mm_ctx *x, int failed) { return stopped(x) ? 1 : failed ? -1 : 0; }

/* -- each game on its own ------------------------------------------------------------------------------- */
typedef struct { int first; const int32_t *targets; uint8_t *out; int *poss_all; } each_arg;

static int play_one(mm_ctx *x, int t, void *p) {
    each_arg *a = p;
    const int pins = x->pins, n = x->n;
    int *poss = malloc(sizeof(int) * n);
    if (!poss) return 1;
    int secret = a->targets[t], np = n, guess = a->first, count = 1, nplayed = 1;
    for (int i = 0; i < n; i++) poss[i] = i;
    play(x, guess);
    for (;;) {
        int sc = FILTER_SCORE(x, guess, secret);
        if (sc == x->win) break;
        int j = 0;
        for (int i = 0; i < np; i++)
            if (FILTER_SCORE(x, guess, poss[i]) == sc) poss[j++] = poss[i];
        np = j;
        guess = choose(x, poss, np);
        if (guess < 0 || nplayed == MAX_DEPTH) break;
        play(x, guess);
        nplayed++;
        count++;
    }
    for (int i = 0; i < nplayed; i++) unplay(x);
    free(poss);
    if (guess < 0 || nplayed == MAX_DEPTH) return 1;
    a->out[t] = (uint8_t)count;
    __atomic_add_fetch(&x->status[0], 1, __ATOMIC_RELAXED);
    return 0;
}

/* out[t] = guesses to find codes[targets[t]]. Returns 0, 1 when stopped, -1 when out of memory, or 2 for a
 * game of other than KNUTH_PINS pins. */
int knuth_each(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy, int first,
               const int32_t *targets, int nt, uint8_t *out, int threads, int64_t *status) {
    if (pins != KNUTH_PINS) return 2;
    mm_ctx proto;
    if (ctx_init(&proto, pins, colors, codes, counts, n, strategy, status)) { proto_free(&proto); return -1; }
    each_arg a = {first, targets, out, NULL};
    int failed = run_pool(&proto, threads_or_cores(threads), nt, play_one, &a);
    int r = result(&proto, failed);
    proto_free(&proto);
    return r;
}

/* -- all games at once: the tree of score histories ----------------------------------------------------- */
/* One node: poss are the secrets consistent with the history, guess is played now as guess number depth. Parts
 * holding no wanted secret are not explored. Returns non-zero when stopped or out of memory. */
static int node(mm_ctx *x, const int *poss, int np, int guess, int depth, const uint8_t *want, uint8_t *out) {
    const int pins = x->pins;
    int start[129] = {0}, fill[129], failed = 0;
    if (stopped(x) || depth > MAX_DEPTH) return 1;
    uint8_t *sc = malloc(np);
    int *parts = malloc(sizeof(int) * np);
    if (!sc || !parts) { free(sc); free(parts); return 1; }
    for (int i = 0; i < np; i++) { sc[i] = (uint8_t)FILTER_SCORE(x, guess, poss[i]); start[sc[i]]++; }
    int acc = 0;
    for (int v = 0; v < 129; v++) { int c = start[v]; start[v] = fill[v] = acc; acc += c; }
    for (int i = 0; i < np; i++) parts[fill[sc[i]]++] = poss[i];
    free(sc);
    play(x, guess);
    for (int v = 0; v < x->nvalid && !failed; v++) {
        int s = x->valid[v], lo = start[s], m = fill[s] - lo, wanted = 0;
        for (int i = lo; i < lo + m && !wanted; i++) wanted = want[parts[i]];
        if (!wanted) continue;
        if (s == x->win) {
            out[guess] = (uint8_t)depth;
            __atomic_add_fetch(&x->status[0], 1, __ATOMIC_RELAXED);
            continue;
        }
        int next = choose(x, parts + lo, m);
        failed = next < 0 || node(x, parts + lo, m, next, depth + 1, want, out);
    }
    unplay(x);
    free(parts);
    return failed;
}

/* The top of the tree is split into subtrees for the threads: a level's parts are found in order, their next
 * guesses chosen in parallel, until there are enough subtrees; then whole subtrees run in parallel, the largest
 * first. */
typedef struct {
    int *poss, np, guess, depth, path[MAX_DEPTH], npath;
} subtree;

typedef struct { subtree *items; const uint8_t *want; uint8_t *out; } tree_arg;

static void mark(mm_ctx *x, const subtree *s, uint8_t on) {
    for (int i = 0; i < s->npath; i++)
        if (on) play(x, s->path[i]);
        else unplay(x);
}

static int choose_item(mm_ctx *x, int i, void *p) {
    subtree *s = ((tree_arg *)p)->items + i;
    mark(x, s, 1);
    s->guess = choose(x, s->poss, s->np);
    mark(x, s, 0);
    return s->guess < 0;
}

static int run_item(mm_ctx *x, int i, void *p) {
    tree_arg *a = p;
    subtree *s = a->items + i;
    mark(x, s, 1);
    int failed = node(x, s->poss, s->np, s->guess, s->depth, a->want, a->out);
    mark(x, s, 0);
    return failed;
}

static int larger_first(const void *a, const void *b) {
    return ((const subtree *)b)->np - ((const subtree *)a)->np;
}

static void free_items(subtree *items, int count) {
    for (int i = 0; i < count; i++) free(items[i].poss);
    free(items);
}

/* The wanted parts of each item's guess, as new items with no guess yet; games won count and leave. */
static subtree *split_level(mm_ctx *x, subtree *items, int count, const uint8_t *want, uint8_t *out, int *made) {
    const int pins = x->pins;
    int cap = 64, m = 0;
    subtree *next = malloc(sizeof(subtree) * cap);
    for (int i = 0; i < count && next; i++) {
        subtree *s = items + i;
        int size[129] = {0}, wanted[129] = {0}, slot[129];
        for (int v = 0; v < 129; v++) slot[v] = -1;
        uint8_t *sc = malloc(s->np);
        if (!sc) { free_items(next, m); next = NULL; break; }
        for (int j = 0; j < s->np; j++) {
            sc[j] = (uint8_t)FILTER_SCORE(x, s->guess, s->poss[j]);
            size[sc[j]]++;
            wanted[sc[j]] |= want[s->poss[j]];
        }
        for (int v = 0; v < x->nvalid && next; v++) {
            int score = x->valid[v];
            if (!wanted[score]) continue;
            if (score == x->win) {
                out[s->guess] = (uint8_t)s->depth;
                __atomic_add_fetch(&x->status[0], 1, __ATOMIC_RELAXED);
                continue;
            }
            if (m == cap) {
                subtree *grown = realloc(next, sizeof(subtree) * (cap *= 2));
                if (!grown) { free_items(next, m); next = NULL; break; }
                next = grown;
            }
            subtree *c = next + m;
            if (!(c->poss = malloc(sizeof(int) * size[score]))) { free_items(next, m); next = NULL; break; }
            slot[score] = m++;
            c->np = 0; c->guess = -1; c->depth = s->depth + 1;
            memcpy(c->path, s->path, sizeof(int) * s->npath);
            c->npath = s->npath;
            c->path[c->npath++] = s->guess;
        }
        if (next)  /* fill the parts in ascending order of secrets, as node() does */
            for (int j = 0; j < s->np; j++)
                if (slot[sc[j]] >= 0) {
                    subtree *c = next + slot[sc[j]];
                    c->poss[c->np++] = s->poss[j];
                }
        free(sc);
    }
    *made = m;
    return next;
}

/* out[i] = guesses to find codes[i], for every i with want[i]. Returns 0, 1 when stopped, -1 when out of
 * memory, or 2 for a game of other than KNUTH_PINS pins. */
int knuth_shared(int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n, int strategy,
                 int first, const uint8_t *want, uint8_t *out, int threads, int64_t *status) {
    if (pins != KNUTH_PINS) return 2;
    mm_ctx proto;
    if (ctx_init(&proto, pins, colors, codes, counts, n, strategy, status)) { proto_free(&proto); return -1; }
    threads = threads_or_cores(threads);
    subtree *items = malloc(sizeof(subtree));
    int count = 1, failed = !items;
    if (items) {
        items[0].poss = malloc(sizeof(int) * n);
        items[0].np = n; items[0].guess = first; items[0].depth = 1; items[0].npath = 0;
        failed = !items[0].poss;
        if (!failed) for (int i = 0; i < n; i++) items[0].poss[i] = i;
    }
    /* Split while the subtrees are too few to keep every thread busy to the end (or too large). */
    while (!failed && threads > 1 && count > 0 && count < 16 * threads && items[0].depth < 4) {
        int made = 0;
        subtree *next = split_level(&proto, items, count, want, out, &made);
        free_items(items, count);
        items = next, count = made;
        if (!items) { failed = 1; break; }
        /* the largest searches first, so that none is left to run alone at the end */
        qsort(items, count, sizeof(subtree), larger_first);
        tree_arg a = {items, want, out};
        failed = run_pool(&proto, threads, count, choose_item, &a);
    }
    if (!failed && count) {
        qsort(items, count, sizeof(subtree), larger_first);
        tree_arg a = {items, want, out};
        failed = run_pool(&proto, threads, count, run_item, &a);
    }
    if (items) free_items(items, count);
    int r = result(&proto, failed);
    proto_free(&proto);
    return r;
}
