/* DOP853 as a pair of the driver (rk_method.h): Dormand-Prince 8(5,3) with SciPy's coefficients
 * (dop853_coefficients.h), its error norm from the 5th- and 3rd-order estimates and its 7th-order dense
 * output (SciPy's DOP853 and Dop853DenseOutput). */
#include <math.h>

#include "dop853_coefficients.h"
#include "rk_method.h"

#define N_STAGES DOP853_N_STAGES

/* SciPy's DOP853 estimate: h |e5|^2 / sqrt(|e5|^2 + 0.01 |e3|^2) / sqrt(n), each scaled by
 * atol + max(|y|, |y_new|) rtol. */
static double error_norm(const double *y, const double *y_new, const double *K, double h, double rtol, double atol,
                         int64_t n) {
    double err5 = 0.0, err3 = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double scale = atol + py_max(fabs(y[i]), fabs(y_new[i])) * rtol;
        double e5 = 0.0, e3 = 0.0;
        for (int j = 0; j < N_STAGES + 1; j++) {
            e5 += DOP853_E5[j] * K[j * n + i];
            e3 += DOP853_E3[j] * K[j * n + i];
        }
        err5 += (e5 / scale) * (e5 / scale);
        err3 += (e3 / scale) * (e3 / scale);
    }
    return err5 == 0.0 && err3 == 0.0 ? 0.0 : h * err5 / sqrt((err5 + 0.01 * err3) * (double)n);
}

/* The 3 extra stages and the interpolation polynomial F (7 x n) of the step (SciPy's Dop853DenseOutput). */
static int64_t dense(const fj_eval *s, double t_old, double h, const double *y_old, const double *y_new,
                     const double *f_new, double *K, double *ys, double *F) {
    int64_t n = s->n;
    for (int st = N_STAGES + 1; st < 16; st++) {
        fj_rk_combine(y_old, h, DOP853_A[st], K, st, n, ys);
        int64_t status = fj_eval_rhs(s, t_old + DOP853_C[st] * h, ys, K + st * n);
        if (status != FJ_OK) return status;
    }
    for (int64_t i = 0; i < n; i++) {
        double delta = y_new[i] - y_old[i];
        F[i] = delta;
        F[n + i] = h * K[i] - delta;
        F[2 * n + i] = 2.0 * delta - h * (f_new[i] + K[i]);
        for (int r = 0; r < 4; r++) {
            double acc = 0.0;
            for (int j = 0; j < 16; j++) acc += DOP853_D[r][j] * K[j * n + i];
            F[(3 + r) * n + i] = h * acc;
        }
    }
    return FJ_OK;
}

static void interpolate(double t, double t_old, double h, const double *y_old, const double *F, int64_t n,
                        double *out) {
    double x = (t - t_old) / h;
    for (int64_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (int r = 6; r >= 0; r--) { /* Horner form of SciPy's Dop853DenseOutput */
            acc += F[r * n + i];
            acc *= (6 - r) % 2 == 0 ? x : 1.0 - x;
        }
        out[i] = acc + y_old[i];
    }
}

const fj_rk_method fj_rk_dop853 = {N_STAGES, 7, &DOP853_A[0][0], 16, DOP853_B, DOP853_C, error_norm, 3, dense,
                                   interpolate};
