/* The pruned search: the plain search's answer (knuth_plain.h, every codeword scored), found by scoring far fewer
 * guesses. Each shortcut skips only guesses that a lower codeword matches or beats, so every strategy's tie-break
 * stays exact:
 * - candidates (knuth_codes.h): only the lowest codeword of each class of interchangeable colors (Ville's free
 *   colors, and colors no possible secret holds) and of each orbit of Ville's symmetric codewords (pin and color
 *   permutations fixing the guesses played); a guess scoring every possible secret as an earlier one does (same
 *   signature; a search of 64 secrets or fewer scores it instead, see rows_first), one that two of its pins'
 *   colors, swapped, make lower with the same scores (swap_lower), and one whose last pin adds the same scores as a
 *   lower color's (class_rows) are not made;
 * - bounds (knuth_bounds.h): a guess whose colors alone show it cannot win (split_bound: the pegs in all depend on
 *   the colors only), or, in a search of 32 secrets or fewer, the pairs of secrets it leaves in one part
 *   (pair_floor; Expected Size and Entropy; the generator scores these itself); a split stops being counted as soon
 *   as it shows it cannot win;
 * - order: the possible secrets go first, so the search ends when one of them reaches the best key any guess could,
 *   and the scan of the other codewords ends at the first to reach the best key a guess that is not possible could.
 * The scoring: byte-sliced rows of possible secrets (the including file picks the vector width), a search of 64
 * secrets or fewer by adding one row of a per-search pin table per pin, a larger one a block of secrets at a time.
 *
 * choose() runs a search: search_start works out what both passes read (mm_search), try_possible scores the
 * possible secrets (pass 0), try_others the other codewords (pass 1), each guess through try_guess, which scores it
 * (key_by_rows, key_in_blocks) and keeps the best (mm_run). */
#ifndef KNUTH_PRUNED_H
#define KNUTH_PRUNED_H
#include "knuth_game.h"
#include "knuth_rank.h"
#include "knuth_exact.h"

#define SMALL_SECRETS 32 /* searches of this many secrets or fewer count their split's pairs first (pair_floor) */
#define PAIRS (SMALL_SECRETS * (SMALL_SECRETS - 1) / 2)
#define TIE_SECRETS 16 /* searches of this many secrets or fewer know the best rank of every measure (see tie_lost) */

struct mm_ctx {
    MM_GAME_FIELDS
    uint8_t *inposs;               /* per thread: n flags, set during one search */
    int *cands;                    /* per thread: n slots for the candidates of one search */
    uint64_t *sigs;                /* per thread: their signatures (see class_lowest_codes) */
    uint64_t *seen;                /* per thread: the guess signatures of one search, tagged (see seen_before) */
    uint32_t search;               /* the current search's tag, 1..0xFFFF */
    uint64_t *prefixes;            /* per thread: the signatures of the first pins met in one search, tagged */
    uint32_t prefix_search;        /* their search's tag, 1..0x1FFF */
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
    /* shared, Expected Size and Entropy: per number of secrets n <= SMALL_SECRETS and of pairs of them in one
     * part, the least measure of a split of n secrets with that many such pairs (see least_measures) */
    int64_t *pair_floor;
    int64_t *forced_floor;         /* the same for splits with that many pairs or more (see pairs_of) */
    /* shared, Expected Size and Entropy: per n <= TIE_SECRETS, the measures a split of n secrets can have,
     * ascending, from tie_at[n] to tie_at[n + 1], each with the best rank of a split with that measure or more */
    int64_t *tie_measure, *tie_rank;
    int tie_at[TIE_SECRETS + 2];
};
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

#include "knuth_sets.h"
#include "knuth_bounds.h"
#include "knuth_codes.h"

/* One thread's own buffers (a copied context gets new ones). */
static int ctx_alloc(mm_ctx *x) {
    x->inposs = calloc(x->n, 1);
    x->seen = calloc(SEEN_SLOTS, sizeof(uint64_t));
    x->prefixes = calloc(PREFIX_SLOTS, sizeof(uint64_t));
    x->prefix_search = 0;
    x->cands = malloc(sizeof(int) * x->n);
    x->sigs = malloc(sizeof(uint64_t) * x->n);
    x->search = 0;
    x->rows = aligned_alloc(64, ROW_BYTES * 128 * KNUTH_PINS);
    int sets_ok = 1;
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
    return x->inposs && x->seen && x->prefixes && x->cands && x->sigs && x->rows && sets_ok ? 0 : -1;
}

