/*
 * reference_solver.c - a small, independent reference solver for two families of
 * k-in-a-row games, used to produce tests/data/solved_positions.txt.
 *
 * Build:  cc -O2 -o ref scripts/reference_solver.c      (C99, no dependencies)
 *
 * GAMES
 *   <rows>x<cols>g<k>   gravity ("Connect-k"): a move names a column 0..cols-1 and the
 *                       stone lands on the lowest empty cell of that column.
 *                       Connect Four is 6x7g4.
 *   <rows>x<cols>k<k>   m,n,k-game: a move names any empty cell 0..rows*cols-1, numbered
 *                       row by row from the top left (cell = row*cols + col, row 0 on top).
 *   X moves first. k stones of one player in a row (horizontal, vertical or either
 *   diagonal) win; the game ends at the first win, or as a draw when the board is full.
 *
 * INPUT (stdin), one position per line:   <game> <moves>
 *   <moves> is a comma separated list of 0-based moves, or "-" for the empty board.
 *   Blank lines and lines starting with '#' are skipped.
 * OUTPUT (stdout), one line per position:  <game> <moves> <value> <plies>
 *   value: 1 if the player to move wins under perfect play, 0 draw, -1 loses.
 *   plies: the number of plies from this position to the end of the game under perfect
 *          play in which the winner wins as fast as possible and the loser loses as
 *          slowly as possible (a draw fills the board: plies = number of empty cells).
 *
 * SCORE
 *   With C = rows*cols cells, a game won at total ply p (p stones on the board after the
 *   winning move) is worth C + 1 - p to the winner and -(C + 1 - p) to the loser; a draw
 *   is worth 0. The solver computes the exact negamax value of this score for the side to
 *   move (n stones on the board), from which
 *       score > 0:  value  1, plies = (C + 1 - score) - n
 *       score = 0:  value  0, plies = C - n
 *       score < 0:  value -1, plies = (C + 1 + score) - n
 *   The score of a position depends on the position only (not on the path or depth), so
 *   it can be stored in a transposition table.
 *
 * ERRORS
 *   A malformed line, a move out of range, a move into a full column or a taken cell, a
 *   move after the game has ended, or a position that is already over (a win or a full
 *   board) is reported on stderr and the program exits with status 2 (lines before it
 *   have been answered).
 *
 * METHOD (deliberately simple rather than fast)
 *   Plain array board. Recursive negamax with alpha-beta (fail-soft) over the score above:
 *     - a move that wins at once is taken (score C - n);
 *     - if the opponent has two or more immediate wins, the position is lost at ply n+2;
 *       with exactly one, the only move considered is to block it (any other move loses
 *       at ply n+2, the worst possible score, so blocking is never worse);
 *     - otherwise the score lies in [-(C-n-1), C-n-2] and the window is clamped to it.
 *   A transposition table (Zobrist hashing, full 64-bit keys, always-replace) stores
 *   lower/upper/exact bounds of the score and the best move; positions are stored under
 *   the smallest key over the board's symmetries (left-right mirror for gravity games;
 *   the mirror symmetries, and rotations for square boards, for m,n,k-games). Moves are
 *   tried: best move from the table, then moves creating more immediate threats, then
 *   centre-first. The root searches with null windows, narrowing [min, max] until the
 *   exact score is known.
 *
 * OPTIONS
 *   -v          per position: time and node count on stderr
 *   --weak      value only (one search with the window (-1, 1)); plies is printed as "?"
 *               (for positions too deep for the exact score)
 *   --tt BITS   transposition table of 2^BITS entries (16 bytes each; default 24)
 *   --selftest  cross-checks on small games: the solver against plain minimax without
 *               pruning or table, and every position against its mirror image (and
 *               other symmetries) with a cleared table; exits 0 if all agree, 1 if not.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXCELLS 64
#define MAXDIM 16
#define MAXSYM 8

/* ---- the game being solved ---- */
static int R, CO, K, GRAV, NC; /* rows, columns, k, gravity flag, cells */
static signed char board[MAXCELLS]; /* 0 empty, 1 X, 2 O */
static int height[MAXDIM];          /* gravity: stones in each column */
static int nstones;
static int order[MAXCELLS], norder; /* static move order, centre first (moves) */

