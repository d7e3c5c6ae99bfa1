/* The driver of the embedded Runge-Kutta pairs (fj_rk.h): steps, error control, event location and
 * output times, shared by DOP853 and RK45 (a pair is its tableau, error norm and dense output,
 * rk_method.h).
 *
 * The methods of the Python engine's integrator (SciPy's DOP853 and RK45: their coefficients, error
 * norms and step-size control, their dense output), with event roots located by Brent's method on the
 * dense output to 4 machine epsilons (SciPy's brentq). The step size the controller proposes is
 * returned (info), so that the next call (the next co-simulation step) continues with it. min and max
 * follow Python's semantics where a NaN may appear (py_min, py_max of rk_method.h), so that a step whose
 * right-hand side is not finite is rejected and shrunk as in SciPy.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "rk_method.h"

#define SAFETY 0.9
#define MIN_FACTOR 0.2
#define MAX_FACTOR 10.0
#define ROOT_TOLERANCE (4.0 * DBL_EPSILON)
#define NOT_CROSSED DBL_MIN /* |g| given to an event function resting exactly on zero (unfired) */
#define ROOT_ITERATIONS 100

typedef fj_rk_stepper stepper;

static void inputs(const stepper *s, double t) {
    for (int64_t i = 0; i < s->a->n_tau; i++) {
        const double *row = s->forms + 5 * i;
        s->tau[i] = row[0] == 0.0 ? row[1] + row[2] * (t - s->t0) : row[1] + row[2] * sin(row[3] * t + row[4]);
    }
}

int64_t fj_rk_rhs(const stepper *s, double t, const double *y, double *dy) {
    inputs(s, t);
    return s->fam->rhs(s->a, t, y, s->tau, dy, s->n);
}

static int64_t events(const stepper *s, double t, const double *y, double *g, int64_t n_events) {
    inputs(s, t);
    return s->fam->events(s->a, t, y, s->tau, g, n_events);
}

static double rms(const double *v, const double *scale, int64_t n) {
    double acc = 0.0;
    for (int64_t i = 0; i < n; i++) acc += (v[i] / scale[i]) * (v[i] / scale[i]);
    return sqrt(acc / (double)(n > 1 ? n : 1));
}

void fj_rk_combine(const double *y, double h, const double *coefficients, const double *K, int stages, int64_t n,
                   double *out) {
    for (int64_t i = 0; i < n; i++) {
        double acc = 0.0;
        for (int j = 0; j < stages; j++) acc += coefficients[j] * K[j * n + i];
        out[i] = y[i] + h * acc;
    }
}

/* An event function g resting exactly on zero has not crossed yet: moved to the side before the
 * crossing (hybrid.integrator.unfired, the same convention on the Python engine). */
static double unfired(double g, int64_t direction) {
    return g == 0.0 && direction != 0 ? -(double)direction * NOT_CROSSED : g;
}

/* The interpolant of a step and what evaluating an event on it needs. */
typedef struct {
    const fj_rk_method *m;
    double t_old, h;
    const double *y_old, *F;
    double *ys, *g;
    int64_t n_events;
} dense_step;

static int64_t event_value(const stepper *s, const dense_step *d, int64_t k, int64_t direction, double t,
                           double *value) {
    d->m->interpolate(t, d->t_old, d->h, d->y_old, d->F, s->n, d->ys);
    int64_t status = events(s, t, d->ys, d->g, d->n_events);
    *value = unfired(d->g[k], direction);
    return status;
}

/* Root of event k in [t_a, t_b] on the dense output: Brent's method as in SciPy's brentq
 * (xtol = rtol = 4 eps). Returns the kernel status; *root the root. */
static int64_t event_root(const stepper *s, const dense_step *d, int64_t k, int64_t direction, double t_a, double t_b,
                          double *root) {
    double xpre = t_a, xcur = t_b, fpre, fcur;
    *root = xcur;
    int64_t status = event_value(s, d, k, direction, xpre, &fpre);
    if (status != FJ_OK) return status;
    status = event_value(s, d, k, direction, xcur, &fcur);
    if (status != FJ_OK) return status;
    if (fpre == 0.0) {
        *root = xpre;
        return FJ_OK;
    }
    if (fcur == 0.0) return FJ_OK;
    double xblk = 0.0, fblk = 0.0, spre = 0.0, scur = 0.0;
    for (int it = 0; it < ROOT_ITERATIONS; it++) {
        if (fpre != 0.0 && fcur != 0.0 && (fpre < 0.0) != (fcur < 0.0)) {
            xblk = xpre;
            fblk = fpre;
            spre = scur = xcur - xpre;
        }
        if (fabs(fblk) < fabs(fcur)) {
            xpre = xcur;
            xcur = xblk;
            xblk = xpre;
            fpre = fcur;
            fcur = fblk;
            fblk = fpre;
        }
        double delta = (ROOT_TOLERANCE + ROOT_TOLERANCE * fabs(xcur)) / 2.0;
        double sbis = (xblk - xcur) / 2.0;
        if (fcur == 0.0 || fabs(sbis) < delta) break;
        if (fabs(spre) > delta && fabs(fcur) < fabs(fpre)) {
            double stry;
            if (xpre == xblk) { /* interpolate */
                stry = -fcur * (xcur - xpre) / (fcur - fpre);
            } else { /* extrapolate */
                double dpre = (fpre - fcur) / (xpre - xcur);
                double dblk = (fblk - fcur) / (xblk - xcur);
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre));
            }
            if (2.0 * fabs(stry) < py_min(fabs(spre), 3.0 * fabs(sbis) - delta)) {
                spre = scur;
                scur = stry;
            } else {
                spre = scur = sbis;
            }
        } else {
            spre = scur = sbis;
        }
        xpre = xcur;
        fpre = fcur;
        xcur += fabs(scur) > delta ? scur : (sbis > 0 ? delta : -delta);
        status = event_value(s, d, k, direction, xcur, &fcur);
        if (status != FJ_OK) break;
    }
    *root = xcur;
    return status;
}

