/* fj_stepping.h: what the engine's integrators share (stepping.c): the family's kernels evaluated with
 * the inputs of a call, and what follows each accepted step whatever the method: the events that
 * cross zero in the step located on its dense output, the output times inside it recorded.
 *
 * An integrator's advance (fj_rodas.h; fj_rk.h's takes the same arguments after its pair) integrates
 * from t to t_end or to the first event; after each accepted step [t_old, t_new] it locates the events
 * on the step's dense output with fj_step_events (the Python engine's EventWatch: a crossing and back
 * within the step is found too) and records the output times with fj_step_record (RODAS: both through
 * fj_step_output; the Runge-Kutta driver estimates the events at the step's middle by its own rule),
 * then continues from t_new, or stops at the event's time. Their statuses and info slots are defined
 * here. */
#ifndef FJ_STEPPING_H
#define FJ_STEPPING_H

#include "fj_kernel.h"

/* what an integrator's advance returns (fj_rodas.h adds FJ_MATRIX_SINGULAR) */
enum { FJ_REACHED_END = 0, FJ_EVENT = 1, FJ_KERNEL_FAILED = 2, FJ_STEP_TOO_SMALL = 3, FJ_NOT_QUIET = 4 };
/* the slots of its info array (fj_rodas.h adds its own after FJ_INFO_SIZE) */
enum {
    FJ_INFO_T,             /* time reached (s): t_end, or the event's time */
    FJ_INFO_H,             /* the step size to try next (s) */
    FJ_INFO_EVENT,         /* index of the event that fired, -1 if none */
    FJ_INFO_RECORDS,       /* rows recorded */
    FJ_INFO_RHS_CALLS,     /* right-hand sides evaluated */
    FJ_INFO_KERNEL_STATUS, /* the failing kernel's status (0 if none failed) */
    FJ_INFO_STEPS,         /* steps accepted */
    FJ_INFO_SIZE
};

/* min and max with Python's semantics where a NaN may appear (the second argument wins only if it
 * compares so), so that a step whose right-hand side is not finite is rejected and shrunk as in SciPy */
static inline double py_min(double a, double b) { return b < a ? b : a; }
static inline double py_max(double a, double b) { return b > a ? b : a; }

/* The times inside a step where an event function that may cross zero is sampled on the dense output
 * (stepping.c's SAMPLES). */
#define FJ_EVENT_SAMPLES 3

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

/* An integrator's advance: fj_rodas_advance (fj_rodas.h) is of this type, and fj_rk_advance (fj_rk.h)
 * takes these arguments after its pair, so that a step can call either. */
typedef int64_t (*fj_advance_fn)(const fj_family *fam, fj_args *a, double *scratch, double t, double *y,
                                 double t_end, double h_abs, double rtol, double atol, double max_step,
                                 const double *forms, const int64_t *directions, int64_t n_events,
                                 const double *grid, int64_t n_grid, double *records, int64_t n_record,
                                 double *info, double quiet);

/* An integrator a family brings besides the explicit pairs (fj_family.integrator): its advance, the
 * doubles of scratch it needs for n_y states, n_events events and n_tau inputs, the length of its info
 * array (at least FJ_INFO_SIZE), the message of any status it returns. */
typedef struct fj_integrator {
    fj_advance_fn advance;
    int64_t (*scratch_size)(int64_t n_y, int64_t n_events, int64_t n_tau);
    int64_t info_size;
    const char *(*message)(int64_t status);
} fj_integrator;

/* tau at t */
void fj_eval_inputs(const fj_eval *e, double t);
/* 1 if every input is constant over the call (a ramp of slope 0, a sine of amplitude or frequency 0: tau at
 * any t is the same to the bit), else 0. */
int fj_inputs_held(const fj_eval *e);
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

/* An event function g resting exactly on zero has not crossed yet: moved to the side before the
 * crossing (hybrid.integrator.unfired, the same convention on the Python engine). */