/* symmetries: sym[s][cell] is the image of cell under symmetry s (s = 0 identity) */
static int nsym;
static int sym[MAXSYM][MAXCELLS], syminv[MAXSYM][MAXCELLS];
static uint64_t zob[MAXCELLS][2];
static uint64_t keys[MAXSYM];

static unsigned long long nodes;

/* ---- transposition table ---- */
enum { T_NONE = 0, T_EXACT = 1, T_LOWER = 2, T_UPPER = 3 };
typedef struct {
    uint64_t key;
    int8_t score;
    uint8_t flag;
    uint8_t move; /* best move as a cell, in the canonical frame */
    uint8_t pad[5];
} Entry;
static Entry *tt;
static uint64_t ttmask;
static int ttbits = 24;

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void tt_clear(void) { memset(tt, 0, sizeof(Entry) * (size_t)(ttmask + 1)); }

/* ---- set up a game ---- */
static int cell_rc(int r, int c) { return r * CO + c; }

static void setup_game(int rows, int cols, int k, int grav) {
    R = rows; CO = cols; K = k; GRAV = grav; NC = rows * cols;
    memset(board, 0, sizeof board);
    memset(height, 0, sizeof height);
    nstones = 0;
    /* static order: by distance from the centre, then by index */
    int n = grav ? cols : NC;
    norder = n;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) {
        int m = order[i], j = i;
        int dm;
        if (grav) dm = abs(2 * m - (cols - 1)) * 4;
        else dm = abs(2 * (m / cols) - (rows - 1)) * abs(2 * (m / cols) - (rows - 1)) +
                  abs(2 * (m % cols) - (cols - 1)) * abs(2 * (m % cols) - (cols - 1));
        while (j > 0) {
            int o = order[j - 1], d0;
            if (grav) d0 = abs(2 * o - (cols - 1)) * 4;
            else d0 = abs(2 * (o / cols) - (rows - 1)) * abs(2 * (o / cols) - (rows - 1)) +
                      abs(2 * (o % cols) - (cols - 1)) * abs(2 * (o % cols) - (cols - 1));
            if (d0 <= dm) break;
            order[j] = o;
            j--;
        }
        order[j] = m;
    }
    /* symmetries */
    nsym = 0;
    for (int s = 0; s < 8; s++) {
        /* s: bit0 mirror columns, bit1 mirror rows, bit2 transpose (square boards only) */
        if (grav && s != 0 && s != 1) continue;
        if ((s & 4) && rows != cols) continue;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                int rr = r, cc = c;
                if (s & 1) cc = cols - 1 - cc;
                if (s & 2) rr = rows - 1 - rr;
                if (s & 4) { int t = rr; rr = cc; cc = t; }
                sym[nsym][cell_rc(r, c)] = cell_rc(rr, cc);
            }
        for (int i = 0; i < NC; i++) syminv[nsym][sym[nsym][i]] = i;
        nsym++;
    }
    uint64_t seed = 0x5EED0000ULL + (uint64_t)rows * 1000003ULL + (uint64_t)cols * 1009ULL +
                    (uint64_t)k * 17ULL + (uint64_t)grav;
    for (int i = 0; i < NC; i++) {
        zob[i][0] = splitmix(&seed);
        zob[i][1] = splitmix(&seed);
    }
    for (int s = 0; s < nsym; s++) keys[s] = 0;
}

/* the cell a move would fill, or -1 if the move is not legal now */
static int move_cell(int mv) {
    if (GRAV) {
        if (mv < 0 || mv >= CO || height[mv] >= R) return -1;
        return cell_rc(R - 1 - height[mv], mv);
    }
    if (mv < 0 || mv >= NC || board[mv]) return -1;
    return mv;
}

static void play(int cell, int p) {
    board[cell] = (signed char)p;
    if (GRAV) height[cell % CO]++;
    nstones++;
    for (int s = 0; s < nsym; s++) keys[s] ^= zob[sym[s][cell]][p - 1];
}

