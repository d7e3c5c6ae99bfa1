/* RODAS: a Rosenbrock method of order 4(3) with dense output and event location (fj_rodas.h).
 *
 * Hairer & Wanner, Solving ODEs II (1996), section IV.7, in the form rodas.f implements: E = I/(h gamma) - J,
 * J = df/dy at (t0, y0), f_t = df/dt there, stage i = 1..6 solves
 *     E k_i = f(t0 + c_i h, y0 + sum_{j<i} a_ij k_j) + sum_{j<i} (c_ij / h) k_j + h d_i f_t,
 * the embedded solution is stage 6's point y0 + sum_{j<6} a_6j k_j, the solution y1 = that + k_6
 * (stiffly accurate: a_6j = a_5j + [j = 5]), the error estimate k_6. The coefficients are rodas.f's
 * (ROCOE, METH = 1: "see book, page 452"), its dense output (CONTRO)
 *     y(t0 + s h) = (1 - s) y0 + s (y1 + (1 - s)(D2 + s D3)),  D2 = sum d2_j k_j, D3 = sum d3_j k_j,
 * its error norm, step-size bounds (1/5 .. 6 times per step, safety 0.9), Gustafsson's predictive
 * controller, its first step (1e-6 s) and its response to a singular E (halve h, five times at most);
 * a stage the kernels fail to evaluate (a trial state beyond the model's range, which the solution need not
 * reach) rejects the step as a non-finite error does, until the step would fall below its minimum (then
 * the kernel's status);
 * the step is bounded by max_step alone (rodas.f also by the interval), so that the step size the
 * controller proposes survives calls over short intervals (co-simulation steps).
 * J and f_t by forward differences of rodas.f's increments sqrt(1e-16 max(1e-5, |y_j|)), evaluated
 * once per step (rejections reuse them: the point is the same), as in rodas.f; what is exactly zero is
 * taken so without a difference: the columns of the states the family declares integrals
 * (fj_family.integrals), and f_t under inputs held over the call (fj_inputs_held).
 * The right-hand sides of a step but its first, f(t0, y0), are the family's rhs_near (fj_kernel.h): those
 * of J, f_t and the stages, each about the point of f(t0, y0), whose iterative solves (a coupled
 * reaction-friction solve) start from its solution, so that the step remains a function of (t0, y0).
 */
#include <math.h>
#include <string.h>

#include "fj_linalg.h"
#include "fj_rodas.h"
#include "fj_stepping.h"

#define N_STAGES 6
#define GAMMA 0.25
#define UROUND 1e-16     /* rodas.f's rounding unit, of its increments */
#define SAFE 0.9         /* safety factor */
#define FAC1 5.0         /* the step may shrink to 1/FAC1 of itself ... */
#define FAC2 (1.0 / 6.0) /* ... and grow to 1/FAC2 of itself */
#define FIRST_STEP 1e-6  /* s: the first step when none is given */
#define MAX_SINGULAR 5   /* singular matrices in a row before giving up */

/* ROCOE, METH = 1: a_ij (row 6: row 5 + k_5), c_ij, the stages' times c_i and d_i = gamma_i */
static const double A[N_STAGES][N_STAGES - 1] = {
    {0.0, 0.0, 0.0, 0.0, 0.0},
    {1.544, 0.0, 0.0, 0.0, 0.0},
    {0.9466785280815826, 0.2557011698983284, 0.0, 0.0, 0.0},
    {3.314825187068521, 2.896124015972201, 0.9986419139977817, 0.0, 0.0},
    {1.221224509226641, 6.019134481288629, 12.53708332932087, -0.6878860361058950, 0.0},
    {1.221224509226641, 6.019134481288629, 12.53708332932087, -0.6878860361058950, 1.0}};
static const double C[N_STAGES][N_STAGES - 1] = {
    {0.0, 0.0, 0.0, 0.0, 0.0},
    {-5.6688, 0.0, 0.0, 0.0, 0.0},
    {-2.430093356833875, -0.2063599157091915, 0.0, 0.0, 0.0},
    {-0.1073529058151375, -9.594562251023355, -20.47028614809616, 0.0, 0.0},
    {7.496443313967647, -10.24680431464352, -33.99990352819905, 11.70890893206160, 0.0},
    {8.083246795921522, -7.981132988064893, -31.52159432874371, 16.31930543123136, -6.058818238834054}};
