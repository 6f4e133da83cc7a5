/* What bounds a split before it is scored, for the pruned search (knuth_pruned.h includes this after its mm_ctx):
 * the measures of Expected Size and Entropy and the least measure a split can have from its pairs of secrets in one
 * part, the bound from a guess's colors alone (split_bound), and the colors found dead for a search. */
#ifndef KNUTH_BOUNDS_H
#define KNUTH_BOUNDS_H
#include "knuth_sets.h"

/* Expected Size and Entropy: an integer per part size whose sum over a split (its measure) orders splits as their
 * keys do wherever two splits are far apart (see worse_from): s*s - s, exactly, and s ln s in units of 2^-20, each
 * within a unit (ENTROPY_PART_ERROR: rounded to the nearest, from a double within 2^-51 relatively, and s < 2^26).
 * Both are 0 for a part of one, so the measure so far of a split still being counted is a bound that shows a loser
 * early. (With s*s, each secret not yet counted would add at least 1 more, and the bound would reach a loser's
 * measure only near the end of its count.) The parts' sizes sum to np, so s*s - s orders splits as s*s does. */
#define ENTROPY_PART_ERROR 1
/* So two splits' measures (44 parts at most each) differ from 2^20 times their S by less than this together. */
#define ENTROPY_SLACK_Q (2 * 44 * ENTROPY_PART_ERROR)
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
    if (x->arithmetic == EXACT) return 0;  /* exact keys: q_lost is the best's measure itself (see worse_from) */
    int total = 0;
    for (int n = 1; n <= TIE_SECRETS; n++) total += 1 << (n - 1);
    int64_t *meas = malloc(sizeof(int64_t) * total), *rank = malloc(sizeof(int64_t) * total);
    x->tie_measure = meas; x->tie_rank = rank;
    if (!meas || !rank) return -1;
    x->tie_at[0] = x->tie_at[1] = 0;
    for (int n = 1; n <= TIE_SECRETS; n++) {
        mm_terms terms;
        int64_t *m = make_measure(x->strategy, n);
        if (make_terms(&terms, x->strategy, x->arithmetic, n, x->sfu) || !m) { free_terms(&terms); free(m); return -1; }
        const int from = x->tie_at[n];
        int count = from;
        for (uint32_t cuts = 0; cuts < 1u << (n - 1); cuts++) {  /* a part ends after secret i where bit i is set */
            int size[TIE_SECRETS], parts = 0, s = 1;
            int64_t q = 0;
            for (int i = 0; i < n - 1; i++, s++)
                if (cuts >> i & 1) { q += m[s]; size[parts++] = s; s = 0; }
            q += m[s];
            size[parts++] = s;
            const int64_t r = rank_of_parts(x->strategy, x->arithmetic, size, parts, 0, n, &terms);
            int at = from;
            while (at < count && meas[at] != q) at++;
            if (at == count) { meas[count] = q; rank[count++] = r; }
            else if (r > rank[at]) rank[at] = r;
        }
        free_terms(&terms); free(m);
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
    if (x->arithmetic == EXACT) return INT64_MAX;
    for (int i = x->tie_at[np]; i < x->tie_at[np + 1]; i++)
        if (2 * x->tie_rank[i] <= best_key) return x->tie_measure[i];
    return INT64_MAX;
}

/* The least measure q of a split that ranks below the best so far (measure best_q, rank best_rank) whatever the
 * rounding, or INT64_MAX: from there on a split's key cannot win and is not computed, and since a split's measure
 * only grows as its parts are counted, the count stops there.
 * Exact: Expected Size's measure is exact, and an equal one ties, which the guess met first wins: best_q itself.
 * Entropy's measures of two splits differ from 2^20 times their S by less than ENTROPY_SLACK_Q together, so a
 * larger S is certain from best_q + ENTROPY_SLACK_Q on; a split below that is compared exactly (knuth_exact.h).
 * Float keys (a split has k <= 44 parts; u = 2^-24, float rounding): no cut where the best's key saturated (every
 * split past it ties, whatever its measure).
 * Expected Size: the key is -round(1e6 F), F the float sum of the terms s*s/np, each rounded twice (cuda-fast-math:
 * s*s times the GPU's reciprocal of np, within 1.61u of 1/np for every np < 2^20, then rounded once); with Q = q + np
 * the sum of s*s, by the bound for recursive summation |F - Q/np| <= 47u/(1 - 47u) Q/np < 2^-17 Q/np. So when
 * (Q - B) 2^17 > Q + B + np (B = best_q + np), F - F_best > (Q - B)/np - 2^-17 (Q + B)/np > 2^-17 > 7e-6: its key
 * is at least 7 below the best's (the double product's rounding is below 1e-3 for np < 2^20).
 * Entropy: the key is round(1e9 H), H the float sum of -p ln p over float p = s/np. Each partial sum is rounded
 * once (it is at most ln k) and each p once, so |H - exact entropy| <= u (k ln k + ln k + 1)(1 + 2^-20) < 1.1e-5
 * (cuda-fast-math: p = s times the GPU's reciprocal is within 2.6u of s/np, which moves the sum by at most 2.6u ln np
 * < 2.2e-6, and its log p, the GPU's log2 truncated to 24 bits (under 2^-19 for np < 2^20) with its quadratic's error
 * times ln 2 in float, is within 2.5e-6 of ln p (1.9e-6 the most over a sample of np < 2^20), so under 1.6e-5);
 * the exact entropy is ln np - S/np with S = sum s ln s, and q is S in units of 2^-20 to within 0.63 a part (28
 * a split). When q - best_q > 64 + 64 np, S - S_best > 64 np 2^-20, so the exact entropy is more than 6.1e-5
 * lower, H more than 2.9e-5 lower and the key lower by thousands. */
MM_INLINE int64_t worse_from(int strategy, int arithmetic, int64_t best_q, int64_t best_rank, int np) {
    if (arithmetic == EXACT) return strategy == EXPECTED_SIZE ? best_q : best_q + ENTROPY_SLACK_Q;
    if (best_q == INT64_MAX || np >= (1 << 20) || (strategy == EXPECTED_SIZE && best_rank == SATURATED_RANK))
        return INT64_MAX;
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
 * every group split evenly (both terms are convex), less, for Entropy, the rounding of the table's terms (a unit
 * per part at most, 44 parts at most, on either side). */
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
    return x->strategy == ENTROPY ? bound - ENTROPY_SLACK_Q : bound;
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


/* The best key a guess can reach, or INT64_MAX where it is not known: every part as small as the scores
 * allow. A possible guess has every score; one that is not possible lacks the win, so it has one score fewer.
 * For Expected Size and Entropy only the all-singletons split is known best (its float sum is the same in any
 * order; any other split is worse by far more than the rounding; exact Entropy's key is minus its measure, 0 for
 * it alone). */
static int64_t best_reachable(const mm_ctx *x, int np, const mm_terms *terms, int possible) {
    const int scores = x->nvalid - !possible;
    if (x->strategy == KNUTH) return 2 * (int64_t)(np - (np + scores - 1) / scores) + possible;
    if (x->strategy == MOST_PARTS) return 2 * (int64_t)(np < scores ? np : scores) + possible;
    if (np > scores) return INT64_MAX;
    if (x->strategy == ENTROPY && x->arithmetic == EXACT) return possible;  /* measure 0: see key_of */
    int size[48];
    for (int v = 0; v < np; v++) size[v] = 1;
    return 2 * rank_of_parts(x->strategy, x->arithmetic, size, np, 1, np, terms) + possible;
}


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

#endif