static int ctx_init(mm_ctx *x, int pins, int colors, const uint32_t *codes, const uint8_t *counts, int n,
                    int strategy, int arithmetic, const int32_t (*sfu)[3], int64_t *status) {
    game_init(x, pins, colors, codes, counts, n, strategy, arithmetic, sfu, status);
    x->color_set = NULL; x->set_code = NULL; x->sub_next = NULL; x->pair_floor = NULL;
    x->forced_floor = NULL; x->tie_measure = NULL; x->tie_rank = NULL;
    memset(x->with_pegs, 0, sizeof x->with_pegs);
    for (int v = 0; v < x->nvalid; v++) x->with_pegs[(x->valid[v] >> 4) + (x->valid[v] & 15)] |= 1ull << v;
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
    return 0;
}

static void ctx_free(mm_ctx *x) {
    free(x->inposs); free(x->seen); free(x->cands); free(x->sigs); free(x->prefixes); free(x->rows);
    free(x->set_bound); free(x->set_held); free(x->set_tag); free(x->held_tag); free(x->held_at); free(x->held_by);
    free(x->held_count); free(x->set_dead); free(x->sub_live);
}

/* The prototype context also holds what its copies share. */
static void proto_free(mm_ctx *x) {
    ctx_free(x); free(x->pin_rows); free(x->color_set); free(x->set_code); free(x->sub_next); free(x->pair_floor);
    free(x->forced_floor); free(x->tie_measure); free(x->tie_rank);
}


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


/* -- one search ---------------------------------------------------------------------------------------------- */
/* What a search works out once and its two passes read: the possible secrets byte-sliced, the count order, the
 * classes of interchangeable colors, the symmetries, the signature plan and the bounds' state. */
typedef struct {
    const int *poss;
    int np;
    mm_terms terms;               /* the float terms of rank_of_parts */
    int64_t *measure;             /* Expected Size, Entropy: see make_measure */
    double *xlogx;                /* exact Entropy: s * log(s) per part size s, for entropy_order */
    /* The possible secrets byte-sliced (pins at sp, color counts at scn), padded with zero lanes to stride, a
     * multiple of 64; the vectors scored cover lanes, and padded lanes score 0 and come off the count of score 0
     * (in a search scored by rows they score distinct bytes that are no score, counted by none: see fill_rows). */
    uint8_t *sp, *scn;
    int stride, lanes, pad;
    /* Guesses scored one after another mostly share their first pins (the generator goes depth first). So for a
     * search of more than 64 secrets, each secret's score from the first k pins of the latest guess is kept at
     * part + k * stride (k = 1 .. pins - 1), for the secrets before part_filled[k], while later guesses have the
     * same first k pins (part_of[k]): a guess adds only the pins where it differs from the guess before. */
    uint8_t *part;
    uint32_t part_of[8];
    int part_filled[8];
    mmv vv[48], bytes[16];        /* each valid score, and each byte 0..15, in every lane */
    /* A split's parts are counted in count_order, at first big_first's order with the score of no pegs last (a
     * loser is seldom dropped on that part); then, for every strategy but Most Parts, it is sorted again every
     * ADAPT scored guesses, the counts on which most losers showed first. */
    mmv count_order[48];
    int order_at[48];             /* valid[]'s index of each count */
    int lost_on[48];              /* how many losers showed on each count */
    int rows_filled;              /* fill_rows runs once a search: when a guess is first scored by rows, or pass 1 */
    /* A search of 64 secrets at most probes no table of signatures: scoring by rows drops a loser sooner than a
     * probe would, and a guess splitting the secrets as one scored before it cannot beat the best, as its key is
     * that guess's. Its generator hands over the pin_rows bytes instead of the signatures. Most Parts, which drops
     * no loser early, keeps the table. */
    int rows_first;
    /* Only a possible secret reaches the best reachable key, so when one does, the lowest such one is the answer
     * and the scan of all codewords is skipped (pass 0 tries the possible secrets, ascending, first). */
    int64_t key_max, key_max_impossible;
    /* Interchangeable colors: those no possible secret holds (z), and those never played that some possible
     * secret holds (f). Relabelling colors within z or within f leaves a guess's part for every score and its
     * membership in the possible set unchanged, so only the lowest codeword of each such class can be chosen. */
    unsigned z, f;
    mm_sym syms[MAX_SYMS];
    int nsyms;
    /* Pass 1 scores one guess per signature (see seen_before): a later guess with an earlier one's signature
     * splits the possible secrets alike, so it cannot win the tie-break (possible guesses were settled in pass 0,
     * their signatures stored as pass 1 meets them). */
    unsigned at_pin[8];
    mm_signature sig;
    unsigned mask;                /* the part of the signature table in use (see try_others) */
    int scores[9];                /* how many scores have t pegs in all */
    mm_hope hope;
    mm_codes codes;
} mm_search;

