/* What the engine's integrators share (fj_stepping.h): kernels with the inputs of a call, events
 * located on a step's dense output (also one crossing zero and back within the step: the rule of
 * hybrid.integrator.EventWatch), output times recorded. The conventions are the Python engine's
 * (SciPy's solve_ivp: find_active_events, brentq; hybrid.integrator.unfired, near_zero, EventWatch). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fj_stepping.h"

#define ROOT_TOLERANCE (4.0 * DBL_EPSILON)
#define NOT_CROSSED DBL_MIN /* |g| given to an event function resting exactly on zero (unfired) */
#define ROOT_ITERATIONS 100
/* where in a step an event function that may cross zero is sampled on the dense output */
static const double SAMPLES[FJ_EVENT_SAMPLES] = {0.25, 0.5, 0.75};
#define N_SAMPLES FJ_EVENT_SAMPLES

void fj_eval_inputs(const fj_eval *e, double t) {
    for (int64_t i = 0; i < e->a->n_tau; i++) {
        const double *row = e->forms + 5 * i;
        e->tau[i] = row[0] == 0.0 ? row[1] + row[2] * (t - e->t0) : row[1] + row[2] * sin(row[3] * t + row[4]);
    }
}

int fj_inputs_held(const fj_eval *e) {
    for (int64_t i = 0; i < e->a->n_tau; i++) {
        const double *row = e->forms + 5 * i;
        if (row[2] != 0.0 && !(row[0] != 0.0 && row[3] == 0.0)) return 0;
    }
    return 1;
}

int64_t fj_eval_rhs(const fj_eval *e, double t, const double *y, double *dy) {
    fj_eval_inputs(e, t);
    return e->fam->rhs(e->a, t, y, e->tau, dy, e->n);
}

int64_t fj_eval_events(const fj_eval *e, double t, const double *y, double *g, int64_t n_events) {
    fj_eval_inputs(e, t);
    return e->fam->events(e->a, t, y, e->tau, g, n_events);
}

int fj_events_quiet(const double *g, const int64_t *directions, int64_t n_events, double quiet) {
    for (int64_t k = 0; k < n_events; k++) {
        double distance = directions[k] == 0 ? fabs(g[k]) : -(double)directions[k] * g[k];
        if (!(distance > quiet)) return 0;
    }
    return 1;
}

double fj_unfired(double g, int64_t direction) {
    return g == 0.0 && direction != 0 ? -(double)direction * NOT_CROSSED : g;
}

int fj_crosses(double g0, double g1, int64_t direction) {
    g0 = fj_unfired(g0, direction);
    g1 = fj_unfired(g1, direction);
    int up = g0 <= 0.0 && g1 >= 0.0, down = g0 >= 0.0 && g1 <= 0.0;
    return (up && direction > 0) || (down && direction < 0) || ((up || down) && direction == 0);
}

int64_t fj_event_value(const fj_eval *e, const fj_dense *d, int64_t k, int64_t direction, int64_t n_events,
                           double t, double *ys, double *g, double *value) {
    int64_t status = d->at(d->self, t, ys);
    if (status == FJ_OK) status = fj_eval_events(e, t, ys, g, n_events);
    *value = fj_unfired(g[k], direction);
    return status;
}

int64_t fj_event_root(const fj_eval *e, const fj_dense *d, int64_t k, int64_t direction, int64_t n_events,
                          double t_a, double t_b, double *ys, double *g, double *root) {
    double xpre = t_a, xcur = t_b, fpre, fcur;
    *root = xcur;
    int64_t status = fj_event_value(e, d, k, direction, n_events, xpre, ys, g, &fpre);
    if (status != FJ_OK) return status;
    status = fj_event_value(e, d, k, direction, n_events, xcur, ys, g, &fcur);
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
        status = fj_event_value(e, d, k, direction, n_events, xcur, ys, g, &fcur);
        if (status != FJ_OK) break;
    }
    *root = xcur;
    return status;
}