static void undo(int cell, int p) {
    board[cell] = 0;
    if (GRAV) height[cell % CO]--;
    nstones--;
    for (int s = 0; s < nsym; s++) keys[s] ^= zob[sym[s][cell]][p - 1];
}

static const int DR[4] = {0, 1, 1, 1}, DC[4] = {1, 0, 1, -1};

/* would a stone of p on cell (empty, or already p) make k in a row through it? */
static int wins_at(int cell, int p) {
    int r0 = cell / CO, c0 = cell % CO;
    for (int d = 0; d < 4; d++) {
        int cnt = 1;
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            int r = r0 + sgn * DR[d], c = c0 + sgn * DC[d];
            while (r >= 0 && r < R && c >= 0 && c < CO && board[cell_rc(r, c)] == p) {
                cnt++;
                r += sgn * DR[d];
                c += sgn * DC[d];
            }
        }
        if (cnt >= K) return 1;
    }
    return 0;
}

/* number of windows of k cells through cell that hold k-1 stones of p and one empty
 * cell once p has played on cell (new immediate threats; move ordering only) */
static int new_threats(int cell, int p) {
    int r0 = cell / CO, c0 = cell % CO, t = 0;
    board[cell] = (signed char)p;
    for (int d = 0; d < 4; d++) {
        for (int s = -(K - 1); s <= 0; s++) {
            int own = 0, empty = 0, ok = 1;
            for (int i = 0; i < K; i++) {
                int r = r0 + (s + i) * DR[d], c = c0 + (s + i) * DC[d];
                if (r < 0 || r >= R || c < 0 || c >= CO) { ok = 0; break; }
                int v = board[cell_rc(r, c)];
                if (v == p) own++;
                else if (v == 0) empty++;
                else { ok = 0; break; }
            }
            if (ok && own == K - 1 && empty == 1) t++;
        }
    }
    board[cell] = 0;
    return t;
}

/* legal moves as cells, in static order */
static int gen_moves(int *cells) {
    int n = 0;
    for (int i = 0; i < norder; i++) {
        int c = move_cell(order[i]);
        if (c >= 0) cells[n++] = c;
    }
    return n;
}

static int canonical(uint64_t *key) {
    int best = 0;
    for (int s = 1; s < nsym; s++)
        if (keys[s] < keys[best]) best = s;
    *key = keys[best];
    return best;
}

/* negamax, fail-soft alpha-beta; position not over, side to move = parity of nstones */
static int solve(int alpha, int beta) {
    int p = 1 + (nstones & 1), q = 3 - p;
    int mv[MAXCELLS], nm;
    nodes++;
    nm = gen_moves(mv);
    for (int i = 0; i < nm; i++)
        if (wins_at(mv[i], p)) return NC - nstones;
    if (nstones + 1 == NC) return 0; /* the last move, not a win: draw */
    int nthreat = 0, forced = -1;
    for (int i = 0; i < nm; i++)
        if (wins_at(mv[i], q)) { nthreat++; forced = mv[i]; }
    int lower = -(NC - nstones - 1); /* lose at ply n+2 */
    if (nthreat >= 2) return lower;
    int upper = NC - nstones - 2;    /* win at ply n+3 */
    if (beta > upper) { beta = upper; if (alpha >= beta) return beta; }
    if (alpha < lower) { alpha = lower; if (alpha >= beta) return alpha; }

    uint64_t key;
    int s = canonical(&key);
    Entry *e = &tt[key & ttmask];
    int ttmove = -1;
    if (e->flag != T_NONE && e->key == key) {
        int v = e->score;
        if (e->flag == T_EXACT) return v;
        if (e->flag == T_LOWER) {
            if (v >= beta) return v;
            if (v > alpha) alpha = v;
        } else {
            if (v <= alpha) return v;
            if (v < beta) beta = v;
        }
        ttmove = syminv[s][e->move];
    }
    int a0 = alpha;

    int pri[MAXCELLS];
    if (nthreat == 1) {
        mv[0] = forced;
        nm = 1;
    } else {
        for (int i = 0; i < nm; i++) {
            int c = mv[i], h;
            if (c == ttmove) h = 1000000;
            else if (GRAV && c >= CO && wins_at(c - CO, q)) h = -1000000; /* gives a win */
            else h = new_threats(c, p) * 1000 - i;
            pri[i] = h;
        }
        for (int i = 1; i < nm; i++) { /* insertion sort, highest first */
            int c = mv[i], h = pri[i], j = i;
            while (j > 0 && pri[j - 1] < h) { mv[j] = mv[j - 1]; pri[j] = pri[j - 1]; j--; }
            mv[j] = c; pri[j] = h;
        }
    }

    int best = -1000, bestmove = mv[0];
    for (int i = 0; i < nm; i++) {
        play(mv[i], p);
        int v = -solve(-beta, -alpha);
        undo(mv[i], p);
        if (v > best) { best = v; bestmove = mv[i]; }
        if (v > alpha) alpha = v;
        if (alpha >= beta) break;
    }
    e->key = key;
    e->score = (int8_t)best;
    e->flag = best <= a0 ? T_UPPER : best >= beta ? T_LOWER : T_EXACT;
    e->move = (uint8_t)sym[s][bestmove];
    return best;
}

