/*
 * mem_probe: what a random access to memory costs on this machine, the bound of the
 * exact solve's kernels (docs/performance-history.md, section 15). Over a 256 MB array of
 * 32-bit indices it times dependent random loads (each address comes from the previous
 * load: a pointer chase through one random cycle, so every load waits for the last),
 * independent random loads (addresses known in advance: the core overlaps the misses),
 * and a sequential read.
 *
 * Build: cc -O2 -std=c99 -o mem_probe mem_probe.c      Run: ./mem_probe
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t state = 88172645463325252ull;
static uint64_t next(void) { /* xorshift64 */
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

int main(void) {
    size_t n = (size_t)64 << 20, steps = (size_t)20 << 20;
    uint32_t *a = malloc(n * sizeof *a), *at = malloc(steps * sizeof *at);
    if (!a || !at) {
        fprintf(stderr, "mem_probe: out of memory\n");
        return 1;
    }
    /* One random cycle through all n entries (Sattolo's shuffle). */
    for (size_t i = 0; i < n; i++) a[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next() % i;
        uint32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
    for (size_t i = 0; i < steps; i++) at[i] = (uint32_t)(next() % n);

    uint32_t p = 0;
    double t0 = now();
    for (size_t i = 0; i < steps; i++) p = a[p];
    double dependent = (now() - t0) / steps;

    uint64_t sum = 0;
    t0 = now();
    for (size_t i = 0; i < steps; i++) sum += a[at[i]];
    double independent = (now() - t0) / steps;

    t0 = now();
    for (int r = 0; r < 4; r++)
        for (size_t i = 0; i < n; i++) sum += a[i];
    double bandwidth = 4.0 * n * sizeof *a / (now() - t0);

    printf("dependent random loads, 256 MB:   %6.1f ns each\n", dependent * 1e9);
    printf("independent random loads, 256 MB: %6.1f ns each\n", independent * 1e9);
    printf("sequential read:                  %6.2f GB/s\n", bandwidth / 1e9);
    /* Printed so that the compiler keeps the loops. */
    printf("(checksums %u %llu)\n", p, (unsigned long long)sum);
    return 0;
}
