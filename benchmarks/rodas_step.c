/* The bristle oscillator (family "bristle") stepped by RODAS (fj_rodas.h) at a fixed communication
 * step from C, no FMI and no Python (bench_rodas.py builds and runs it):
 *
 *   rodas_step model rtol h t_end     law model 1..4 with the parameters of bench_bristle.py
 *
 * from rest, inputs held at x_d = 0, v_belt = 0.1 m/s, F_n = 10 N, atol = rtol / 100. Prints: wall
 * seconds, real-time factor, integrator steps and right-hand sides per communication step, x, zeta. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fj_rodas.h"


static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    double model = atof(argv[1]), rtol = atof(argv[2]), h = atof(argv[3]), t_end = atof(argv[4]);
    /* m, k, then the law: model, sigma0, sigma1, sigma2, mu_c, mu_s, v_s, delta, z_ba_ratio */
    double fpar[11] = {1.0, 100.0, model, 1e5, 5.0, 0.0, 0.3, 0.4, 1e-3, 2.0, 0.7};
    int64_t ipar[1] = {0}, directions[1] = {0};
    fj_args a = {fpar, ipar, NULL, NULL, 11, 1, 0, 0, 4, 3, NULL, NULL};
    double *scratch = calloc((size_t)fj_rodas_scratch_size(4, 0, 3), sizeof(double));
    double y[4] = {0.0}, forms[15] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0};
    double info[FJ_RODAS_INFO_SIZE], row[11], step = 0.0, steps = 0.0, rhs = 0.0;
    if (scratch == NULL) return 3;
    long n = (long)(t_end / h + 0.5);
    double start = now();
    for (long k = 0; k < n; k++) {
        double t = (double)k * h, t_next = (double)(k + 1) * h;
        int64_t status = fj_rodas_advance(&fj_family_bristle, &a, scratch, t, y, t_next, step, rtol, rtol / 100.0,
                                          1e300, forms, directions, 0, &t_next, 1, row, 11, info, 0.0);
        if (status != FJ_REACHED_END) {
            printf("failed at t=%g: %s\n", t, fj_rodas_message(status));
            return 1;
        }
        step = info[FJ_INFO_H];
        steps += info[FJ_INFO_STEPS];
        rhs += info[FJ_INFO_RHS_CALLS];
    }
    double wall = now() - start;
    printf("%.6f %.1f %.2f %.1f %.9g %.9g\n", wall, t_end / wall, steps / (double)n, rhs / (double)n, y[0], y[2]);
    free(scratch);
    return 0;
}