/* SciPy's select_initial_step (Hairer, Norsett, Wanner II.4) for an error estimator of order
 * error_order. ys, fs, scale: n of scratch each. Returns the kernel status; *h the step. */
static int64_t initial_step(const stepper *s, int error_order, double t, const double *y, const double *f,
                            double t_end, double max_step, double rtol, double atol, double *ys, double *fs,
                            double *scale, double *h) {
    int64_t n = s->n;
    for (int64_t i = 0; i < n; i++) scale[i] = atol + fabs(y[i]) * rtol;
    double d0 = rms(y, scale, n), d1 = rms(f, scale, n);
    double h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
    h0 = py_min(h0, t_end - t);
    for (int64_t i = 0; i < n; i++) ys[i] = y[i] + h0 * f[i];
    int64_t status = fj_rk_rhs(s, t + h0, ys, fs);
    for (int64_t i = 0; i < n; i++) fs[i] -= f[i];
    double d2 = rms(fs, scale, n) / h0;
    double h1 = d1 <= 1e-15 && d2 <= 1e-15 ? py_max(1e-6, h0 * 1e-3)
                                           : pow(0.01 / py_max(d1, d2), 1.0 / (error_order + 1));
    *h = py_min(py_min(py_min(100.0 * h0, h1), t_end - t), max_step);
    return status;
}

int64_t fj_rk_scratch_size(int64_t n_y, int64_t n_events, int64_t n_tau) {
    return (FJ_RK_MAX_K + FJ_RK_MAX_F + 5) * n_y + 3 * n_events + n_tau;
}

/* Whether an event function moving from g0 to g1 crosses zero in the event's direction (SciPy's
 * find_active_events). */
static int crosses(double g0, double g1, int64_t direction) {
    g0 = unfired(g0, direction);
    g1 = unfired(g1, direction);
    int up = g0 <= 0.0 && g1 >= 0.0, down = g0 >= 0.0 && g1 <= 0.0;
    return (up && direction > 0) || (down && direction < 0) || ((up || down) && direction == 0);
}

