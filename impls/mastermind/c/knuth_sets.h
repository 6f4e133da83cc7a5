/* Multisets of colors, numbered, for the pruned search (knuth_pruned.h includes this after its mm_ctx): a
 * guess's pegs in all against a secret depend on the two multisets alone (see split_bound). */
#ifndef KNUTH_SETS_H
#define KNUTH_SETS_H
/* The binomial C(a, b) for a <= 22 (15 colors and 8 pins at most). */
static size_t choose_of(int a, int b) {
    if (b < 0 || b > a) return 0;
    size_t r = 1;
    for (int i = 1; i <= b; i++) r = r * (a - b + i) / i;
    return r;
}

/* How many multisets of `pins` colors there are: C(colors + pins - 1, pins). */
static size_t color_sets(int pins, int colors) { return choose_of(colors + pins - 1, pins); }

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
