/* The pruned search's candidates (knuth_pruned.h includes this after its mm_ctx): only the lowest codeword of each
 * class of interchangeable colors, of each orbit of the symmetries fixing the guesses played, and of each group of
 * guesses that score alike, made depth first a chunk at a time; a prefix is dropped whole where its colors, its
 * symmetric image or the secrets it forces into one part show that no guess below it can win. */
#ifndef KNUTH_CODES_H
#define KNUTH_CODES_H
#include "knuth_bounds.h"

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
    g->fuse = 0;
    g->acc[0] = _mm256_setzero_si256();
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
    if (x->strategy == ENTROPY) bound -= ENTROPY_SLACK_Q + h->np;
    return bound_loses(x, bound, 0, h);
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

/* The indices of the codewords that lowest_of_class keeps, ascending, without visiting the others: depth first
 * over the pins, colors ascending, a class's color taken only where an earlier pin has it or it is the class's
 * lowest color not yet used (codes lists every codeword in order: index = the colors, less one, in base colors).
 * Each one's signature (see seen_before) is summed on the way, under the search's tag, or 0 where it needs no
 * table: every pin kept (the signature names the guess alone), or a signature too large for 48 bits. The next
 * codewords, at most room (room >= 2 * colors), into out and their signatures into sigs; 0 at the end. */
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
        /* a fused search's score so far, which finds its forced pairs too (see run_mates) */
        const __m256i acc_now = g->fuse ? _mm256_add_epi8(g->acc[k], row_of(x, k, sel_now >> (8 * k) & 255))
                                        : _mm256_setzero_si256();
        if (g->run_lengths >> (k + 1) & 1 &&
            (g->fuse ? g->forced_floor[pairs_of(acc_now, g->run_mates[k + 1], g->hope->np)] >= g->hope->q_lost
                     : forced_loses(x, g, prefix_now, k + 1)))
            continue;
        const unsigned used_now = g->used[k] | 1u << c;
        const uint64_t held_now = g->held[k] + (1ull << (4 * c));
        if (k + 1 == pins - 1) {  /* the last pin: every color it may take, in one loop */
            const int last = k + 1;
            /* a color that makes the guess's multiset dead is masked off: such a guess cannot beat the best so
             * far (nor can one splitting the secrets as it does, if its prefix's twin is skipped) */
            const unsigned lower = (g->lower[k][last] | swap_lower(at_pin, k, c, last)) & ~at_pin[last];
            const unsigned colors_here = class_colors(all, z, f, used_now) & ~lower
                                         & x->sub_live[sub_now];
            const __m256i head = acc_now;
            const int64_t q_lost = g->hope->q_lost;  /* as the chunk began: the search's own is no larger */
            uint64_t met = 0;  /* the classes of last_like met so far */
            for (unsigned m = colors_here; m; m &= m - 1) {
                const int d = __builtin_ctz(m), kept_code = kept_now + (at_pin[last] >> d & 1);
                const int code = idx * x->colors + d - 1;
                if (g->rows_first) {
                    const unsigned byte = 8 * d + ((held_now >> (4 * d)) & 15);
                    /* a last color adding the same row as a lower one splits the secrets alike: it cannot win */
                    const uint64_t like = g->last_like[byte];
                    if (met & like) continue;
                    met |= like;
                    if (g->fuse && g->floor_of_pairs[pairs_of(_mm256_add_epi8(head, row_of(x, last, byte)),
                                                              NULL, g->hope->np)] >= q_lost)
                        continue;
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
        g->acc[k + 1] = acc_now;
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