int64_t fj_rk_advance(const fj_rk_method *m, const fj_family *fam, fj_args *a, double *scratch, double t,
                      double *y, double t_end, double h_abs, double rtol, double atol, double max_step,
                      const double *forms, const int64_t *directions, int64_t n_events, const double *grid,
                      int64_t n_grid, double *records, int64_t n_record, double *info, double quiet) {
    int64_t n = a->n_y;
    double *K = scratch, *F = K + FJ_RK_MAX_K * n, *f = F + FJ_RK_MAX_F * n, *y_new = f + n, *f_new = y_new + n;
    double *ys = f_new + n;
    double *scale = ys + n, *g_old = scale + n, *g_new = g_old + n_events, *g_scratch = g_new + n_events;
    stepper s = {fam, a, forms, t, g_scratch + n_events, n};
    info[FJ_INFO_EVENT] = -1.0;
    info[FJ_INFO_RECORDS] = info[FJ_INFO_KERNEL_STATUS] = info[FJ_INFO_STEPS] = 0.0;
    int64_t calls = 1, st = fj_rk_rhs(&s, t, y, f);
    if (st == FJ_OK && n_events) st = events(&s, t, y, g_old, n_events);
    if (st == FJ_OK && quiet > 0.0) {
        for (int64_t k = 0; k < n_events; k++) {
            double distance = directions[k] == 0 ? fabs(g_old[k]) : -(double)directions[k] * g_old[k];
            if (!(distance > quiet)) {
                info[FJ_INFO_T] = t;
                info[FJ_INFO_H] = h_abs;
                info[FJ_INFO_RHS_CALLS] = (double)calls;
                return FJ_NOT_QUIET;
            }
        }
    }
    if (st == FJ_OK && !(h_abs > 0.0) && t_end > t) { /* no step size yet (or NaN) */
        st = initial_step(&s, m->error_order, t, y, f, t_end, max_step, rtol, atol, ys, f_new, scale, &h_abs);
        calls += 1;
    }
    int64_t i_grid = 0, n_rec = 0, steps = 0, status = FJ_REACHED_END;
    double exponent = -1.0 / (m->error_order + 1);
    double t_new = t, h = 0.0;
    while (st == FJ_OK && t < t_end) {
        double min_step = 10.0 * fabs(nextafter(t, INFINITY) - t);
        h_abs = py_max(py_min(h_abs, max_step), min_step);
        int rejected = 0;
        for (;;) { /* one accepted step (SciPy's RungeKutta._step_impl) */
            if (h_abs < min_step) {
                status = FJ_STEP_TOO_SMALL;
                break;
            }
            t_new = py_min(t + h_abs, t_end);
            h = t_new - t;
            /* as SciPy: a step cut at t_end continues from its length (else a step size grown without
             * bound while the error was 0, e.g. in stiction, could never shrink again) */
            h_abs = h;
            memcpy(K, f, (size_t)n * sizeof(double));
            for (int stage = 1; stage < m->n_stages && st == FJ_OK; stage++) {
                fj_rk_combine(y, h, m->a + stage * m->a_stride, K, stage, n, ys);
                st = fj_rk_rhs(&s, t + m->c[stage] * h, ys, K + stage * n);
            }
            if (st != FJ_OK) break;
            fj_rk_combine(y, h, m->b, K, m->n_stages, n, y_new);
            st = fj_rk_rhs(&s, t_new, y_new, f_new);
            calls += m->n_stages;
            if (st != FJ_OK) break;
            memcpy(K + m->n_stages * n, f_new, (size_t)n * sizeof(double));
            double error = m->error_norm(y, y_new, K, h, rtol, atol, n);
            if (error < 1.0) {
                double factor = error == 0.0 ? MAX_FACTOR : py_min(MAX_FACTOR, SAFETY * pow(error, exponent));
                if (rejected) factor = py_min(1.0, factor);
                h_abs *= factor;
                break;
            }
            /* SciPy's max(MIN_FACTOR, ...), which gives MIN_FACTOR for a NaN error (a right-hand side
             * not finite at a stage): the step shrinks instead of never ending */
            double shrink = SAFETY * pow(error, exponent);
            h_abs *= shrink > MIN_FACTOR ? shrink : MIN_FACTOR;
            rejected = 1;
        }
        if (st != FJ_OK || status != FJ_REACHED_END) break;
        steps += 1;
        int dense = 0;
        double t_stop = t_new;
        int64_t fired = -1;
        dense_step d = {m, t, h, y, F, ys, g_scratch, n_events};
        if (n_events) {
            st = events(&s, t_new, y_new, g_new, n_events);
            for (int64_t k = 0; k < n_events && st == FJ_OK; k++) {
                if (!crosses(g_old[k], g_new[k], directions[k])) continue;
                if (!dense) {
                    st = m->dense(&s, t, h, y, y_new, f_new, K, ys, F);
                    calls += m->dense_calls;
                    dense = 1;
                    if (st != FJ_OK) break;
                }
                double root;
                st = event_root(&s, &d, k, directions[k], t, t_new, &root);
                if (st == FJ_OK && (fired < 0 || root < t_stop)) {
                    fired = k;
                    t_stop = root;
                }
            }
            if (st != FJ_OK) break;
        }
        /* output times inside the step (before the event if one fired) */
        while (i_grid < n_grid && (grid[i_grid] < t_stop || (fired < 0 && grid[i_grid] == t_stop))) {
            double tg = grid[i_grid];
            if (tg == t_new) {
                memcpy(ys, y_new, (size_t)n * sizeof(double));
            } else {
                if (!dense) {
                    st = m->dense(&s, t, h, y, y_new, f_new, K, ys, F);
                    calls += m->dense_calls;
                    dense = 1;
                    if (st != FJ_OK) break;
                }
                m->interpolate(tg, t, h, y, F, n, ys);
            }
            inputs(&s, tg);
            st = fam->record(a, tg, ys, s.tau, records + n_rec * n_record, n_record);
            if (st != FJ_OK) break;
            n_rec += 1;
            i_grid += 1;
        }
        if (st != FJ_OK) break;
        if (fired >= 0) {
            m->interpolate(t_stop, t, h, y, F, n, ys);
            memcpy(y, ys, (size_t)n * sizeof(double));
            t = t_stop;
            info[FJ_INFO_EVENT] = (double)fired;
            status = FJ_EVENT;
            break;
        }
        t = t_new;
        memcpy(y, y_new, (size_t)n * sizeof(double));
        memcpy(f, f_new, (size_t)n * sizeof(double));
        memcpy(g_old, g_new, (size_t)n_events * sizeof(double));
    }
    if (st != FJ_OK) status = FJ_KERNEL_FAILED;
    info[FJ_INFO_T] = t;
    info[FJ_INFO_H] = h_abs;
    info[FJ_INFO_RECORDS] = (double)n_rec;
    info[FJ_INFO_RHS_CALLS] = (double)calls;
    info[FJ_INFO_KERNEL_STATUS] = (double)st;
    info[FJ_INFO_STEPS] = (double)steps;
    return status;
}
