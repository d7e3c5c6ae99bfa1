/* fj_kernel.h: what a model family gives the C engine (C99, libm only).
 *
 * A family (planar minimal form, absolute form, lumped, steering, vehicle, spatial RSRRR) is three
 * kernels over a packed model (fpar, ipar: flat arrays built once by the family's Python packer,
 * never written) and a mode (fmode, imode: flat arrays built by the Python encoder of the mode):
 *
 *   rhs(a, t, y, tau, dy)       dy (n_y): dy/dt in the mode
 *   events(a, t, y, tau, g)     g (n_out): the mode's event functions, in the order of the Python
 *                               system's events(mode)
 *   record(a, t, y, tau, out)   out (n_out): the recorded quantities, flat, in the family's layout
 *
 * t: time (s); y (n_y): state; tau (n_tau): the inputs at t. A kernel returns FJ_OK (0) or a
 * positive family-defined status (a singular configuration, a coupled solve that does not
 * converge); the family's message() names it. Kernels allocate nothing: their scratch is a->work
 * and a->iwork, of the sizes work_size() gives for the packed model. Kernels read no global state,
 * so several instances run at once in several threads, each with its own fj_args and scratch.
 */
#ifndef FJ_KERNEL_H
#define FJ_KERNEL_H

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

typedef struct fj_family {
    const char *name; /* "planar", "absolute", "lumped", "steering", "vehicle", "spatial" */
    fj_kernel rhs, events, record;
    /* the scratch the kernels need for this packed model: *n_work doubles, *n_iwork integers */
    void (*work_size)(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                      int64_t *n_iwork);
    /* the message of a status a kernel returned (never NULL) */
    const char *(*message)(int64_t status);
} fj_family;

/* work_size and message of a family whose kernels need no scratch and cannot fail (fj_kernel.c). */
void fj_no_scratch(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar, int64_t *n_work,
                   int64_t *n_iwork);
const char *fj_no_failure(int64_t status);

/* The six families (each defined in its source: planar.c, absolute.c, lumped.c, steering.c, vehicle.c,
 * spatial.c). */
extern const fj_family fj_family_planar;
extern const fj_family fj_family_absolute;
extern const fj_family fj_family_lumped;
extern const fj_family fj_family_steering;
extern const fj_family fj_family_vehicle;
extern const fj_family fj_family_spatial;

/* The family whose name is `name` (families.c); NULL for an unknown name or a NULL name. */
const fj_family *fj_family_find(const char *name);

#endif
