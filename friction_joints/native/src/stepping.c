/* What the engine's integrators share (fj_stepping.h): kernels with the inputs of a call, events
 * located on a step's dense output, output times recorded. The conventions are the Python engine's
 * (SciPy's solve_ivp: find_active_events, brentq; hybrid.integrator.unfired). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "fj_stepping.h"

#define ROOT_TOLERANCE (4.0 * DBL_EPSILON)
#define NOT_CROSSED DBL_MIN /* |g| given to an event function resting exactly on zero (unfired) */
#define ROOT_ITERATIONS 100

void fj_eval_inputs(const fj_eval *e, double t) {
    for (int64_t i = 0; i < e->a->n_tau; i++) {
        const double *row = e->forms + 5 * i;
        e->tau[i] = row[0] == 0.0 ? row[1] + row[2] * (t - e->t0) : row[1] + row[2] * sin(row[3] * t + row[4]);
    }
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

/* An event function g resting exactly on zero has not crossed yet: moved to the side before the
 * crossing (hybrid.integrator.unfired, the same convention on the Python engine). */
static double unfired(double g, int64_t direction) {
    return g == 0.0 && direction != 0 ? -(double)direction * NOT_CROSSED : g;
}

/* Whether an event function moving from g0 to g1 crosses zero in the event's direction (SciPy's
 * find_active_events). */
static int crosses(double g0, double g1, int64_t direction) {
    g0 = unfired(g0, direction);
    g1 = unfired(g1, direction);
    int up = g0 <= 0.0 && g1 >= 0.0, down = g0 >= 0.0 && g1 <= 0.0;
    return (up && direction > 0) || (down && direction < 0) || ((up || down) && direction == 0);
}

static double py_min(double a, double b) { return b < a ? b : a; }

/* Event k at t on the dense output (unfired). ys, g: scratch. */
static int64_t event_value(const fj_eval *e, const fj_dense *d, int64_t k, int64_t direction, int64_t n_events,
                           double t, double *ys, double *g, double *value) {
    int64_t status = d->at(d->self, t, ys);
    if (status == FJ_OK) status = fj_eval_events(e, t, ys, g, n_events);
    *value = unfired(g[k], direction);
    return status;
}

/* Root of event k in [t_a, t_b] on the dense output: Brent's method as in SciPy's brentq
 * (xtol = rtol = 4 eps). Returns the kernel status; *root the root. */
static int64_t event_root(const fj_eval *e, const fj_dense *d, int64_t k, int64_t direction, int64_t n_events,
                          double t_a, double t_b, double *ys, double *g, double *root) {
    double xpre = t_a, xcur = t_b, fpre, fcur;
    *root = xcur;
    int64_t status = event_value(e, d, k, direction, n_events, xpre, ys, g, &fpre);
    if (status != FJ_OK) return status;
    status = event_value(e, d, k, direction, n_events, xcur, ys, g, &fcur);
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
        status = event_value(e, d, k, direction, n_events, xcur, ys, g, &fcur);
        if (status != FJ_OK) break;
    }
    *root = xcur;
    return status;
}

int64_t fj_step_output(const fj_eval *e, const fj_dense *d, const double *g_old, double *g_new,
                       const int64_t *directions, int64_t n_events, fj_grid *out, double *ys, double *g,
                       int64_t *fired, double *t_stop) {
    int64_t st = FJ_OK;
    *fired = -1;
    *t_stop = d->t_new;
    if (n_events) st = fj_eval_events(e, d->t_new, d->y_new, g_new, n_events);
    for (int64_t k = 0; k < n_events && st == FJ_OK; k++) {
        if (!crosses(g_old[k], g_new[k], directions[k])) continue;
        double root;
        st = event_root(e, d, k, directions[k], n_events, d->t_old, d->t_new, ys, g, &root);
        if (st == FJ_OK && (*fired < 0 || root < *t_stop)) {
            *fired = k;
            *t_stop = root;
        }
    }
    /* output times inside the step (before the event if one fired) */
    while (st == FJ_OK && out->i_grid < out->n_grid &&
           (out->grid[out->i_grid] < *t_stop || (*fired < 0 && out->grid[out->i_grid] == *t_stop))) {
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