/* The best guess so far and what the scoring loop changes per guess, apart from mm_search so that they can live in
 * registers: the best's index, its key (2 * rank + possible; exact Entropy: 2 * -q + possible, its measure q
 * deciding only where far from the best's, see entropy_beats) and, for Expected Size and Entropy, its measure and
 * the least measure of a split that cannot beat it (see worse_from); how many guesses were scored; and the sum of
 * the first pins' rows of the latest guess scored by rows (head; its row bytes in rows_head: no row byte is 255).
 * Exact Entropy keeps the best's parts too. */
typedef struct {
    int best, failed;
    int64_t best_key, best_q, q_lost;
    int best_size[48], best_parts;
    double best_d;
    int scanned;
    uint64_t rows_head;
    mmv head_sc, head_sc2;
} mm_run;

#define LOST INT64_MIN /* the key of a guess whose split shows that it cannot win: never above the best */

/* The search of poss[0..np): everything in mm_search, and the possible secrets flagged in inposs. */
static int search_start(mm_ctx *x, mm_search *s, const int *poss, int np) {
    const int pins = KNUTH_PINS;
    s->poss = poss; s->np = np;
    const int failed_terms = make_terms(&s->terms, x->strategy, x->arithmetic, np, x->sfu);
    s->measure = make_measure(x->strategy, np);
    s->xlogx = x->strategy == ENTROPY && x->arithmetic == EXACT ? malloc(sizeof(double) * (np + 1)) : NULL;
    s->stride = (np + 63) & ~63;
    s->lanes = (np + MMV_BYTES - 1) / MMV_BYTES * MMV_BYTES;
    s->pad = s->lanes - np;
    /* 8 rows of pins, 16 of color counts, and the prefixes' scores (see part) */
    s->sp = aligned_alloc(64, (size_t)s->stride * (24 + KNUTH_PINS));
    if (!s->sp || failed_terms || (x->strategy >= EXPECTED_SIZE && !s->measure) ||
        (x->strategy == ENTROPY && x->arithmetic == EXACT && !s->xlogx)) {
        free(s->sp); free_terms(&s->terms); free(s->measure); free(s->xlogx);
        return -1;
    }
    if (s->xlogx)
        for (int v = 0; v <= np; v++) s->xlogx[v] = v ? v * log((double)v) : 0;
    s->scn = s->sp + (size_t)s->stride * 8;
    s->part = s->sp + (size_t)s->stride * 24;
    memset(s->sp, 0, (size_t)s->stride * 24);
    for (int i = 0; i < np; i++) {
        uint8_t gp[8];
        pins_of(x->codes[poss[i]], pins, gp);
        for (int k = 0; k < pins; k++) s->sp[k * s->stride + i] = gp[k];
        for (int c = 1; c <= x->colors; c++) s->scn[c * s->stride + i] = x->counts[16 * poss[i] + c];
        x->inposs[poss[i]] = 1;
    }
    for (int k = 0; k < 8; k++) { s->part_of[k] = 0xFFFFFFFFu; s->part_filled[k] = 0; }  /* codes are below it */
    for (int v = 0; v < x->nvalid; v++) s->vv[v] = mmv_set1(x->valid[v]);
    for (int b = 0; b < 16; b++) s->bytes[b] = mmv_set1(b);
    for (int j = 0; j < x->nvalid; j++) {
        s->order_at[j] = j + 1 < x->nvalid ? x->big_first[j + 1] : 0;
        s->count_order[j] = s->vv[s->order_at[j]];
        s->lost_on[j] = 0;
    }
    s->rows_filled = 0;
    s->rows_first = s->lanes <= 64 && x->strategy != MOST_PARTS;
    s->key_max = best_reachable(x, np, &s->terms, 1);
    s->key_max_impossible = best_reachable(x, np, &s->terms, 0);
    unsigned played_colors = 0, present = 0;
    const unsigned all = ((1u << (x->colors + 1)) - 1) & ~1u;
    uint32_t path[MAX_DEPTH + 1];
    for (int i = 0; i < x->npath; i++) {
        path[i] = x->codes[x->path[i]];
        played_colors |= color_mask(path[i], pins);
    }
    s->nsyms = find_syms(path, x->npath, pins, s->syms, MAX_SYMS);
    for (int i = 0; i < np; i++) present |= color_mask(x->codes[poss[i]], pins);
    s->z = all & ~present;
    s->f = all & present & ~played_colors;
    uint8_t most_of[16] = {0};
    memset(s->at_pin, 0, sizeof s->at_pin);
    for (int i = 0; i < np; i++) {
        const uint8_t *sc = x->counts + 16 * poss[i];
        for (int k = 0; k < pins; k++) s->at_pin[k] |= 1u << ((x->codes[poss[i]] >> (4 * (pins - 1 - k))) & 15);
        for (int c = 1; c <= x->colors; c++) most_of[c] = sc[c] > most_of[c] ? sc[c] : most_of[c];
    }
    plan_signature(&s->sig, pins, x->colors, s->at_pin, most_of);
    if (++x->search == 1u << 16) { memset(x->seen, 0, sizeof(uint64_t) * SEEN_SLOTS); x->search = 1; }
    if (++x->set_search == 0) {
        memset(x->set_tag, 0, sizeof(uint32_t) * color_sets(pins, x->colors));
        memset(x->held_tag, 0, sizeof(uint32_t) * color_sets(pins, x->colors));
        x->set_search = 1;
    }
    hold_sets(x, poss, np);
    memset(s->scores, 0, sizeof s->scores);
    for (int v = 0; v < x->nvalid; v++) s->scores[(x->valid[v] >> 4) + (x->valid[v] & 15)]++;
    s->hope = (mm_hope){INT64_MIN, INT64_MAX, np, s->measure, s->scores};
    if (++x->prefix_search == 1u << 13) {
        memset(x->prefixes, 0, sizeof(uint64_t) * PREFIX_SLOTS);
        x->prefix_search = 1;
    }
    s->mask = 255;
    return 0;
}

