/* Test problems for the Rosenbrock integrator (tests/test_rodas.py): families of one mode (no mode
 * arrays) whose kernels are the problems' right-hand sides, their parameters in fpar, their record the
 * state, their one event function y0 - level.
 *
 *   fj_family_rodas_vdp        y0' = y1, y1' = mu (1 - y0^2) y1 - y0 (MATLAB's vdp1000); fpar [mu];
 *                              level 0
 *   fj_family_rodas_robertson  Robertson's chemical kinetics (Hairer & Wanner II, IV.1 (1.3)); level 0
 *   fj_family_rodas_linear     y' = A y + b tau_0 (A: n x n row-major, b: n; tau_0 if an input is
 *                              given); fpar [A, b, level]
 *   fj_family_rodas_linear_stiff  the same on an instance (fj.h) with RODAS as its integrator
 *                              (fj_family.integrator), one mode, no events (singular_fmu.c's family)
 */
#include "fj_kernel.h"
#include "fj_rodas.h"

static int64_t record_state(const fj_args *a, double t, const double *y, const double *tau, double *out,
                            int64_t n_out) {
    (void)a, (void)t, (void)tau;
    for (int64_t i = 0; i < n_out; i++) out[i] = y[i];
    return FJ_OK;
}

static int64_t van_der_pol(const fj_args *a, double t, const double *y, const double *tau, double *dy,
                           int64_t n_out) {
    (void)t, (void)tau, (void)n_out;
    double mu = a->fpar[0];
    dy[0] = y[1];
    dy[1] = mu * (1.0 - y[0] * y[0]) * y[1] - y[0];
    return FJ_OK;
}

static int64_t first_state(const fj_args *a, double t, const double *y, const double *tau, double *g,
                           int64_t n_out) {
    (void)a, (void)t, (void)tau;
    if (n_out > 0) g[0] = y[0];
    return FJ_OK;
}

static int64_t robertson(const fj_args *a, double t, const double *y, const double *tau, double *dy,
                         int64_t n_out) {
    (void)a, (void)t, (void)tau, (void)n_out;
    dy[0] = -0.04 * y[0] + 1e4 * y[1] * y[2];
    dy[2] = 3e7 * y[1] * y[1];
    dy[1] = -dy[0] - dy[2];
    return FJ_OK;
}

static int64_t linear(const fj_args *a, double t, const double *y, const double *tau, double *dy, int64_t n_out) {
    (void)t;
    int64_t n = n_out;
    const double *A = a->fpar, *b = a->fpar + n * n;
    for (int64_t i = 0; i < n; i++) {
        double acc = a->n_tau > 0 ? b[i] * tau[0] : 0.0;
        for (int64_t j = 0; j < n; j++) acc += A[i * n + j] * y[j];
        dy[i] = acc;
    }
    return FJ_OK;
}

static int64_t linear_level(const fj_args *a, double t, const double *y, const double *tau, double *g,
                            int64_t n_out) {
    (void)t, (void)tau;
    if (n_out > 0) g[0] = y[0] - a->fpar[a->n_y * a->n_y + a->n_y];
    return FJ_OK;
}

#define TEST_FAMILY(name, rhs, events)                                                                          \
    const fj_family fj_family_##name = {#name, rhs, events, record_state, fj_no_scratch, fj_no_failure,        \
                                        NULL, NULL, NULL, NULL, NULL}

TEST_FAMILY(rodas_vdp, van_der_pol, first_state);
TEST_FAMILY(rodas_robertson, robertson, first_state);
TEST_FAMILY(rodas_linear, linear, linear_level);

const fj_family fj_family_rodas_linear_stiff = {"rodas_linear_stiff", linear, fj_no_events, record_state,
                                                fj_no_scratch, fj_no_failure, fj_single_mode_layout,
                                                fj_single_mode_events, fj_single_mode_decide, &fj_rodas, NULL};
