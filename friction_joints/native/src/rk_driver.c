/* The driver of the embedded Runge-Kutta pairs (fj_rk.h): steps, error control, event location and
 * output times, shared by DOP853 and RK45 (a pair is its tableau, error norm and dense output,
 * rk_method.h).
 *
 * The methods of the Python engine's integrator (SciPy's DOP853 and RK45: their coefficients, error
 * norms and step-size control, their dense output), with event roots located by Brent's method on the
 * dense output to 4 machine epsilons (SciPy's brentq), also where an event function crosses zero and
 * back within one step (near_zero, bracket: the rule of the Python engine's hybrid.integrator.EventWatch).
 * The step size the controller proposes is returned (info), so that the next call (the next
 * co-simulation step) continues with it. min and max follow Python's semantics where a NaN may appear
 * (py_min, py_max of rk_method.h), so that a step whose right-hand side is not finite is rejected and
 * shrunk as in SciPy.
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
#define N_SAMPLES 3
/* where in a step an event function that may cross zero is sampled on the dense output */
static const double SAMPLES[N_SAMPLES] = {0.25, 0.5, 0.75};



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

static int64_t event_value(const fj_eval *s, const dense_step *d, int64_t k, int64_t direction, double t,
                           double *value) {
    d->m->interpolate(t, d->t_old, d->h, d->y_old, d->F, s->n, d->ys);
    int64_t status = fj_eval_events(s, t, d->ys, d->g, d->n_events);
    *value = unfired(d->g[k], direction);
    return status;
}

/* Root of event k in [t_a, t_b] on the dense output: Brent's method as in SciPy's brentq
 * (xtol = rtol = 4 eps). Returns the kernel status; *root the root. */