static void search_end(mm_ctx *x, mm_search *s) {
    for (int i = 0; i < s->np; i++) x->inposs[s->poss[i]] = 0;
    free(s->sp);
    free_terms(&s->terms);
    free(s->measure);
    free(s->xlogx);
}

/* The key of a split kept: 2 * rank + is_poss; exact Entropy's, which has no integer rank, 2 * -q + is_poss, exact
 * only where q is 0 (every part a single secret) and otherwise decided by entropy_beats. */
MM_INLINE int64_t key_of(const mm_ctx *x, const mm_search *s, const int *size, int parts, int largest, int64_t q,
                         int is_poss) {
    if (x->strategy == ENTROPY && x->arithmetic == EXACT) return 2 * -q + is_poss;
    return 2 * rank_of_parts(x->strategy, x->arithmetic, size, parts, largest, s->np, &s->terms) + is_poss;
}

/* The pin table's rows, once a search (see fill_rows). */
MM_INLINE void need_rows(mm_ctx *x, mm_search *s) {
    if (!s->rows_filled) {
        fill_rows(x, s->sp, s->scn, s->stride, s->lanes, KNUTH_PINS, s->bytes, s->np);
        s->rows_filled = 1;
    }
}

/* The key of a guess against 64 secrets at most, or LOST: sel holds its pins' row bytes (pin_rows), so the score
 * is one row per pin added, and each part's size one count (two with 32-byte vectors), ranked as it comes
 * (rank_of_parts, with no table of parts in between). A split that cannot win is dropped as soon as one part
 * (Knuth: past limit) or the measure so far (Expected Size, Entropy: at q_lost) shows it, the counts taken in
 * count_order; *q gets the measure of a split kept. */
