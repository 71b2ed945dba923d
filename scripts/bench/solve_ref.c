/*
 * solve_ref: a plain memoising solver of an m,n,k game (at most 16 cells), the
 * reference that `sweep solve` is measured against (scripts/bench/solve_ref.sh) and
 * checked by (tests/integration/solve.rs). It shares no code with `sweep`.
 *
 * From the empty board it computes, in one memoised depth-first recursion over the
 * positions (a hash table keyed by the two 16-bit stone masks, open addressing,
 * linear probing, doubled when three quarters full):
 *   - the number of legal positions reachable from the empty board (play stops at a win
 *     or a full board);
 *   - the game's value under optimal play by both sides (minimax);
 *   - V*, the optimal expected reward of the first player (x) against an opponent that
 *     plays uniformly at random among the empty cells: win +1, draw 0, loss -1,
 *     undiscounted; and the value of each first move.
 *
 * Build: cc -O2 -std=c99 -o solve_ref solve_ref.c
 * Usage: solve_ref ROWS COLS K      (e.g. 3 3 3, 3 4 4, 4 4 4)
 * The output has the layout of `sweep solve --game ROWSxCOLSkK`'s first lines.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int cells;
static uint32_t full;
/* The winning lines through each cell, as masks. */
static uint32_t lines_at[16][16];
static int nlines_at[16];

/* Whether the stones `m` hold a line through `cell`. */
static int wins(uint32_t m, int cell) {
    for (int i = 0; i < nlines_at[cell]; i++)
        if ((m & lines_at[cell][i]) == lines_at[cell][i]) return 1;
    return 0;
}

/* One position: its key (x mask | o mask << 16), its minimax value for x and its value
 * for x against the random opponent (below). */
typedef struct {
    uint32_t key;
    uint8_t used;
    int8_t minimax;
    uint8_t over; /* the game has ended */
    double value;
} Entry;

static Entry *table;
static uint64_t capacity, count;
static int bits;

static uint64_t slot_of(uint32_t key) { return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits); }

static Entry *find(uint32_t key) {
    uint64_t i = slot_of(key);
    while (table[i].used && table[i].key != key) i = (i + 1) & (capacity - 1);
    return &table[i];
}

static void grow(void) {
    Entry *old = table;
    uint64_t old_capacity = capacity;
    bits++;
    capacity = 1ull << bits;
    table = calloc(capacity, sizeof(Entry));
    if (!table) {
        fprintf(stderr, "solve_ref: out of memory\n");
        exit(1);
    }
    for (uint64_t i = 0; i < old_capacity; i++)
        if (old[i].used) *find(old[i].key) = old[i];
    free(old);
}

/* Solves position (x, o), whose last move was on `last` (-1: none), and returns its
 * entry: the minimax value for x (both sides optimal), and the value for x when x
 * maximises its expected reward and o plays uniformly at random (the mean over o's
 * replies where o is to move, the best move where x is). A finished game is worth its
 * reward to x: +1 win, 0 draw, -1 loss. */
static Entry solve(uint32_t x, uint32_t o, int last) {
    uint32_t key = x | o << 16;
    Entry *e = find(key);
    if (e->used) return *e;
    int x_moved = __builtin_popcount(x) > __builtin_popcount(o);
    Entry r = {key, 1, 0, 1, 0.0};
    if (last >= 0 && wins(x_moved ? x : o, last)) {
        r.minimax = x_moved ? 1 : -1;
        r.value = r.minimax;
    } else if ((x | o) != full) {
        r.over = 0;
        int minimax = x_moved ? 2 : -2, n = 0;
        double best = -2.0, sum = 0.0;
        for (int c = 0; c < cells; c++) {
            if ((x | o) >> c & 1) continue;
            Entry child = x_moved ? solve(x, o | 1u << c, c) : solve(x | 1u << c, o, c);
            if (x_moved) {
                /* o to move: o minimises x's minimax value and plays at random. */
                if (child.minimax < minimax) minimax = child.minimax;
                sum += child.value;
                n++;
            } else {
                if (child.minimax > minimax) minimax = child.minimax;
                if (child.value > best) best = child.value;
            }
        }
        r.minimax = (int8_t)minimax;
        r.value = x_moved ? sum / n : best;
    }
    /* The table may have grown while the children were solved. */
    if (4 * (count + 1) > 3 * capacity) grow();
    *find(key) = r;
    count++;
    return r;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: solve_ref ROWS COLS K   (ROWS, COLS >= 3, ROWS*COLS <= 16, 3 <= K <= max(ROWS, COLS))\n");
        return 2;
    }
    int rows = atoi(argv[1]), cols = atoi(argv[2]), k = atoi(argv[3]);
    int longest = rows > cols ? rows : cols;
    if (rows < 3 || cols < 3 || rows * cols > 16 || k < 3 || k > longest) {
        fprintf(stderr, "solve_ref: %s %s %s is not a board of at most 16 cells with 3 <= K <= max(ROWS, COLS)\n",
                argv[1], argv[2], argv[3]);
        return 2;
    }
    cells = rows * cols;
    full = (uint32_t)((1ull << cells) - 1);
    /* Every line of k cells: across, down and both diagonals. */
    int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            for (int d = 0; d < 4; d++) {
                int er = r + (k - 1) * dirs[d][0], ec = c + (k - 1) * dirs[d][1];
                if (er < 0 || er >= rows || ec < 0 || ec >= cols) continue;
                uint32_t line = 0;
                for (int i = 0; i < k; i++) line |= 1u << ((r + i * dirs[d][0]) * cols + c + i * dirs[d][1]);
                for (int i = 0; i < cells; i++)
                    if (line >> i & 1) lines_at[i][nlines_at[i]++] = line;
            }
    bits = 16;
    capacity = 1ull << bits;
    table = calloc(capacity, sizeof(Entry));
    if (!table) {
        fprintf(stderr, "solve_ref: out of memory\n");
        return 1;
    }

    Entry root = solve(0, 0, -1);
    int value = root.minimax;
    double best = root.value, q[16];
    for (int c = 0; c < cells; c++) q[c] = solve(1u << c, 0, c).value;
    /* The agent states: the positions with x to move where the game goes on. */
    uint64_t states = 0;
    for (uint64_t i = 0; i < capacity; i++) {
        uint32_t x = table[i].key & 0xFFFF, o = table[i].key >> 16;
        if (table[i].used && !table[i].over && __builtin_popcount(x) == __builtin_popcount(o)) states++;
    }
    const char *words = value > 0 ? "first player win" : value < 0 ? "second player win" : "draw";
    printf("%dx%dk%d: %llu legal positions; under optimal play by both sides the game is a %s\n", rows, cols, k,
           (unsigned long long)count, words);
    printf("seat x against random: %llu agent states\n", (unsigned long long)states);
    printf("optimal value V* = %.6f\n", best);
    printf("first decisions (* = optimal):\n");
    for (int c = 0; c < cells; c++) printf("  cell %d  value %+.6f%s\n", c, q[c], q[c] >= best - 1e-12 ? "  *" : "");
    free(table);
    return 0;
}