/* exact score of the current position by null-window searches */
static int solve_exact(void) {
    int lo = -NC, hi = NC;
    while (lo < hi) {
        int med = lo + (hi - lo) / 2;
        if (med <= 0 && lo / 2 < med) med = lo / 2;
        else if (med >= 0 && hi / 2 > med) med = hi / 2;
        if (med >= hi) med = hi - 1;
        if (med < lo) med = lo;
        int r = solve(med, med + 1);
        if (r <= med) hi = r;
        else lo = r;
    }
    return lo;
}

/* plain minimax, no pruning, no table (self-test only) */
static int brute(void) {
    int p = 1 + (nstones & 1);
    int mv[MAXCELLS], nm = gen_moves(mv), best = -1000;
    for (int i = 0; i < nm; i++) {
        int v;
        if (wins_at(mv[i], p)) v = NC - nstones;
        else if (nstones + 1 == NC) v = 0;
        else { play(mv[i], p); v = -brute(); undo(mv[i], p); }
        if (v > best) best = v;
    }
    return best;
}

static void score_to_result(int score, int *value, int *plies) {
    if (score > 0) { *value = 1; *plies = (NC + 1 - score) - nstones; }
    else if (score < 0) { *value = -1; *plies = (NC + 1 + score) - nstones; }
    else { *value = 0; *plies = NC - nstones; }
}

/* ---- input ---- */
static int cur_rows = -1, cur_cols = -1, cur_k = -1, cur_grav = -1;

static int parse_game(const char *g, int *rows, int *cols, int *k, int *grav) {
    char kind, extra;
    if (sscanf(g, "%dx%d%c%d%c", rows, cols, &kind, k, &extra) != 4) return 0;
    if (kind != 'g' && kind != 'k') return 0;
    *grav = kind == 'g';
    if (*rows < 1 || *cols < 1 || *rows > MAXDIM || *cols > MAXDIM) return 0;
    if (*rows * *cols > MAXCELLS) return 0;
    if (*k < 2 || (*k > *rows && *k > *cols)) return 0;
    /* canonical spelling only (no leading zeros or signs) */
    char buf[64];
    snprintf(buf, sizeof buf, "%dx%d%c%d", *rows, *cols, kind, *k);
    return strcmp(buf, g) == 0;
}

static void fail(long line, const char *msg, const char *text) {
    fprintf(stderr, "reference_solver: line %ld: %s: %s\n", line, msg, text);
    fflush(stdout);
    exit(2);
}