MM_INLINE int64_t key_by_rows(mm_ctx *x, mm_search *s, mm_run *r, uint64_t sel, int is_poss, int64_t limit,
                              int64_t *q, int *size, int *parts_out) {
    const int pins = KNUTH_PINS, np = s->np, two = s->lanes > MMV_BYTES;
    need_rows(x, s);
    const uint64_t head = sel & ((1ull << (8 * (pins - 1))) - 1);
    if (head != r->rows_head) {  /* the generator's last pin varies fastest: the others' sum is kept */
        r->rows_head = head;
        r->head_sc = score_by_rows(x, sel, 0, pins - 1);
        r->head_sc2 = two ? score_by_rows(x, sel, MMV_BYTES, pins - 1) : r->head_sc;
    }
    const uint8_t *last_row = x->rows + (128 * (pins - 1) + ((sel >> (8 * (pins - 1))) & 255)) * ROW_BYTES;
    const mmv sc = mmv_add(r->head_sc, mmv_load(last_row)),
              sc2 = two ? mmv_add(r->head_sc2, mmv_load(last_row + MMV_BYTES)) : sc;
#define COUNT_EQ(b) (mmv_count_eq(sc, b) + (two ? mmv_count_eq(sc2, b) : 0))
    int largest = 0, parts = 0;
    if (x->strategy == KNUTH) {  /* the largest part alone */
        int j = 0;
        for (; j < x->nvalid; j++) {
            const int c = COUNT_EQ(s->count_order[j]);
            largest = c > largest ? c : largest;
            if (largest > limit) break;
        }
        if (j < x->nvalid) { s->lost_on[j]++; return LOST; }
    } else if (x->strategy == MOST_PARTS) {  /* the number of parts alone: the scores that occur */
        /* a bit per score (its index in valid[]), one pass over the secrets rather than a count per score (a count
         * per secret instead was slower for the other strategies: they stop early) */
        uint8_t score[2 * MMV_BYTES] __attribute__((aligned(64)));
        mmv_store(score, sc);
        if (two) mmv_store(score + MMV_BYTES, sc2);
        uint64_t occur = 0;
        for (int i = 0; i < np; i++) occur |= 1ull << x->valid_at[score[i]];
        parts = __builtin_popcountll(occur);
    } else {  /* Expected Size, Entropy: the parts are collected only for a split that may win */
        /* a few secrets: first the least measure a split with as many pairs in one part can have */
        if (np <= SMALL_SECRETS && x->pair_floor[np * (PAIRS + 1) + pairs_of(MMV_LOW32(sc), NULL, np)] >= r->q_lost)
            return LOST;
        int j = 0;
        for (; j < x->nvalid; j++) {
            *q += s->measure[COUNT_EQ(s->count_order[j])];
            if (*q >= r->q_lost) break;
        }
        if (j < x->nvalid) { s->lost_on[j]++; return LOST; }
        for (int v = 0; v < x->nvalid; v++) {  /* the parts that occur, in score order, without a branch */
            const int c = COUNT_EQ(s->vv[v]);
            size[parts] = c;
            parts += c > 0;
        }
    }
#undef COUNT_EQ
    *parts_out = parts;
    return key_of(x, s, size, parts, largest, *q, is_poss);
}

/* The scores of a guess (its pins' colors, and how often each came before) against the block of m vectors of
 * secrets from secret i on, into sc; the kept scores of its prefixes are brought up to date on the way. */
MM_INLINE void score_block(mm_search *s, const uint8_t *color, const uint8_t *before, int i, int m,
                           int block, mmv *sc) {
    const int pins = KNUTH_PINS, stride = s->stride;
/* what pin k of the guess adds to the score of the MMV_BYTES secrets from secret i on */
#define PIN_AT(k, i) mmv_score_pins(s->sp + (k) * stride, s->scn, stride, i, color + (k), before + (k), s->bytes, 1)
    int k = 1;
    while (k < pins && s->part_filled[k] > i) k++;
    for (; k < pins; k++) {  /* the kept scores from here on are this guess's prefixes' */
        uint8_t *to = s->part + (size_t)k * stride + i;
        for (int j = 0; j < m * MMV_BYTES; j += MMV_BYTES)
            mmv_store(to + j, k == 1 ? PIN_AT(0, i + j) : mmv_add(mmv_load(to - stride + j), PIN_AT(k - 1, i + j)));
        s->part_filled[k] = i + block;
    }
    for (int j = 0; j < m; j++)
        sc[j] = mmv_add(mmv_load(s->part + (size_t)(pins - 1) * stride + i + j * MMV_BYTES),
                        PIN_AT(pins - 1, i + j * MMV_BYTES));
#undef PIN_AT
}

