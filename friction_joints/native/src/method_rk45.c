/* Dormand-Prince 5(4) as a pair of the driver (rk_method.h): SciPy's RK45, its tableau, error estimate
 * (the 5th-order solution against the embedded 4th-order one, SciPy's E) and 4th-order dense output
 * (SciPy's P; Dormand and Prince, J. Comput. Appl. Math. 6 (1980) 19-26; Shampine, Math. Comp. 46 (1986)
 * 135-150). Six stages a step; the 7th, f at the new point, is the next step's first (FSAL). */
#include <math.h>

#include "rk_method.h"

#define N_STAGES 6
#define N_DENSE 4 /* the interpolant's powers of x: x, x^2, x^3, x^4 */

static const double C[N_STAGES] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0};
static const double A[N_STAGES][N_STAGES] = {
    {0.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0},
    {3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0.0, 0.0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0.0}};
static const double B[N_STAGES] = {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0};
static const double E[N_STAGES + 1] = {-71.0 / 57600.0, 0.0, 71.0 / 16695.0, -71.0 / 1920.0, 17253.0 / 339200.0,
                                       -22.0 / 525.0, 1.0 / 40.0};
static const double P[N_STAGES + 1][N_DENSE] = {
    {1.0, -8048581381.0 / 2820520608.0, 8663915743.0 / 2820520608.0, -12715105075.0 / 11282082432.0},
    {0.0, 0.0, 0.0, 0.0},
    {0.0, 131558114200.0 / 32700410799.0, -68118460800.0 / 10900136933.0, 87487479700.0 / 32700410799.0},
    {0.0, -1754552775.0 / 470086768.0, 14199869525.0 / 1410260304.0, -10690763975.0 / 1880347072.0},
    {0.0, 127303824393.0 / 49829197408.0, -318862633887.0 / 49829197408.0, 701980252875.0 / 199316789632.0},
    {0.0, -282668133.0 / 205662961.0, 2019193451.0 / 616988883.0, -1453857185.0 / 822651844.0},
    {0.0, 40617522.0 / 29380423.0, -110615467.0 / 29380423.0, 69997945.0 / 29380423.0}};

/* SciPy's RungeKutta estimate: the rms of h sum_j E[j] K[j], scaled by atol + max(|y|, |y_new|) rtol. */
static double error_norm(const double *y, const double *y_new, const double *K, double h, double rtol, double atol,
                         int64_t n) {
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double e = 0.0;
        for (int j = 0; j < N_STAGES + 1; j++) e += E[j] * K[j * n + i];
        double scaled = e * h / (atol + py_max(fabs(y[i]), fabs(y_new[i])) * rtol);
        acc += scaled * scaled;
    }
    return sqrt(acc / (double)n);
}

/* Q = K^T P (F's first N_DENSE rows of n), SciPy's RK45._dense_output_impl: no more stages. */
static int64_t dense(const fj_eval *s, double t_old, double h, const double *y_old, const double *y_new,
                     const double *f_new, double *K, double *ys, double *F) {
    (void)t_old, (void)h, (void)y_old, (void)y_new, (void)f_new, (void)ys;
    int64_t n = s->n;
    for (int r = 0; r < N_DENSE; r++)
        for (int64_t i = 0; i < n; i++) {
            double acc = 0.0;
            for (int j = 0; j < N_STAGES + 1; j++) acc += K[j * n + i] * P[j][r];
            F[r * n + i] = acc;
        }
    return FJ_OK;
}

/* y_old + h sum_r Q[r] x^(r+1), x = (t - t_old) / h (SciPy's RkDenseOutput). */
static void interpolate(double t, double t_old, double h, const double *y_old, const double *F, int64_t n,
                        double *out) {
    double x = (t - t_old) / h, p[N_DENSE];
    p[0] = x;
    for (int r = 1; r < N_DENSE; r++) p[r] = p[r - 1] * x;
    for (int64_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (int r = 0; r < N_DENSE; r++) acc += F[r * n + i] * p[r];
        out[i] = h * acc + y_old[i];
    }
}

const fj_rk_method fj_rk_rk45 = {N_STAGES, 4, &A[0][0], N_STAGES, B, C, error_norm, 0, dense, interpolate};