/* set up the game (clearing the table if it changed) and play the moves */
static void load(long line, const char *game, const char *moves, const char *text) {
    int rows, cols, k, grav;
    if (!parse_game(game, &rows, &cols, &k, &grav)) fail(line, "bad game name", text);
    if (rows != cur_rows || cols != cur_cols || k != cur_k || grav != cur_grav) {
        tt_clear();
        cur_rows = rows; cur_cols = cols; cur_k = k; cur_grav = grav;
    }
    setup_game(rows, cols, k, grav);
    if (strcmp(moves, "-") == 0) return;
    const char *s = moves;
    int over = 0;
    for (;;) {
        if (*s < '0' || *s > '9') fail(line, "bad move list", text);
        long m = 0;
        while (*s >= '0' && *s <= '9') {
            m = m * 10 + (*s - '0');
            if (m > 1000) fail(line, "move out of range", text);
            s++;
        }
        if (*s != ',' && *s != 0) fail(line, "bad move list", text);
        if (over) fail(line, "move after the game ended", text);
        if (m >= (grav ? cols : rows * cols)) fail(line, "move out of range", text);
        int c = move_cell((int)m);
        if (c < 0) fail(line, grav ? "move into a full column" : "move into a taken cell", text);
        int p = 1 + (nstones & 1);
        if (wins_at(c, p)) over = 1;
        play(c, p);
        if (nstones == NC) over = 1;
        if (*s == 0) break;
        s++;
    }
    if (over) fail(line, "position is already over", text);
}

/* ---- self-test ---- */
static uint64_t rng_state = 12345;
static int rnd(int n) { return (int)(splitmix(&rng_state) % (uint64_t)n); }

/* play random moves until `stones` stones, restarting on a finished game; 1 on success */
static int random_position(int stones, int *hist) {
    for (int attempt = 0; attempt < 1000; attempt++) {
        setup_game(R, CO, K, GRAV);
        int ok = 1;
        for (int i = 0; i < stones && ok; i++) {
            int mv[MAXCELLS], nm = gen_moves(mv);
            int c = mv[rnd(nm)], p = 1 + (nstones & 1);
            if (wins_at(c, p) || nstones + 1 == NC) ok = 0;
            else { play(c, p); hist[i] = c; }
        }
        if (ok) return 1;
    }
    return 0;
}