/* The key of guess g against more than 64 secrets, or LOST: scored a block of secrets at a time and counted in
 * count_order, each count losing at once where the split cannot win (past limit, or the measure so far at q_lost),
 * since parts only grow. A score with pegs in all that no secret gets against g's colors (split_bound) is not
 * counted. Knuth counts the first KNUTH_FIRST scores of count_order in a first scan: a loser mostly shows on one of
 * them. The secrets it did not count are in the other parts, so where they are no more than its largest part, that
 * is the split's largest; otherwise a second scan counts the other scores. */
MM_INLINE int64_t key_in_blocks(mm_ctx *x, mm_search *s, const mm_run *r, int g, int is_poss, int64_t limit,
                                int64_t *q, int *size, int *parts_out) {
    const int pins = KNUTH_PINS, np = s->np, lanes = s->lanes, pad = s->pad;
    uint8_t color[8], before[8];
    for (int k = 0; k < pins; k++) {  /* a pin's row byte is 8 * color + how often the color came before */
        const unsigned row = (x->pin_rows[g] >> (8 * k)) & 255;
        color[k] = row >> 3;
        before[k] = row & 7;
    }
    for (int k = 1; k < pins; k++) {  /* the prefixes this guess does not share with the one before */
        const uint32_t of = x->codes[g] >> (4 * (pins - k));
        if (of != s->part_of[k]) { s->part_of[k] = of; s->part_filled[k] = 0; }
    }
    int64_t so_far = 0;  /* the measure of the counts so far */
    /* A loser other than Knuth's shows only near the end of its count, so it is tested less often: the counts of a
     * larger block cost less each (Knuth's shows early, on one count). */
    const int block = x->strategy == KNUTH ? 256 : BLOCK_MOST;
    int counted[48];  /* the counts in count_order, filed under their scores once the split is kept */
    const uint64_t held = held_scores(x, x->color_set[g], &s->hope);
    int scan[48], nscan, lost = 0;  /* scan: the scores of count_order (their places in it) this scan counts */
    for (int from = 0, to = x->strategy == KNUTH && KNUTH_FIRST < x->nvalid ? KNUTH_FIRST : x->nvalid;;) {
        nscan = 0;
        for (int j = from; j < to; j++)
            if (held >> s->order_at[j] & 1) scan[nscan++] = j;
            else counted[j] = s->order_at[j] == 0 ? pad : 0;  /* the padding lanes score 0 */
        for (int i = 0; i < lanes && !lost; i += block) {  /* a block of secrets at a time, scored, then counted */
            mmv sc[BLOCK_MOST / MMV_BYTES];
            const int m = (lanes - i < block ? lanes - i : block) / MMV_BYTES;
            score_block(s, color, before, i, m, block, sc);
            const int off = i + block >= lanes ? pad : 0;  /* the padding lanes, all in the last vectors, score 0 */
            /* Knuth's losers mostly show on a block's first counts, and a call cost it more than it saved; its
             * blocks are 256 secrets, and saying so lets the compiler unroll their counts */
            const int e = x->strategy == KNUTH
                          ? count_block(sc, m < 256 / MMV_BYTES ? m : 256 / MMV_BYTES, scan, nscan, s->count_order,
                                        s->order_at, counted, i == 0, off, (int)limit, s->measure, &so_far, r->q_lost)
                          : count_block_apart(sc, m, scan, nscan, s->count_order, s->order_at, counted, i == 0, off,
                                              (int)limit, s->measure, &so_far, r->q_lost);
            if (e < nscan) { lost = 1; s->lost_on[scan[e]]++; }
        }
        if (lost || to == x->nvalid) break;
        int sum = 0, largest = 0;
        for (int j = 0; j < to; j++) {
            const int c = counted[j] - (s->order_at[j] == 0 ? pad : 0);
            sum += c;
            largest = c > largest ? c : largest;
        }
        if (np - sum <= largest) {  /* the other parts are left empty: they change neither the largest nor the key
                                     * (the score of no pegs keeps its padding, taken off below) */
            for (int j = to; j < x->nvalid; j++) counted[j] = s->order_at[j] == 0 ? pad : 0;
            break;
        }
        from = to; to = x->nvalid;
    }
    if (lost) return LOST;
    int cnt[129];
    for (int j = 0; j < x->nvalid; j++) cnt[x->valid[s->order_at[j]]] = counted[j];
    cnt[0] -= pad;
    int largest, parts = parts_of(x->valid, x->nvalid, cnt, size, &largest, s->measure, q);
    if (*q >= r->q_lost) return LOST;
    *parts_out = parts;
    return key_of(x, s, size, parts, largest, *q, is_poss);
}

