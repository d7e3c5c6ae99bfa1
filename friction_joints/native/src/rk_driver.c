/* The driver of the embedded Runge-Kutta pairs (fj_rk.h): steps, error control, event location and
 * output times, shared by DOP853 and RK45 (a pair is its tableau, error norm and dense output,
 * rk_method.h).
 *
 * The methods of the Python engine's integrator (SciPy's DOP853 and RK45: their coefficients, error
 * norms and step-size control, their dense output), with event roots located by Brent's method on the
 * dense output to 4 machine epsilons (SciPy's brentq, stepping.c's fj_event_root), also where an event
 * function crosses zero and back within one step (near_zero, bracket: the rule of the Python engine's
 * hybrid.integrator.EventWatch); the output times recorded by stepping.c's fj_step_record. The step size
 * the controller proposes is returned (info), so that the next call (the next co-simulation step)
 * continues with it. min and max follow Python's semantics where a NaN may appear (py_min, py_max of
 * rk_method.h), so that a step whose right-hand side is not finite is rejected and shrunk as in SciPy.
 */
#include <math.h>
#include <string.h>

#include "rk_method.h"

#define SAFETY 0.9
#define MIN_FACTOR 0.2
#define MAX_FACTOR 10.0
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

/* The dense output of a step from (t_old, y_old) to (t_old + h, y_new, f_new) with the stages K: its
 * coefficients F computed at the first evaluation (the pair's dense, which may evaluate right-hand
 * sides: counted in calls), the self of its fj_dense. */
typedef struct {
    const fj_rk_method *m;
    const fj_eval *s;
    double t_old, h;
    const double *y_old, *y_new, *f_new;
    double *K, *F;
    int computed;
    int64_t calls;
} interpolant;

static int64_t interpolant_at(void *self, double t, double *out) {
    interpolant *p = self;
    if (!p->computed) { /* out: the dense output's scratch until the interpolant writes it */
        int64_t status = p->m->dense(p->s, p->t_old, p->h, p->y_old, p->y_new, p->f_new, p->K, out, p->F);
        p->calls += p->m->dense_calls;
        p->computed = 1;
        if (status != FJ_OK) return status;
    }
    p->m->interpolate(t, p->t_old, p->h, p->y_old, p->F, p->s->n, out);
    return FJ_OK;
}

/* What evaluating an event on a step's dense output needs (fj_event_value): ys (n), g (n_events) scratch. */
typedef struct {
    const fj_eval *e;
    fj_dense d;
    int64_t n_events;
    double *ys, *g;
} probe;

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
 * higher terms are smaller than the bend by about the step size over the solution's time scale
 * (hybrid.integrator.near_zero). */
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
static int64_t split(const probe *p, int64_t k, int64_t direction, double t_a, double g_a,
                     double t_turn, double t_b, double g_b, int *found, double *t_lo, double *t_hi) {
    double g;
    int64_t status = fj_event_value(p->e, &p->d, k, direction, p->n_events, t_turn, p->ys, p->g, &g);
    if (status != FJ_OK) return status;
    *found = 1;
    if (fj_crosses(g_a, g, direction)) {
        *t_lo = t_a;
        *t_hi = t_turn;
    } else if (fj_crosses(g, g_b, direction)) {
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
static int64_t bracket(const probe *p, int64_t k, int64_t direction, const double *times,
                       const double *samples, int *found, double *t_a, double *t_b) {
    double x, value, t_turn;
    int j = 0;
    while (j < N_SAMPLES + 1 && !fj_crosses(samples[j], samples[j + 1], direction)) j++;
    if (j == N_SAMPLES + 1) {
        *found = 0;
        j = 1; /* the inner sample nearest zero (the first of equals) */
        for (int i = 2; i < N_SAMPLES + 1; i++)
            if (fabs(samples[i]) < fabs(samples[j])) j = i;
        double a = samples[j - 1], m = samples[j], b = samples[j + 1];
        if (!turn(a, m, b, &x, &value) || !near_zero(a, m, b)) return FJ_OK;
        t_turn = times[j - 1] + x * (times[j + 1] - times[j - 1]);
        return split(p, k, direction, times[j - 1], a, t_turn, times[j + 1], b, found, t_a, t_b);
    }
    int i = j < N_SAMPLES ? j : N_SAMPLES - 1; /* the parabola through samples i, i + 1, i + 2 spans the pair */
    if (turn(samples[i], samples[i + 1], samples[i + 2], &x, &value)) {
        t_turn = times[i] + x * (times[i + 2] - times[i]);
        if (times[j] < t_turn && t_turn < times[j + 1])
            return split(p, k, direction, times[j], samples[j], t_turn, times[j + 1], samples[j + 1], found, t_a,
                         t_b);
    }
    int approaching = 1, changes = 0;
    for (int n = 0; n < j; n++) approaching = approaching && fabs(samples[n + 1]) <= fabs(samples[n]);
    for (int n = 0; n < N_SAMPLES + 1; n++) changes += fj_crosses(samples[n], samples[n + 1], 0);
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
    fj_grid out = {grid, n_grid, 0, records, n_record, 0};
    int64_t steps = 0, status = FJ_REACHED_END;
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
        double t_stop = t_new;
        int64_t fired = -1;
        interpolant step = {m, &s, t, h, y, y_new, f_new, K, F, 0, 0};
        probe p = {&s, {interpolant_at, &step, t, t_new, y_new}, n_events, ys, g_scratch};
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
                double g0 = fj_unfired(g_old[k], direction), g1 = fj_unfired(g_new[k], direction);
                if (!near_zero(g0, fj_unfired(g_mid[k], direction), g1)) continue;
                if (!sampled) { /* the events at SAMPLES on the dense output */
                    times[0] = t;
                    times[N_SAMPLES + 1] = t_new;
                    for (int j = 0; j < N_SAMPLES && st == FJ_OK; j++) {
                        times[j + 1] = t + SAMPLES[j] * h;
                        st = interpolant_at(&step, times[j + 1], ys);
                        if (st == FJ_OK) st = fj_eval_events(&s, times[j + 1], ys, g_samples + j * n_events, n_events);
                    }
                    sampled = 1;
                    if (st != FJ_OK) break;
                }
                samples[0] = g0;
                samples[N_SAMPLES + 1] = g1;
                for (int j = 0; j < N_SAMPLES; j++) samples[j + 1] = fj_unfired(g_samples[j * n_events + k], direction);
                int found;
                double t_a, t_b, root;
                st = bracket(&p, k, direction, times, samples, &found, &t_a, &t_b);
                if (st != FJ_OK || !found) continue;
                st = fj_event_root(&s, &p.d, k, direction, n_events, t_a, t_b, ys, g_scratch, &root);
                if (st == FJ_OK && (fired < 0 || root < t_stop)) {
                    fired = k;
                    t_stop = root;
                }
            }
        }
        if (st == FJ_OK) st = fj_step_record(&s, &p.d, fired, t_stop, &out, ys);
        calls += step.calls;
        if (st != FJ_OK) break;
        if (fired >= 0) {
            status = fj_stop_at_event(&s, &p.d, fired, t_stop, &t, y, ys, info);
            break;
        }
        t = t_new;
        memcpy(y, y_new, (size_t)n * sizeof(double));
        memcpy(f, f_new, (size_t)n * sizeof(double));
        memcpy(g_old, g_new, (size_t)n_events * sizeof(double));
    }
    if (st != FJ_OK) status = FJ_KERNEL_FAILED;
    fj_advance_info(info, t, h_abs, steps, out.n_rec, calls, st);
    return status;
}
