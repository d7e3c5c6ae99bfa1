/* fj_kernel.h: what a model family gives the C engine (C99, libm only).
 *
 * A family (planar minimal form, absolute form, lumped, steering, vehicle, spatial RSRRR, bristle, planar with
 * bristles, the RSRRR with clearance and flexible links) is three kernels over a packed model (fpar, ipar: flat
 * arrays built once by the family's Python packer, never written) and a mode (fmode, imode: flat arrays built by the Python encoder of the mode):
 *
 *   rhs(a, t, y, tau, dy)       dy (n_y): dy/dt in the mode
 *   events(a, t, y, tau, g)     g (n_out): the mode's event functions, in the order of the Python
 *                               system's events(mode)
 *   record(a, t, y, tau, out)   out (n_out): the recorded quantities, flat, in the family's layout
 *
 * t: time (s), which a kernel reads only through tau (so that under inputs held over a call, df/dt = 0
 * exactly: RODAS takes it so); y (n_y): state; tau (n_tau): the inputs at t. A kernel returns FJ_OK (0)
 * or a positive family-defined status (a singular configuration, a coupled solve that does not
 * converge); the family's message() names it. Kernels allocate nothing: their scratch is a->work
 * and a->iwork, of the sizes work_size() gives for the packed model. Kernels read no global state,
 * so several instances run at once in several threads, each with its own fj_args and scratch.
 *
 * A family also decides its modes (the Python system's update), so that a whole step runs in C:
 *
 *   mode_layout(fpar, ipar, layout)   the sizes of a mode's arrays for the packed model (fixed), the
 *                                     most events a mode has, the length of decide's change report
 *   mode_events(a, dir, flags, watch) the events of the mode a->fmode, a->imode (their directions and
 *                                     flags, in the order of the events kernel); returns their number
 *   decide(a, t, y, tau, event, fmode, imode, change)
 *                                     the new mode after `event` (see fj_decide)
 */
#ifndef FJ_KERNEL_H
#define FJ_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define FJ_OK 0

typedef struct fj_args {
    const double *fpar;   /* packed model, float part (n_fpar) */
    const int64_t *ipar;  /* packed model, integer part (n_ipar) */
    const double *fmode;  /* mode, float part (n_fmode) */
    const int64_t *imode; /* mode, integer part (n_imode) */
    int64_t n_fpar, n_ipar, n_fmode, n_imode;
    int64_t n_y;   /* length of the state y (and of dy) */
    int64_t n_tau; /* number of inputs */
    double *work;   /* scratch: n_work doubles (work_size) */
    int64_t *iwork; /* scratch: n_iwork integers (work_size) */
} fj_args;

/* out has n_out entries: n_y for rhs, the mode's number of events for events, the record's length
 * for record. */
typedef int64_t (*fj_kernel)(const fj_args *a, double t, const double *y, const double *tau, double *out,
                             int64_t n_out);

/* The sizes of a family's modes for one packed model. */
typedef struct fj_mode_layout {
    int64_t n_fmode, n_imode; /* entries of a mode's float and integer arrays */
    int64_t max_events;       /* events of any mode, at most */
    int64_t n_change;         /* entries of decide's change report */
} fj_mode_layout;

/* decide's event argument besides the index of the event that fired */
enum { FJ_START = -2, FJ_NO_EVENT = -1 };
/* an event's flag: it can fire while the state stands still (a breakaway driven by the inputs), so the
 * step size is bounded while it is armed (hold_step) */
#define FJ_INPUT_DRIVEN 1

typedef void (*fj_mode_layout_fn)(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                                  fj_mode_layout *layout);
/* directions (max_events): -1 falling, +1 rising, 0 both; flags (max_events): FJ_INPUT_DRIVEN or 0;
 * *watch_all: 1 if the events watch every decision that a change of the inputs could switch (then a
 * restart at which every event function is far from firing keeps the mode), else 0. Returns the number
 * of events of the mode a->fmode, a->imode. */