/* Exact Entropy: whether a split kept (its measure q, parts size[0..parts)) beats the best so far: a lower S, as
 * its measure shows where far enough from the best's (ENTROPY_SLACK_Q), else as entropy_order finds it; an equal S
 * does not, the best having been met first. Sets r->failed when out of memory. */
MM_INLINE int entropy_beats(const mm_search *s, mm_run *r, const int *size, int parts, int64_t q, double *d) {
    *d = 0;
    for (int p = 0; p < parts; p++) *d += s->xlogx[size[p]];
    if (r->best < 0 || q <= r->best_q - ENTROPY_SLACK_Q) return 1;
    const int order = entropy_order(size, parts, *d, r->best_size, r->best_parts, r->best_d);
    r->failed |= order == -2;
    return order == -1;
}

/* Guess g scored (sel: its pin_rows bytes, or the generator's; is_poss: a possible secret), and kept where it
 * beats the best: a higher key, as equal keys go to the guess met first. */
MM_INLINE void try_guess(mm_ctx *x, mm_search *s, mm_run *r, int g, uint64_t sel, int is_poss) {
    /* Knuth: a guess whose largest part already exceeds what the best so far allows cannot win */
    const int64_t limit = x->strategy == KNUTH && r->best_key >= 0 ? s->np - (r->best_key - is_poss + 2) / 2 : s->np;
    if (x->strategy != MOST_PARTS && ++r->scanned % ADAPT == 0)  /* Most Parts loses on no count */
        sort_by_losses(s->lost_on, s->order_at, s->count_order, x->nvalid);
    int64_t q = 0;  /* Expected Size, Entropy: the split's measure */
    int size[48], parts = 0;
    const int64_t key = s->lanes <= 64 ? key_by_rows(x, s, r, sel, is_poss, limit, &q, size, &parts)
                                       : key_in_blocks(x, s, r, g, is_poss, limit, &q, size, &parts);
    if (key == LOST) return;
    double d = 0;
    if (s->xlogx ? !entropy_beats(s, r, size, parts, q, &d) : key <= r->best_key) return;
    r->best_key = key;
    r->best = g;
    if (s->measure) {
        r->best_q = q;
        r->q_lost = worse_from(x->strategy, x->arithmetic, q, key >> 1, s->np);
        if (s->np <= TIE_SECRETS) {
            const int64_t tie = tie_lost(x, s->np, key);
            r->q_lost = tie < r->q_lost ? tie : r->q_lost;
        }
    }
    if (s->xlogx) {
        memcpy(r->best_size, size, sizeof(int) * parts);
        r->best_parts = parts;
        r->best_d = d;
    }
}

/* Pass 0: the possible secrets, ascending, each the lowest of its color class and its orbit. Their keys are odd, so
 * no later guess ties one of them. Returns -1 when stopped. */
MM_INLINE int try_possible(mm_ctx *x, mm_search *s, mm_run *r) {
    for (int t = 0; t < s->np; t++) {
        const int g = s->poss[t];
        if ((t & 255) == 0 && stopped(x)) return -1;
        if (!lowest_of_class(x->codes[g], KNUTH_PINS, s->z, s->f)) continue;
        s->hope.best_key = r->best_key; s->hope.q_lost = r->q_lost;
        if (hopeless(x, g, 1, &s->hope)) continue;
        if (s->nsyms && !lowest_of_orbit(x->codes[g], KNUTH_PINS, s->syms, s->nsyms, s->z, s->f)) continue;
        try_guess(x, s, r, g, x->pin_rows[g], 1);
    }
    return 0;
}

/* Pass 1: the codewords that are not possible, a chunk at a time from the generator (class_lowest_codes), which
 * leaves out the colors found dead (mark_dead_sets) and, in a search scored by rows, the last pins that add a lower
 * color's row and the guesses whose pairs of secrets in one part lose (fuse). It ends at the first guess reaching
 * key_max_impossible, the best key a guess that is not possible can have. No played guess is tested for: a played
 * guess puts every possible secret in one part, the worst split, and loses to pass 0's best. Returns -1 when
 * stopped. */