static const double TIMES[N_STAGES] = {0.0, 0.386, 0.21, 0.63, 1.0, 1.0};
static const double D[N_STAGES] = {0.25, -0.1043, 0.1035, -0.03620000000000023, 0.0, 0.0};
/* the dense output's D2 and D3 over k_1..k_5 */
static const double DENSE[2][N_STAGES - 1] = {
    {10.12623508344586, -7.487995877610167, -34.80091861555747, -7.992771707568823, 1.025137723295662},
    {-0.6762803392801253, 6.087714651680015, 16.43084320892478, 24.76722511418386, -6.594389125716872}};

/* The dense output of the step from (t_old, y_old) over h to y_new (fj_dense's at). */
typedef struct {
    double t_old, h;
    const double *y_old, *y_new, *D2, *D3;
    int64_t n;
} rodas_dense;

static int64_t dense_at(void *self, double t, double *out) {
    const rodas_dense *d = self;
    double s = (t - d->t_old) / d->h;
    for (int64_t i = 0; i < d->n; i++)
        out[i] = (1.0 - s) * d->y_old[i] + s * (d->y_new[i] + (1.0 - s) * (d->D2[i] + s * d->D3[i]));
    return FJ_OK;
}

/* The family's rhs_near (fj_kernel.h; its rhs if it has none) at (t, y): next to the last rhs call's state. */
static int64_t eval_rhs_near(const fj_eval *e, double t, const double *y, double *dy) {
    if (e->fam->rhs_near == NULL) return fj_eval_rhs(e, t, y, dy);
    fj_eval_inputs(e, t);
    return e->fam->rhs_near(e->a, t, y, e->tau, dy, e->n);
}

/* J (n x n, row-major: J[i n + j] = df_i/dy_j) and f_t at (t, y), where f0 = f(t, y), by forward
 * differences (rodas.f) but what is exactly zero: the columns of the integrals y[skip .. skip + n_skip),
 * which no right-hand side reads (fj_family.integrals), and f_t if the inputs are held (a kernel reads t
 * only through them: fj_kernel.h); ys, dy: n of scratch. Returns the kernel status. The columns are taken
 * from the last: a mechanism's state is [positions, velocities, ...], so the columns that keep the positions
 * come right after f0, and a family's rhs_near can reuse its terms of the positions for all of them. */
static int64_t derivatives(const fj_eval *e, double t, const double *y, const double *f0, int64_t skip,
                           int64_t n_skip, int held, double *J, double *f_t, double *ys, double *dy) {
    int64_t n = e->n, st = FJ_OK;
    memcpy(ys, y, (size_t)n * sizeof(double));
    for (int64_t j = n - 1; j >= 0 && st == FJ_OK; j--) {
        if (j >= skip && j < skip + n_skip) {
            for (int64_t i = 0; i < n; i++) J[i * n + j] = 0.0;
            continue;
        }
        double delta = sqrt(UROUND * py_max(1e-5, fabs(y[j])));
        ys[j] = y[j] + delta;
        st = eval_rhs_near(e, t, ys, dy);
        ys[j] = y[j];
        for (int64_t i = 0; i < n; i++) J[i * n + j] = (dy[i] - f0[i]) / delta;
    }
    if (st != FJ_OK || held) {
        memset(f_t, 0, (size_t)n * sizeof(double));
        return st;
    }
    double delta = sqrt(UROUND * py_max(1e-5, fabs(t)));
    st = eval_rhs_near(e, t + delta, y, dy);
    for (int64_t i = 0; i < n; i++) f_t[i] = (dy[i] - f0[i]) / delta;
    return st;
}

/* The six stages K (6 x n) of a step of size h from (t, y) with f0 = f(t, y), the LU of E (LU, piv),
 * f_t; y_new the solution. ys, dy: n of scratch. Returns the kernel status. */
