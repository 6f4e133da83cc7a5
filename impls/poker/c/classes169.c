/* Exact equity of the 169 starting-hand classes against one random hand, a range of boards at a time.
 *
 * Board first: on each 5-card board every one of the C(47,2) = 1081 two-card holdings of the other cards is
 * ranked once, and then every holding's wins and ties against the 990 holdings disjoint from it are counted
 * from the ranks sorted, by inclusion-exclusion over its two cards: below(x) - below_with(a) - below_with(b).
 * Summed over all C(52,5) boards that is every hero against every opponent on every board, 2,097,572,400 games a
 * hero, with 1081 evaluations a board instead of 991 a hero and board.
 *
 * With iso set, only the boards that are the least of their suit permutations are visited, each weighted by the
 * size of its orbit: a suit permutation maps each class to itself, so a class's sum over an orbit is the
 * orbit's size times its sum on one board of it. Exact only over whole orbits, i.e. over all boards together.
 * Shards are ranges of colex board indices [first, first + count).
 */
#include "poker_core.c"

#define HOLDINGS 1081

/* permute_suits and the 24 permutations PERMS come from the core */

/* 0 when some suit permutation gives a smaller board, else the size of the board's orbit */
static int orbit_weight(uint64_t board) {
    int same = 0;
    for (int p = 0; p < 24; p++) {
        uint64_t q = permute_suits(board, PERMS[p]);
        if (q < board) return 0;
        same += q == board;
    }
    return 24 / same;
}

static int class_of(int a, int b) {
    int ra = a >> 2, rb = b >> 2, hi = ra > rb ? ra : rb, lo = ra > rb ? rb : ra;
    return ((a & 3) == (b & 3)) ? hi * 13 + lo : lo * 13 + hi; /* suited above the diagonal, offsuit below */
}

static int by_key(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void count_board(uint64_t board, int64_t weight, int64_t *out) {
    int free_cards[47], nf = 0;
    for (int c = 0; c < 52; c++)
        if (!((board >> c) & 1)) free_cards[nf++] = c;
    uint64_t keys[HOLDINGS]; /* code << 16 | card a << 8 | card b: sorted, each tie group is contiguous */
    int k = 0;
    for (int i = 0; i < nf; i++)
        for (int j = i + 1; j < nf; j++) {
            uint64_t code = rank7(board | 1ULL << free_cards[i] | 1ULL << free_cards[j]);
            keys[k++] = code << 16 | (uint64_t)free_cards[i] << 8 | (uint64_t)free_cards[j];
        }
    qsort(keys, HOLDINGS, sizeof keys[0], by_key);
    int below_with[52] = {0}, equal_with[52];
    int below = 0;
    for (int g = 0; g < HOLDINGS;) {
        int e = g;
        while (e < HOLDINGS && keys[e] >> 16 == keys[g] >> 16) e++;
        memset(equal_with, 0, sizeof equal_with);
        for (int t = g; t < e; t++) {
            equal_with[(keys[t] >> 8) & 0xff]++;
            equal_with[keys[t] & 0xff]++;
        }
        for (int t = g; t < e; t++) {
            int a = (keys[t] >> 8) & 0xff, b = keys[t] & 0xff;
            int64_t wins = below - below_with[a] - below_with[b];
            int64_t ties = (e - g) - equal_with[a] - equal_with[b] + 1; /* the holding itself counted twice */
            int64_t *row = out + 3 * class_of(a, b);
            row[0] += weight * wins;
            row[1] += weight * ties;
            row[2] += weight * (990 - wins - ties);
        }
        for (int t = g; t < e; t++) {
            below_with[(keys[t] >> 8) & 0xff]++;
            below_with[keys[t] & 0xff]++;
        }
        below += e - g;
        g = e;
    }
}

/* wins, ties, losses of each class (169 x 3, summed over the class's holdings) over boards first..first+count-1
 * in colex order; returns the number of boards counted (with iso: visited) */
int64_t classes169(uint64_t first, uint64_t count, int iso, int64_t *out) {
    memset(out, 0, 169 * 3 * sizeof(int64_t));
    uint64_t index = 0, end = first + count;
    int64_t visited = 0;
    for (int c4 = 4; c4 < 52; c4++)
        for (int c3 = 3; c3 < c4; c3++)
            for (int c2 = 2; c2 < c3; c2++)
                for (int c1 = 1; c1 < c2; c1++)
                    for (int c0 = 0; c0 < c1; c0++, index++) {
                        if (index < first) continue;
                        if (index >= end) return visited;
                        uint64_t board = 1ULL << c0 | 1ULL << c1 | 1ULL << c2 | 1ULL << c3 | 1ULL << c4;
                        int64_t weight = iso ? orbit_weight(board) : 1;
                        if (weight) {
                            count_board(board, weight, out);
                            visited++;
                        }
                    }
    return visited;
}