static int64_t event_root(const fj_eval *s, const dense_step *d, int64_t k, int64_t direction, double t_a, double t_b,
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
static int64_t initial_step(const fj_eval *s, int error_order, double t, const double *y, const double *f,
                            double t_end, double max_step, double rtol, double atol, double *ys, double *fs,
                            double *scale, double *h) {
    int64_t n = s->n;
    for (int64_t i = 0; i < n; i++) scale[i] = atol + fabs(y[i]) * rtol;
    double d0 = rms(y, scale, n), d1 = rms(f, scale, n);
    double h0 = d0 < 1e-5 || d1 < 1e-5 ? 1e-6 : 0.01 * d0 / d1;
    h0 = py_min(h0, t_end - t);
    for (int64_t i = 0; i < n; i++) ys[i] = y[i] + h0 * f[i];
    int64_t status = fj_eval_rhs(s, t + h0, ys, fs);
    for (int64_t i = 0; i < n; i++) fs[i] -= f[i];
    double d2 = rms(fs, scale, n) / h0;
    double h1 = d1 <= 1e-15 && d2 <= 1e-15 ? py_max(1e-6, h0 * 1e-3)
                                           : pow(0.01 / py_max(d1, d2), 1.0 / (error_order + 1));
    *h = py_min(py_min(py_min(100.0 * h0, h1), t_end - t), max_step);
    return status;
}

int64_t fj_rk_scratch_size(int64_t n_y, int64_t n_events, int64_t n_tau) {
    return (FJ_RK_MAX_K + FJ_RK_MAX_F + 5) * n_y + (4 + N_SAMPLES) * n_events + n_tau;
}

/* Whether an event function moving from g0 to g1 crosses zero in the event's direction (SciPy's
 * find_active_events). */
static int crosses(double g0, double g1, int64_t direction) {
    g0 = unfired(g0, direction);
    g1 = unfired(g1, direction);
    int up = g0 <= 0.0 && g1 >= 0.0, down = g0 >= 0.0 && g1 <= 0.0;
    return (up && direction > 0) || (down && direction < 0) || ((up || down) && direction == 0);
}

/* Where the parabola through (0, g0), (1/2, gm), (1, g1) turns, if inside (0, 1): returns 1 and *x, *value
 * there, else 0 (hybrid.integrator.turn). */
static int turn(double g0, double gm, double g1, double *x, double *value) {
    double c = 2.0 * (g0 - 2.0 * gm + g1), b = 4.0 * gm - 3.0 * g0 - g1;
    if (c == 0.0) return 0;
    *x = -b / (2.0 * c);
    if (!(0.0 < *x && *x < 1.0)) return 0;
    *value = g0 + *x * (b + c * *x);
    return 1;
}

/* Whether an event function sampled at the start, middle and end of an interval (g0, gm, g1) may cross
 * zero inside it: the parabola through the three values comes within its own bend |gm - (g0 + g1) / 2|
 * of zero on the interval (always so where g0 and g1 differ in sign). Inside an accepted step this
 * suffices: a pair accepts a step only where a polynomial in time (of degree 8 for DOP853, 5 for RK45)
 * represents the solution to rtol, so an event function along the step is dominated by its first terms
 * in time; crossing zero and back needs the quadratic term (the bend) to pull it through zero, and the
 * higher terms are smaller than the bend by about the step size over the solution's time scale (hybrid.integrator.near_zero). */
static int near_zero(double g0, double gm, double g1) {
    double x, value, lo = py_min(g0, g1), hi = py_max(g0, g1), bend = fabs(gm - 0.5 * (g0 + g1));
    if (turn(g0, gm, g1, &x, &value)) {
        lo = py_min(lo, value);
        hi = py_max(hi, value);
    }
    return lo - bend <= 0.0 && 0.0 <= hi + bend;
}

/* Of [t_a, t_turn] and [t_turn, t_b] (event k's values g_a, g_b at t_a, t_b), the first over which it crosses
 * zero in its direction: *found 1 and that bracket in *t_lo, *t_hi, else *found 0 (its value at t_turn is
 * evaluated). Returns the kernel status (hybrid.integrator.EventWatch._split). */
static int64_t split(const fj_eval *s, const dense_step *d, int64_t k, int64_t direction, double t_a, double g_a,
                     double t_turn, double t_b, double g_b, int *found, double *t_lo, double *t_hi) {
    double g;
    int64_t status = event_value(s, d, k, direction, t_turn, &g);
    if (status != FJ_OK) return status;
    *found = 1;
    if (crosses(g_a, g, direction)) {
        *t_lo = t_a;
        *t_hi = t_turn;
    } else if (crosses(g, g_b, direction)) {
        *t_lo = t_turn;
        *t_hi = t_b;
    } else {
        *found = 0;
    }
    return FJ_OK;
}

/* A bracket of event k's first crossing in its direction on which its function is monotone (to its
 * samples, values samples at times: N_SAMPLES + 2, the step's ends included, and the parabolas through
 * them). Take the first pair of consecutive samples between which it crosses: where the parabola through
 * that pair and its neighbour turns between them, the pair split at the turn; else, where the samples move
 * towards zero up to that pair and change sign there only, the whole step (a single crossing, the bracket
 * before inner crossings were looked for: its root as then, to the last bit); else the pair. Where no
 * pair crosses, the turn of the parabola through the inner sample nearest zero and its neighbours splits
 * those three, if that parabola may cross zero. Monotone, because Brent's method finds a root of its
 * bracket, the first crossing only where the function is monotone on it: a function that starts on zero
 * to rounding (a mode started at the root of another event on the same function) and moves away first has
 * sign changes of its rounding around the start, where Brent's first secant steps land (hybrid.integrator.
 * EventWatch._bracket says more). Returns the kernel status; *found 1 and the bracket in *t_a, *t_b if it
 * crosses. */
static int64_t bracket(const fj_eval *s, const dense_step *d, int64_t k, int64_t direction, const double *times,
                       const double *samples, int *found, double *t_a, double *t_b) {
    double x, value, t_turn;
    int j = 0;
    while (j < N_SAMPLES + 1 && !crosses(samples[j], samples[j + 1], direction)) j++;
    if (j == N_SAMPLES + 1) {
        *found = 0;
        j = 1; /* the inner sample nearest zero (the first of equals) */
        for (int i = 2; i < N_SAMPLES + 1; i++)
            if (fabs(samples[i]) < fabs(samples[j])) j = i;
        double a = samples[j - 1], m = samples[j], b = samples[j + 1];
        if (!turn(a, m, b, &x, &value) || !near_zero(a, m, b)) return FJ_OK;
        t_turn = times[j - 1] + x * (times[j + 1] - times[j - 1]);
        return split(s, d, k, direction, times[j - 1], a, t_turn, times[j + 1], b, found, t_a, t_b);
    }
    int i = j < N_SAMPLES ? j : N_SAMPLES - 1; /* the parabola through samples i, i + 1, i + 2 spans the pair */
    if (turn(samples[i], samples[i + 1], samples[i + 2], &x, &value)) {
        t_turn = times[i] + x * (times[i + 2] - times[i]);
        if (times[j] < t_turn && t_turn < times[j + 1])
            return split(s, d, k, direction, times[j], samples[j], t_turn, times[j + 1], samples[j + 1], found, t_a,
                         t_b);
    }
    int approaching = 1, changes = 0;
    for (int n = 0; n < j; n++) approaching = approaching && fabs(samples[n + 1]) <= fabs(samples[n]);
    for (int n = 0; n < N_SAMPLES + 1; n++) changes += crosses(samples[n], samples[n + 1], 0);
    int whole = approaching && changes == 1;
    *found = 1;
    *t_a = whole ? times[0] : times[j];
    *t_b = whole ? times[N_SAMPLES + 1] : times[j + 1];
    return FJ_OK;
}

int64_t fj_rk_advance(const fj_rk_method *m, const fj_family *fam, fj_args *a, double *scratch, double t,
                      double *y, double t_end, double h_abs, double rtol, double atol, double max_step,
                      const double *forms, const int64_t *directions, int64_t n_events, const double *grid,
                      int64_t n_grid, double *records, int64_t n_record, double *info, double quiet) {
    int64_t n = a->n_y;
    double *K = scratch, *F = K + FJ_RK_MAX_K * n, *f = F + FJ_RK_MAX_F * n, *y_new = f + n, *f_new = y_new + n;
    double *ys = f_new + n;
    double *scale = ys + n, *g_old = scale + n, *g_new = g_old + n_events, *g_scratch = g_new + n_events;
    double *g_mid = g_scratch + n_events, *g_samples = g_mid + n_events; /* N_SAMPLES rows of n_events */
    fj_eval s = {fam, a, forms, t, g_samples + N_SAMPLES * n_events, n};
    info[FJ_INFO_EVENT] = -1.0;
    info[FJ_INFO_RECORDS] = info[FJ_INFO_KERNEL_STATUS] = info[FJ_INFO_STEPS] = 0.0;
    int64_t calls = 1, st = fj_eval_rhs(&s, t, y, f);
    if (st == FJ_OK && n_events) st = fj_eval_events(&s, t, y, g_old, n_events);
    if (st == FJ_OK && quiet > 0.0 && !fj_events_quiet(g_old, directions, n_events, quiet)) {
        info[FJ_INFO_T] = t;
        info[FJ_INFO_H] = h_abs;
        info[FJ_INFO_RHS_CALLS] = (double)calls;
        return FJ_NOT_QUIET;
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
                st = fj_eval_rhs(&s, t + m->c[stage] * h, ys, K + stage * n);
            }
            if (st != FJ_OK) break;
            fj_rk_combine(y, h, m->b, K, m->n_stages, n, y_new);
            st = fj_eval_rhs(&s, t_new, y_new, f_new);
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
        if (n_events) { /* the first crossing in the step (hybrid.integrator.EventWatch) */
            st = fj_eval_events(&s, t_new, y_new, g_new, n_events);
            if (st == FJ_OK) { /* the events at the step's middle on the cubic Hermite interpolant of its ends */
                for (int64_t i = 0; i < n; i++) ys[i] = 0.5 * (y[i] + y_new[i]) + 0.125 * h * (f[i] - f_new[i]);
                st = fj_eval_events(&s, t + 0.5 * h, ys, g_mid, n_events);
            }
            int sampled = 0;
            double times[N_SAMPLES + 2], samples[N_SAMPLES + 2];
            for (int64_t k = 0; k < n_events && st == FJ_OK; k++) {
                int64_t direction = directions[k];
                double g0 = unfired(g_old[k], direction), g1 = unfired(g_new[k], direction);
                if (!near_zero(g0, unfired(g_mid[k], direction), g1)) continue;
                if (!dense) {
                    st = m->dense(&s, t, h, y, y_new, f_new, K, ys, F);
                    calls += m->dense_calls;
                    dense = 1;
                    if (st != FJ_OK) break;
                }
                if (!sampled) { /* the events at SAMPLES on the dense output */
                    times[0] = t;
                    times[N_SAMPLES + 1] = t_new;
                    for (int j = 0; j < N_SAMPLES && st == FJ_OK; j++) {
                        times[j + 1] = t + SAMPLES[j] * h;
                        m->interpolate(times[j + 1], t, h, y, F, n, ys);
                        st = fj_eval_events(&s, times[j + 1], ys, g_samples + j * n_events, n_events);
                    }
                    sampled = 1;
                    if (st != FJ_OK) break;
                }
                samples[0] = g0;
                samples[N_SAMPLES + 1] = g1;
                for (int j = 0; j < N_SAMPLES; j++) samples[j + 1] = unfired(g_samples[j * n_events + k], direction);
                int found;
                double t_a, t_b, root;
                st = bracket(&s, &d, k, direction, times, samples, &found, &t_a, &t_b);
                if (st != FJ_OK || !found) continue;
                st = event_root(&s, &d, k, direction, t_a, t_b, &root);
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
            fj_eval_inputs(&s, tg);
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