static int64_t stages(const fj_eval *e, double t, const double *y, double h, const double *f0, const double *f_t,
                      const double *LU, const int64_t *piv, double *K, double *y_new, double *ys, double *dy) {
    int64_t n = e->n;
    for (int i = 0; i < N_STAGES; i++) {
        double *k = K + i * n;
        const double *f = f0;
        if (i > 0) {
            for (int64_t m = 0; m < n; m++) {
                double acc = y[m];
                for (int j = 0; j < i; j++) acc += A[i][j] * K[j * n + m];
                ys[m] = acc;
            }
            int64_t st = eval_rhs_near(e, t + TIMES[i] * h, ys, dy);
            if (st != FJ_OK) return st;
            f = dy;
        }
        double hc[N_STAGES - 1], hd = h * D[i]; /* rodas.f's HC_ij = c_ij / h, HD_i = h d_i */
        for (int j = 0; j < i; j++) hc[j] = C[i][j] / h;
        for (int64_t m = 0; m < n; m++) {
            double acc = f[m] + hd * f_t[m];
            for (int j = 0; j < i; j++) acc += hc[j] * K[j * n + m];
            k[m] = acc;
        }
        fj_lu_solve(LU, n, n, piv, k);
    }
    for (int64_t m = 0; m < n; m++) y_new[m] = ys[m] + K[(N_STAGES - 1) * n + m];
    return FJ_OK;
}

/* rodas.f's error of the step: the root mean square of k_6 / (atol + rtol max(|y|, |y_new|)). */
static double error_norm(const double *y, const double *y_new, const double *k6, double rtol, double atol,
                         int64_t n) {
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double sk = atol + rtol * py_max(fabs(y[i]), fabs(y_new[i]));
        acc += (k6[i] / sk) * (k6[i] / sk);
    }
    return sqrt(acc / (double)(n > 1 ? n : 1));
}

int64_t fj_rodas_scratch_size(int64_t n_y, int64_t n_events, int64_t n_tau) {
    return 2 * n_y * n_y + 14 * n_y + (4 + FJ_EVENT_SAMPLES) * n_events + n_tau; /* the pivots: n_y int64_t */
}

const char *fj_rodas_message(int64_t status) {
    switch (status) {
    case FJ_REACHED_END: return "reached the end";
    case FJ_EVENT: return "stopped at an event";
    case FJ_KERNEL_FAILED: return "a kernel of the family failed";
    case FJ_STEP_TOO_SMALL: return "the step size fell below the spacing of the numbers";
    case FJ_NOT_QUIET: return "an event function is not quiet at the start";
    case FJ_MATRIX_SINGULAR: return "the matrix I/(h gamma) - J of the Rosenbrock stages is repeatedly singular";
    default: return "unknown status";
    }
}

const fj_integrator fj_rodas = {fj_rodas_advance, fj_rodas_scratch_size, FJ_RODAS_INFO_SIZE, fj_rodas_message};

