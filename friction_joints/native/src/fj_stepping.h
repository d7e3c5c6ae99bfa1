/* fj_stepping.h: what the engine's integrators share (stepping.c): the family's kernels evaluated with
 * the inputs of a call, and what follows each accepted step whatever the method: the events that
 * cross zero in the step located on its dense output, the output times inside it recorded.
 *
 * An integrator's advance (fj_rodas.h; fj_dop853.h has the same arguments) integrates from t to t_end
 * or to the first event; after each accepted step [t_old, t_new] it calls fj_step_output with the
 * step's dense output, then continues from t_new, or stops at the event's time. */
#ifndef FJ_STEPPING_H
#define FJ_STEPPING_H

#include "fj_kernel.h"

/* The kernels, their arguments and the inputs over a call. forms (n_tau x 5): per input a row (kind,
 * a, b, c, d): kind 0 is a + b (t - t0), kind 1 is a + b sin(c t + d). */
typedef struct fj_eval {
    const fj_family *fam;
    fj_args *a;
    const double *forms;
    double t0;   /* start of the call: the origin of the ramps in forms */
    double *tau; /* a->n_tau input values (scratch) */
    int64_t n;   /* states */
} fj_eval;

/* An integrator's advance: fj_dop853_advance (fj_dop853.h) and fj_rodas_advance (fj_rodas.h) are both
 * of this type, so that a step can call either. */
typedef int64_t (*fj_advance_fn)(const fj_family *fam, fj_args *a, double *scratch, double t, double *y,
                                 double t_end, double h_abs, double rtol, double atol, double max_step,
                                 const double *forms, const int64_t *directions, int64_t n_events,
                                 const double *grid, int64_t n_grid, double *records, int64_t n_record,
                                 double *info, double quiet);

/* tau at t */
void fj_eval_inputs(const fj_eval *e, double t);
/* The family's right-hand side dy (n) at (t, y); returns its status. */
int64_t fj_eval_rhs(const fj_eval *e, double t, const double *y, double *dy);
/* The mode's event functions g (n_events) at (t, y); returns the kernel's status. */
int64_t fj_eval_events(const fj_eval *e, double t, const double *y, double *g, int64_t n_events);

/* 1 if every event function g (n_events) is at least quiet from firing in its direction, else 0. */
int fj_events_quiet(const double *g, const int64_t *directions, int64_t n_events, double quiet);

/* The dense output of an accepted step: at(self, t, out) writes the solution at t in [t_old, t_new]
 * to out (n) and returns a kernel status (an interpolant needing right-hand sides of its own may
 * evaluate them at its first call). */
typedef struct fj_dense {
    int64_t (*at)(void *self, double t, double *out);
    void *self;
    double t_old, t_new;
    const double *y_new; /* the solution at t_new (n) */
} fj_dense;

/* Where fj_step_output records: the output times grid (n_grid, increasing), the next one i_grid, the
 * rows records (n_grid x n_record), the rows written n_rec. */
typedef struct fj_grid {
    const double *grid;
    int64_t n_grid, i_grid;
    double *records;
    int64_t n_record, n_rec;
} fj_grid;

/* After the accepted step d: the events (directions, n_events) whose functions cross zero from g_old
 * to g_new (the values at t_new, computed here) located by Brent's method on the dense output to
 * 4 machine epsilons (SciPy's brentq); the first of them fires: *fired its index and *t_stop its time
 * (*fired -1 and *t_stop = t_new if none). The output times of out before the event (up to and
 * including t_new if none fired) recorded by the family's record kernel. ys (n), g (n_events):
 * scratch. Returns the first failing kernel's status, else FJ_OK. */
int64_t fj_step_output(const fj_eval *e, const fj_dense *d, const double *g_old, double *g_new,
                       const int64_t *directions, int64_t n_events, fj_grid *out, double *ys, double *g,
                       int64_t *fired, double *t_stop);

#endif
