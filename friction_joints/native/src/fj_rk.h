/* fj_rk.h: embedded Runge-Kutta pairs with dense output and event location over a family's kernels
 * (rk_driver.c): DOP853 (method_dop853.c) and Dormand-Prince 5(4), SciPy's RK45 (method_rk45.c). */
#ifndef FJ_RK_H
#define FJ_RK_H

#include "fj_kernel.h"
#include "fj_stepping.h"

/* An embedded Runge-Kutta pair (rk_method.h) and the two the engine has. */
typedef struct fj_rk_method fj_rk_method;
extern const fj_rk_method fj_rk_dop853; /* Dormand-Prince 8(5,3), 7th-order dense output (SciPy's DOP853) */
extern const fj_rk_method fj_rk_rk45;   /* Dormand-Prince 5(4), 4th-order dense output (SciPy's RK45) */

/* Doubles of scratch fj_rk_advance needs (either method) for n_y states, n_events events and n_tau inputs. */
int64_t fj_rk_scratch_size(int64_t n_y, int64_t n_events, int64_t n_tau);

/* Integrate y (a->n_y) in place with the pair `method` from t to t_end, or to the first event, whichever
 * comes first; an event whose function crosses zero and back within one step is found too (rk_driver.c:
 * near_zero, bracket).
 *
 * fam, a: the family and its arguments (packed model, mode, scratch; a->n_tau inputs); scratch:
 * fj_rk_scratch_size doubles; h_abs: the step size to try first (<= 0 or NaN: choose one);
 * max_step: bound on the step (s); forms (n_tau x 5): the inputs over the call, per input a row
 * (kind, a, b, c, d): kind 0 is a + b (t - t0), kind 1 is a + b sin(c t + d);
 * directions (n_events): of the mode's events (-1 falling, +1 rising, 0 both); grid (n_grid):
 * increasing output times within (t, t_end], recorded by the record kernel into the rows of records
 * (n_grid x n_record) until an event; info (FJ_INFO_SIZE): fj_stepping.h. quiet > 0: first check that
 * every event function at t is at least quiet from firing in its direction, else return
 * FJ_NOT_QUIET at once (a restart at changed inputs that cannot change the mode).
 * Returns FJ_REACHED_END, FJ_EVENT, FJ_KERNEL_FAILED, FJ_STEP_TOO_SMALL or FJ_NOT_QUIET (fj_stepping.h). */
int64_t fj_rk_advance(const fj_rk_method *method, const fj_family *fam, fj_args *a, double *scratch, double t,
                      double *y, double t_end, double h_abs, double rtol, double atol, double max_step,
                      const double *forms, const int64_t *directions, int64_t n_events, const double *grid,
                      int64_t n_grid, double *records, int64_t n_record, double *info, double quiet);

#endif