typedef int64_t (*fj_mode_events_fn)(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all);
/* The discrete mode update (the Python system's update(t, y, mode, event)) at time t, state y (n_y; the
 * update may change it in place, e.g. set stuck velocities exactly to zero) and inputs tau. event: the
 * index of the current mode's event that fired, FJ_NO_EVENT at a time event or a settling pass, FJ_START
 * at the start, where there is no mode yet (a->fmode and a->imode are NULL). Writes the new mode to
 * fmode, imode (n_fmode, n_imode of the layout; never the current mode's arrays) and change (n_change):
 * what the family's Python side formats into the event's kind. Scratch: a->work, a->iwork (work_size
 * covers decide). Returns FJ_OK or a status for message(). */
typedef int64_t (*fj_decide_fn)(const fj_args *a, double t, double *y, const double *tau, int64_t event,
                                double *fmode, int64_t *imode, int64_t *change);

typedef struct fj_family {
    const char *name; /* "planar", "absolute", "lumped", "steering", "vehicle", "spatial", "bristle", ... */
    fj_kernel rhs, events, record;
    /* the scratch the kernels need for this packed model: *n_work doubles, *n_iwork integers */
    void (*work_size)(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork);
    /* the message of a status a kernel returned (never NULL) */
    const char *(*message)(int64_t status);
    fj_mode_layout_fn mode_layout;
    fj_mode_events_fn mode_events;
    fj_decide_fn decide;
    /* the integrator of a family whose states include stiff ones (bristle deflections: their rates
     * sigma0 |v_r| / mu and N sigma1 / m are far above the motion's): fj_rodas (fj_rodas.h); NULL: the
     * explicit pairs (fj_rk.h). Only the binaries of such a family carry it. */
    const struct fj_integrator *integrator;
    /* the states no right-hand side reads, y[*first .. *first + *count) for the packed model a->fpar,
     * a->ipar (the work integrals a state carries for the energy balance, whose rates are powers): their
     * Jacobian columns are exactly zero, so RODAS evaluates none; NULL: none */
    void (*integrals)(const fj_args *a, int64_t *first, int64_t *count);
    /* rhs at a state next to that of the family's last rhs call on the same scratch (RODAS: the Jacobian's
     * columns by differences and the stages of a step about its first point): the same equations, whose
     * iterative solves start from that call's solution and end within their tolerance, so that its result
     * depends on that call (an integrator calls it only about the state of its last rhs call); NULL: rhs */
    fj_kernel rhs_near;
} fj_family;

/* work_size and message of a family whose kernels need no scratch and cannot fail (fj_kernel.c). */
void fj_no_scratch(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                   int64_t *n_iwork);
const char *fj_no_failure(int64_t status);
/* events of a family with no event functions: writes nothing. */
int64_t fj_no_events(const fj_args *a, double t, const double *y, const double *tau, double *g, int64_t n_out);
/* mode_layout, mode_events and decide of a family with a single mode (one zero in each mode array),
 * which has no events and never changes. */
void fj_single_mode_layout(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                           fj_mode_layout *layout);
int64_t fj_single_mode_events(const fj_args *a, int64_t *directions, int64_t *flags, int64_t *watch_all);
int64_t fj_single_mode_decide(const fj_args *a, double t, double *y, const double *tau, int64_t event,
                              double *fmode, int64_t *imode, int64_t *change);

/* The families, each defined in its source (fj_family_<name> in <name>.c). */
extern const fj_family fj_family_planar;
extern const fj_family fj_family_absolute;
extern const fj_family fj_family_lumped;
extern const fj_family fj_family_steering;
extern const fj_family fj_family_vehicle;
extern const fj_family fj_family_spatial;
extern const fj_family fj_family_bristle;
extern const fj_family fj_family_planar_bristle;
extern const fj_family fj_family_steering_bristle;
extern const fj_family fj_family_spatial_clearance;
extern const fj_family fj_family_spatial_bristle;
extern const fj_family fj_family_two_mass_bristle;

/* The family whose name is `name` (families.c); NULL for an unknown name or a NULL name. */
const fj_family *fj_family_find(const char *name);

#endif