double fj_unfired(double g, int64_t direction);
/* Whether an event function moving from g0 to g1 crosses zero in the event's direction (SciPy's
 * find_active_events). */
int fj_crosses(double g0, double g1, int64_t direction);
/* *value = event k (of n_events, in its direction, unfired) at t on the dense output d; ys (n), g
 * (n_events): scratch. Returns the kernel status. */
int64_t fj_event_value(const fj_eval *e, const fj_dense *d, int64_t k, int64_t direction, int64_t n_events,
                       double t, double *ys, double *g, double *value);
/* *root = the root of event k in [t_a, t_b] on the dense output d: Brent's method as in SciPy's brentq
 * (xtol = rtol = 4 eps); ys, g: as fj_event_value. Returns the kernel status. */
int64_t fj_event_root(const fj_eval *e, const fj_dense *d, int64_t k, int64_t direction, int64_t n_events,
                      double t_a, double t_b, double *ys, double *g, double *root);

/* Where fj_step_output records: the output times grid (n_grid, increasing), the next one i_grid, the
 * rows records (n_grid x n_record), the rows written n_rec. */
typedef struct fj_grid {
    const double *grid;
    int64_t n_grid, i_grid;
    double *records;
    int64_t n_record, n_rec;
} fj_grid;

/* The output times of out before t_stop (up to and including it if fired < 0) within the accepted step d,
 * recorded by the family's record kernel; ys (n): scratch. Returns the first failing kernel's status, else
 * FJ_OK. */
int64_t fj_step_record(const fj_eval *e, const fj_dense *d, int64_t fired, double t_stop, fj_grid *out, double *ys);

/* An advance stopping at the event `fired` at t_stop in the accepted step d: y (n) and *t moved there,
 * info's event slot set; ys (n): scratch. Returns FJ_EVENT. */
int64_t fj_stop_at_event(const fj_eval *e, const fj_dense *d, int64_t fired, double t_stop, double *t, double *y,
                         double *ys, double *info);
/* info's slots at the end of an advance that reached t with the next step size h_abs after `steps`
 * accepted steps, `records` rows recorded, `calls` right-hand sides, the kernel status `kernel`. */
void fj_advance_info(double *info, double t, double h_abs, int64_t steps, int64_t records, int64_t calls,
                     int64_t kernel);

/* The first event that fires in the accepted step d, from its functions at the step's ends (g_old, g_new)
 * and an estimate at its middle (g_mid; n_events each, directions): where the parabola through the
 * three may cross zero (near_zero), the functions are sampled at FJ_EVENT_SAMPLES inner times on the
 * dense output, a bracket of the first crossing on which the function is monotone chosen (bracket:
 * hybrid.integrator.EventWatch), its root located by fj_event_root; the earliest root fires: *fired its
 * index and *t_stop its time (*fired -1 and *t_stop = t_new if none). ys (n), g (n_events), g_samples
 * (FJ_EVENT_SAMPLES x n_events): scratch. Returns the first failing kernel's status, else FJ_OK. */
int64_t fj_step_events(const fj_eval *e, const fj_dense *d, const double *g_old, const double *g_new,
                       const double *g_mid, const int64_t *directions, int64_t n_events, double *ys, double *g,
                       double *g_samples, int64_t *fired, double *t_stop);

/* After the accepted step d: the event functions at t_new (into g_new) and at the step's middle on the
 * dense output, the first event that fires (fj_step_events: *fired, *t_stop), the output times of out
 * before it (up to and including t_new if none fired) recorded by the family's record kernel. ys (n),
 * g (n_events), g_samples ((FJ_EVENT_SAMPLES + 1) x n_events): scratch. Returns the first failing
 * kernel's status, else FJ_OK. */
int64_t fj_step_output(const fj_eval *e, const fj_dense *d, const double *g_old, double *g_new,
                       const int64_t *directions, int64_t n_events, fj_grid *out, double *ys, double *g,
                       double *g_samples, int64_t *fired, double *t_stop);

#endif