/* What evaluating an event on a step's dense output needs (fj_event_value): ys (n), g (n_events) scratch. */
typedef struct {
    const fj_eval *e;
    fj_dense d;
    int64_t n_events;
    double *ys, *g;
} probe;

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
 * suffices: an integrator accepts a step only where a polynomial in time (of degree 8 for DOP853, 5 for
 * RK45; RODAS's dense output, of degree 3, to its order) represents the solution to rtol, so an event function along the step is dominated by its first terms
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

int64_t fj_step_events(const fj_eval *e, const fj_dense *d, const double *g_old, const double *g_new,
                       const double *g_mid, const int64_t *directions, int64_t n_events, double *ys, double *g,
                       double *g_samples, int64_t *fired, double *t_stop) {
    int64_t st = FJ_OK;
    double t = d->t_old, h = d->t_new - d->t_old;
    probe p = {e, *d, n_events, ys, g};
    *fired = -1;
    *t_stop = d->t_new;
    int sampled = 0;
    double times[N_SAMPLES + 2], samples[N_SAMPLES + 2];
    for (int64_t k = 0; k < n_events && st == FJ_OK; k++) {
        int64_t direction = directions[k];
        double g0 = fj_unfired(g_old[k], direction), g1 = fj_unfired(g_new[k], direction);
        if (!near_zero(g0, fj_unfired(g_mid[k], direction), g1)) continue;
        if (!sampled) { /* the events at SAMPLES on the dense output */
            times[0] = t;
            times[N_SAMPLES + 1] = d->t_new;
            for (int j = 0; j < N_SAMPLES && st == FJ_OK; j++) {
                times[j + 1] = t + SAMPLES[j] * h;
                st = d->at(d->self, times[j + 1], ys);
                if (st == FJ_OK) st = fj_eval_events(e, times[j + 1], ys, g_samples + j * n_events, n_events);
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
        st = fj_event_root(e, d, k, direction, n_events, t_a, t_b, ys, g, &root);
        if (st == FJ_OK && (*fired < 0 || root < *t_stop)) {
            *fired = k;
            *t_stop = root;
        }
    }
    return st;
}

int64_t fj_step_output(const fj_eval *e, const fj_dense *d, const double *g_old, double *g_new,
                       const int64_t *directions, int64_t n_events, fj_grid *out, double *ys, double *g,
                       double *g_samples, int64_t *fired, double *t_stop) {
    int64_t st = FJ_OK;
    *fired = -1;
    *t_stop = d->t_new;
    if (n_events) { /* the events at the step's end and, on the dense output, at its middle */
        double *g_mid = g_samples + N_SAMPLES * n_events, t_mid = d->t_old + 0.5 * (d->t_new - d->t_old);
        st = fj_eval_events(e, d->t_new, d->y_new, g_new, n_events);
        if (st == FJ_OK) st = d->at(d->self, t_mid, ys);
        if (st == FJ_OK) st = fj_eval_events(e, t_mid, ys, g_mid, n_events);
        if (st == FJ_OK)
            st = fj_step_events(e, d, g_old, g_new, g_mid, directions, n_events, ys, g, g_samples, fired, t_stop);
    }
    return st == FJ_OK ? fj_step_record(e, d, *fired, *t_stop, out, ys) : st;
}

int64_t fj_step_record(const fj_eval *e, const fj_dense *d, int64_t fired, double t_stop, fj_grid *out, double *ys) {
    int64_t st = FJ_OK;
    while (out->i_grid < out->n_grid &&
           (out->grid[out->i_grid] < t_stop || (fired < 0 && out->grid[out->i_grid] == t_stop))) {
        double tg = out->grid[out->i_grid];
        if (tg == d->t_new)
            memcpy(ys, d->y_new, (size_t)e->n * sizeof(double));
        else
            st = d->at(d->self, tg, ys);
        if (st != FJ_OK) break;
        fj_eval_inputs(e, tg);
        st = e->fam->record(e->a, tg, ys, e->tau, out->records + out->n_rec * out->n_record, out->n_record);
        if (st != FJ_OK) break;
        out->n_rec += 1;
        out->i_grid += 1;
    }
    return st;
}

int64_t fj_stop_at_event(const fj_eval *e, const fj_dense *d, int64_t fired, double t_stop, double *t, double *y,
                         double *ys, double *info) {
    d->at(d->self, t_stop, ys); /* the dense output is computed: the event was located on it */
    memcpy(y, ys, (size_t)e->n * sizeof(double));
    *t = t_stop;
    info[FJ_INFO_EVENT] = (double)fired;
    return FJ_EVENT;
}

void fj_advance_info(double *info, double t, double h_abs, int64_t steps, int64_t records, int64_t calls,
                     int64_t kernel) {
    info[FJ_INFO_T] = t;
    info[FJ_INFO_H] = h_abs;
    info[FJ_INFO_RECORDS] = (double)records;
    info[FJ_INFO_RHS_CALLS] = (double)calls;
    info[FJ_INFO_KERNEL_STATUS] = (double)kernel;
    info[FJ_INFO_STEPS] = (double)steps;
}