MM_INLINE int try_others(mm_ctx *x, mm_search *s, mm_run *r) {
    const int pins = KNUTH_PINS, np = s->np, room = x->n < CHUNK ? x->n : CHUNK;
    int64_t marked = r->best_key, marked_q = r->q_lost;  /* the best key (and q_lost) set_dead was marked for */
    s->hope.best_key = r->best_key; s->hope.q_lost = r->q_lost;
    mark_dead_sets(x, &s->hope);
    start_codes(&s->codes, x, s->poss, np, pins, s->z, s->f, &s->sig, s->at_pin, (uint64_t)x->search << 48, s->syms,
                s->nsyms, &s->hope);
    s->codes.rows_first = s->rows_first;
    if (s->rows_first) {
        need_rows(x, s);
        class_rows(x, pins - 1, s->lanes > 32, s->codes.last_like);
        if (s->measure && np <= SMALL_SECRETS) {
            s->codes.fuse = 1;
            s->codes.floor_of_pairs = x->pair_floor + np * (PAIRS + 1);
            s->codes.forced_floor = x->forced_floor + np * (PAIRS + 1);
            plan_run_mates(&s->codes, x, s->poss, np, pins);
        }
    }
    for (int made = 0;;) {
        if (r->best_key != marked || r->q_lost != marked_q) {
            s->hope.best_key = marked = r->best_key; s->hope.q_lost = marked_q = r->q_lost;
            mark_dead_sets(x, &s->hope);
        }
        const int count = class_lowest_codes(x, pins, &s->codes, x->cands, x->sigs, room);
        if (!count) return 0;
        /* a table twice the candidates so far at least: a small search stays in a few cache lines (one stored
         * under a smaller mask may be missed later, which only costs a twin its scoring) */
        for (made += count; s->mask < SEEN_SLOTS - 1 && s->mask < 2u * made; s->mask = 2 * s->mask + 1) {}
        for (int t = 0; t < count; t++) {
            const int g = x->cands[t];
            /* the slot of the candidate AHEAD places on is fetched now: a probe is a cache miss */
            if (!s->rows_first && t + AHEAD < count && x->sigs[t + AHEAD])
                __builtin_prefetch(x->seen + (seen_slot(x->sigs[t + AHEAD]) & s->mask), 1);
            if ((t & 255) == 0 && stopped(x)) return -1;
            /* the generator made no guess with dead colors: they need testing again only for a better best */
            if (r->best_key != marked || r->q_lost != marked_q) {
                s->hope.best_key = r->best_key; s->hope.q_lost = r->q_lost;
                if (hopeless(x, g, 0, &s->hope)) continue;
            }
            if (s->nsyms && !lowest_of_orbit(x->codes[g], pins, s->syms, s->nsyms, s->z, s->f)) continue;
            /* a possible secret met again scores below its pass 0 key (see rows_first) */
            if (!s->rows_first && (seen_before(x, x->sigs[t], s->mask) || x->inposs[g])) continue;
            try_guess(x, s, r, g, s->rows_first ? x->sigs[t] : x->pin_rows[g], 0);
            if (r->best_key >= s->key_max_impossible) return 0;
        }
    }
}

/* The next guess for the possible secrets poss[0..np), or -1 when stopped or out of memory: the possible secrets
 * first, then, unless one of them is sure to be the answer, the other codewords. */
static int choose(mm_ctx *x, const int *poss, int np) {
    if (np == 1) return poss[0];
    mm_search s;
    if (search_start(x, &s, poss, np)) return -1;
    mm_run r = {.best = -1, .failed = 0, .best_key = INT64_MIN, .best_q = INT64_MAX, .q_lost = INT64_MAX,
                .best_parts = 0, .scanned = 0, .rows_head = ~0ull};
    r.head_sc = r.head_sc2 = mmv_set1(0);
    int stopped_here = try_possible(x, &s, &r);
    /* a possible secret at key_max, or past what any other guess can reach, is the answer */
    if (!stopped_here && !(r.best_key == s.key_max || r.best_key > s.key_max_impossible))
        stopped_here = try_others(x, &s, &r);
    search_end(x, &s);
    return stopped_here || r.failed ? -1 : r.best;
}

#include "knuth_drivers.h"
#endif
