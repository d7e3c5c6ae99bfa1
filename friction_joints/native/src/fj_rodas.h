/* fj_rodas.h: RODAS, a stiff integrator with dense output and event location over a family's kernels
 * (rodas.c): the Rosenbrock method of order 4(3) of Hairer & Wanner, Solving Ordinary Differential
 * Equations II (2nd ed. 1996), section IV.7 (six stages, stiffly accurate, L-stable, third-order
 * dense output), with the coefficients, error estimate and step-size control of Hairer's rodas.f
 * (version of October 28, 1996, method 1), the Jacobian and df/dt by finite differences but where they
 * are exactly zero: the columns of the states the family declares integrals (fj_family.integrals), df/dt
 * under inputs held over the call; the right-hand sides of a step after its first are the family's rhs_near
 * (fj_kernel.h) about that first one.
 *
 * fj_rodas_advance takes the arguments of fj_rk_advance (fj_rk.h) after its pair and returns the
 * statuses of fj_stepping.h and more; its info array is longer (FJ_RODAS_INFO_SIZE). */
#ifndef FJ_RODAS_H
#define FJ_RODAS_H

#include "fj_kernel.h"
#include "fj_stepping.h"

/* what fj_rodas_advance returns besides fj_stepping.h's statuses: the matrix I/(h gamma) - J was
 * singular at five step sizes in a row, each half the one before */
enum { FJ_MATRIX_SINGULAR = 5 };
/* the slots of its info array besides fj_stepping.h's */
enum {
    FJ_INFO_JACOBIANS = FJ_INFO_SIZE, /* Jacobians evaluated (each a right-hand side per column but the
                                         integrals' and one for df/dt unless the inputs are held, in
                                         RHS_CALLS) */
    FJ_INFO_REJECTED,                 /* steps rejected by the error test */
    FJ_RODAS_INFO_SIZE
};

/* Doubles of scratch fj_rodas_advance needs for n_y states, n_events events and n_tau inputs. */
int64_t fj_rodas_scratch_size(int64_t n_y, int64_t n_events, int64_t n_tau);

/* Integrate y (a->n_y) in place from t to t_end, or to the first event, whichever comes first.
 *
 * The arguments of fj_rk_advance (fj_rk.h) after its pair: fam, a: the family and its arguments; scratch:
 * fj_rodas_scratch_size doubles, allocated memory (malloc, calloc, a numpy array: its last n_y
 * doubles hold the pivots of the LU factorization as int64_t); h_abs: the step size to try first
 * (<= 0 or NaN: 1e-6 s, rodas.f's default); rtol, atol: the error of a step, in the root mean
 * square over the states of error / (atol + rtol max(|y|, |y_new|)), is at most 1; max_step: bound
 * on the step (s); forms (n_tau x 5): the inputs over the call (fj_stepping.h); directions
 * (n_events): of the mode's events; grid (n_grid): output times within (t, t_end] recorded into
 * records (n_grid x n_record) until an event; info (FJ_RODAS_INFO_SIZE): FJ_INFO_H is the step size
 * the controller proposes for the next call; quiet > 0: first check that every event function is
 * at least quiet from firing, else return FJ_NOT_QUIET.
 * Returns FJ_REACHED_END, FJ_EVENT, FJ_KERNEL_FAILED, FJ_STEP_TOO_SMALL, FJ_NOT_QUIET or
 * FJ_MATRIX_SINGULAR; y and info[FJ_INFO_T] are where it stopped. */
int64_t fj_rodas_advance(const fj_family *fam, fj_args *a, double *scratch, double t, double *y, double t_end,
                         double h_abs, double rtol, double atol, double max_step, const double *forms,
                         const int64_t *directions, int64_t n_events, const double *grid, int64_t n_grid,
                         double *records, int64_t n_record, double *info, double quiet);

/* The message of a status fj_rodas_advance returned (never NULL). */
const char *fj_rodas_message(int64_t status);

/* RODAS as a family's integrator (fj_family.integrator) */
extern const fj_integrator fj_rodas;

#endif