int64_t fj_rodas_advance(const fj_family *fam, fj_args *a, double *scratch, double t, double *y, double t_end,
                         double h_abs, double rtol, double atol, double max_step, const double *forms,
                         const int64_t *directions, int64_t n_events, const double *grid, int64_t n_grid,
                         double *records, int64_t n_record, double *info, double quiet) {
    int64_t n = a->n_y;
    double *K = scratch, *y_new = K + N_STAGES * n, *f0 = y_new + n, *f_t = f0 + n, *dy = f_t + n, *ys = dy + n;
    double *D2 = ys + n, *D3 = D2 + n, *J = D3 + n, *LU = J + n * n, *g_old = LU + n * n, *g_new = g_old + n_events;
    double *g_scratch = g_new + n_events, *g_samples = g_scratch + n_events;
    double *tau = g_samples + (FJ_EVENT_SAMPLES + 1) * n_events;
    int64_t *piv = (int64_t *)(tau + a->n_tau); /* allocated memory: its effective type is set here */
    fj_eval e = {fam, a, forms, t, tau, n};
    fj_grid out = {grid, n_grid, 0, records, n_record, 0};
    int64_t calls = 0, jacobians = 0, steps = 0, rejected = 0, accepted_here = 0, skip = 0, n_skip = 0;
    if (fam->integrals) fam->integrals(a, &skip, &n_skip);
    int held = fj_inputs_held(&e);
    int64_t st = n_events ? fj_eval_events(&e, t, y, g_old, n_events) : FJ_OK, status = FJ_REACHED_END;
    if (st == FJ_OK && quiet > 0.0 && !fj_events_quiet(g_old, directions, n_events, quiet)) status = FJ_NOT_QUIET;
    if (status == FJ_REACHED_END && !(h_abs > 0.0)) h_abs = FIRST_STEP;
    double h_acc = 0.0, err_acc = 1.0;
    while (st == FJ_OK && status == FJ_REACHED_END && t < t_end) {
        double min_step = 10.0 * fabs(nextafter(t, INFINITY) - t);
        double h_ctrl = py_max(py_min(h_abs, max_step), min_step), h_opt = h_ctrl;
        int last = t + 1.0001 * h_ctrl >= t_end, reject = 0, singular = 0;
        st = fj_eval_rhs(&e, t, y, f0);
        if (st == FJ_OK) st = derivatives(&e, t, y, f0, skip, n_skip, held, J, f_t, ys, dy);
        calls += n - n_skip + 2 - held;
        jacobians += 1;
        double h = 0.0, h_new = 0.0;
        while (st == FJ_OK) { /* one accepted step (rodas.f's ROSCOR from label 2) */
            if (h_ctrl < min_step) {
                status = FJ_STEP_TOO_SMALL;
                break;
            }
            h = last ? t_end - t : h_ctrl;
            for (int64_t i = 0; i < n * n; i++) LU[i] = -J[i];
            for (int64_t i = 0; i < n; i++) LU[i * n + i] += 1.0 / (h * GAMMA);
            if (fj_lu_factor(LU, n, n, piv)) {
                if (++singular >= MAX_SINGULAR) {
                    status = FJ_MATRIX_SINGULAR;
                    break;
                }
                h_ctrl = h * 0.5;
                reject = 1;
                last = 0;
                continue;
            }
            st = stages(&e, t, y, h, f0, f_t, LU, piv, K, y_new, ys, dy);
            calls += N_STAGES - 1;
            if (st != FJ_OK) { /* a stage the kernels cannot evaluate (beyond the model's range: a bristle */
                if (h / FAC1 < min_step) break; /* coupling with no solution): shrunk as a non-finite error */
                st = FJ_OK;
                h_ctrl = h / FAC1;
                reject = 1;
                last = 0;
                rejected += 1;
                continue;
            }
            double err = error_norm(y, y_new, K + (N_STAGES - 1) * n, rtol, atol, n);
            /* h_new = h / fac, fac within [FAC2, FAC1]; a NaN error (a stage not finite) shrinks most */
            double fac = err == err ? py_max(FAC2, py_min(FAC1, sqrt(sqrt(err)) / SAFE)) : FAC1;
            if (err <= 1.0) {
                if (accepted_here > 0) { /* Gustafsson's predictive controller (rodas.f, PRED) */
                    double gus = h_acc / h * sqrt(sqrt(err * err / err_acc)) / SAFE;
                    fac = py_max(fac, py_max(FAC2, py_min(FAC1, gus)));
                }
                h_acc = h;
                err_acc = py_max(1e-2, err);
                h_new = py_min(h / fac, max_step);
                if (reject) h_new = py_min(h_new, h);
                break;
            }
            h_ctrl = h / fac;
            reject = 1;
            last = 0;
            rejected += 1;
        }
        if (st != FJ_OK || status != FJ_REACHED_END) break;
        steps += 1;
        accepted_here += 1;
        for (int64_t m = 0; m < n; m++) {
            double d2 = 0.0, d3 = 0.0;
            for (int j = 0; j < N_STAGES - 1; j++) {
                d2 += DENSE[0][j] * K[j * n + m];
                d3 += DENSE[1][j] * K[j * n + m];
            }
            D2[m] = d2;
            D3[m] = d3;
        }
        double t_new = last ? t_end : t + h, t_stop;
        rodas_dense dense = {t, h, y, y_new, D2, D3, n};
        fj_dense d = {dense_at, &dense, t, t_new, y_new};
        int64_t fired;
        st = fj_step_output(&e, &d, g_old, g_new, directions, n_events, &out, ys, g_scratch, g_samples, &fired,
                            &t_stop);
        if (st != FJ_OK) break;
        /* rodas.f: after the last step, the step size the controller proposed before cutting it */
        h_abs = last ? h_opt : h_new;
        if (fired >= 0) {
            status = fj_stop_at_event(&e, &d, fired, t_stop, &t, y, ys, info);
            break;
        }
        t = t_new;
        memcpy(y, y_new, (size_t)n * sizeof(double));
        memcpy(g_old, g_new, (size_t)n_events * sizeof(double));
    }
    if (st != FJ_OK) status = FJ_KERNEL_FAILED;
    if (status != FJ_EVENT) info[FJ_INFO_EVENT] = -1.0;
    fj_advance_info(info, t, h_abs, steps, out.n_rec, calls, st);
    info[FJ_INFO_JACOBIANS] = (double)jacobians;
    info[FJ_INFO_REJECTED] = (double)rejected;
    return status;
}