static int selftest(void) {
    struct { int r, c, k, g, minst, maxst, n; } cases[] = {
        {3, 3, 3, 0, 0, 4, 60},  {3, 4, 3, 0, 2, 6, 60},  {4, 3, 3, 0, 2, 6, 60},
        {4, 4, 3, 0, 5, 9, 60},  {4, 4, 4, 0, 5, 9, 40},  {3, 5, 3, 0, 4, 8, 40},
        {4, 4, 3, 1, 4, 10, 60}, {4, 5, 4, 1, 8, 12, 60}, {5, 4, 3, 1, 8, 12, 60},
        {4, 4, 4, 1, 4, 10, 60}, {3, 5, 3, 1, 3, 9, 60},  {5, 5, 4, 1, 14, 17, 40},
    };
    int ncase = (int)(sizeof cases / sizeof cases[0]), failures = 0, checked = 0;
    int hist[MAXCELLS];
    /* a known fact: 3x3 tic-tac-toe is a draw */
    setup_game(3, 3, 3, 0);
    tt_clear();
    {
        int v, pl;
        score_to_result(solve_exact(), &v, &pl);
        printf("3x3k3 - %d %d%s\n", v, pl, v == 0 && pl == 9 ? "" : "   FAIL (expected 0 9)");
        if (!(v == 0 && pl == 9)) failures++;
        checked++;
    }
    for (int ci = 0; ci < ncase; ci++) {
        int nfail0 = failures;
        int counts[3] = {0, 0, 0};
        for (int t = 0; t < cases[ci].n; t++) {
            setup_game(cases[ci].r, cases[ci].c, cases[ci].k, cases[ci].g);
            int stones = cases[ci].minst + rnd(cases[ci].maxst - cases[ci].minst + 1);
            if (!random_position(stones, hist)) continue;
            int ref = brute();
            tt_clear();
            int got = solve_exact();
            /* every symmetry of the board, replayed on a fresh table */
            int symok = 1;
            for (int s = 1; s < nsym; s++) {
                int img[MAXCELLS];
                for (int i = 0; i < stones; i++) img[i] = sym[s][hist[i]];
                /* for gravity the only symmetry is the mirror, so the replay is legal */
                setup_game(cases[ci].r, cases[ci].c, cases[ci].k, cases[ci].g);
                for (int i = 0; i < stones; i++) play(img[i], 1 + (nstones & 1));
                tt_clear();
                int v2 = solve_exact();
                if (v2 != got) symok = 0;
                setup_game(cases[ci].r, cases[ci].c, cases[ci].k, cases[ci].g);
                for (int i = 0; i < stones; i++) play(hist[i], 1 + (nstones & 1));
            }
            checked++;
            counts[got > 0 ? 0 : got == 0 ? 1 : 2]++;
            if (got != ref || !symok) {
                failures++;
                printf("FAIL %dx%d%c%d stones=%d brute=%d solve=%d symmetry %s\n", R, CO,
                       GRAV ? 'g' : 'k', K, stones, ref, got, symok ? "ok" : "differs");
            }
        }
        printf("%dx%d%c%d: %d positions (win/draw/loss %d/%d/%d), %s\n", cases[ci].r,
               cases[ci].c, cases[ci].g ? 'g' : 'k', cases[ci].k, cases[ci].n, counts[0],
               counts[1], counts[2], failures == nfail0 ? "all agree" : "FAILURES");
    }
    /* mirror on the real boards: a few Connect Four positions and their mirror images */
    {
        int c4fail = 0, n = 0;
        for (int t = 0; t < 12; t++) {
            setup_game(6, 7, 4, 1);
            int stones = 22 + rnd(8);
            if (!random_position(stones, hist)) continue;
            tt_clear();
            int a = solve_exact();
            setup_game(6, 7, 4, 1);
            for (int i = 0; i < stones; i++) play(sym[1][hist[i]], 1 + (nstones & 1));
            tt_clear();
            int b = solve_exact();
            n++;
            if (a != b) c4fail++;
        }
        printf("6x7g4: %d positions against their mirror images, %s\n", n,
               c4fail ? "FAILURES" : "all agree");
        failures += c4fail;
        checked += n;
    }
    printf("selftest: %d checks, %d failures\n", checked, failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    int verbose = 0, self = 0, weak = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-v") == 0) verbose = 1;
        else if (strcmp(argv[i], "--selftest") == 0) self = 1;
        else if (strcmp(argv[i], "--weak") == 0) weak = 1;
        else if (strcmp(argv[i], "--tt") == 0 && i + 1 < argc) {
            ttbits = atoi(argv[++i]);
            if (ttbits < 10 || ttbits > 30) { fprintf(stderr, "--tt: 10..30\n"); return 2; }
        } else {
            fprintf(stderr, "usage: %s [-v] [--weak] [--tt BITS] [--selftest] < positions\n", argv[0]);
            return 2;
        }
    }
    ttmask = (1ULL << ttbits) - 1;
    tt = calloc((size_t)(ttmask + 1), sizeof(Entry));
    if (!tt) { fprintf(stderr, "reference_solver: out of memory\n"); return 2; }
    if (self) return selftest();

    char text[4096];
    long line = 0;
    while (fgets(text, sizeof text, stdin)) {
        line++;
        size_t len = strlen(text);
        if (len == sizeof text - 1 && text[len - 1] != '\n') fail(line, "line too long", "");
        while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r')) text[--len] = 0;
        char *q = text;
        while (*q == ' ' || *q == '\t') q++;
        if (*q == 0 || *q == '#') continue;
        char game[64], moves[4096], extra[8];
        int nf = sscanf(q, "%63s %4095s %7s", game, moves, extra);
        if (nf != 2) fail(line, "expected '<game> <moves>'", text);
        load(line, game, moves, text);
        clock_t t0 = clock();
        unsigned long long n0 = nodes;
        int value, plies;
        if (weak) {
            int r = solve(-1, 1);
            value = r > 0 ? 1 : r < 0 ? -1 : 0;
            printf("%s %s %d ?\n", game, moves, value);
        } else {
            score_to_result(solve_exact(), &value, &plies);
            printf("%s %s %d %d\n", game, moves, value, plies);
        }
        fflush(stdout);
        if (verbose)
            fprintf(stderr, "%s %s: %.3f s, %llu nodes\n", game, moves,
                    (double)(clock() - t0) / CLOCKS_PER_SEC, nodes - n0);
    }
    return 0;
}
