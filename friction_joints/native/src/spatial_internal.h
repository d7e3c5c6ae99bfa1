/* spatial_internal.h: the packed layout of the spatial family (friction_joints/spatial/packing.py, whose
 * module docstring describes it; assembly_spatial.c builds it) and the loop closure of spatial.c that the
 * assembly's initial state uses. The header offsets and status codes have the names and values of the
 * constants of spatial/packing.py. */
#ifndef FJ_SPATIAL_INTERNAL_H
#define FJ_SPATIAL_INTERNAL_H

#include <stdint.h>

#include "fj_kernel.h"

/* codes */
enum { FORM_CUT = 0, FORM_MINIMAL = 1 };
enum { NO_LOAD = 0, SPEED_LOAD = 1 };
enum {
    ST_K_SINGULAR = 1, ST_J2_SINGULAR = 2, ST_REDUCED_SINGULAR = 3, ST_NOT_CLOSED = 4,
    ST_COUPLING = 5, ST_HOLDING = 6, ST_FRAME_SINGULAR = 7, ST_NO_DIRECTION = 8
};

/* ipar header */
enum {
    I_N1, I_N2, I_FORM, I_TRACE, I_FRICTION, I_STICTION, I_LOAD, I_MAX_COUPLING, I_MAX_HOLD,
    I_PARENTS, I_F_LINKS, I_F_CHAINS, I_F_LOOP, I_F_JOURNALS, I_F_LOAD, HEADER
};
/* per link in fpar */
enum { L_M = 0, L_C = 1, L_IC = 4, L_B = 13, L_A = 29, L_H = 45, L_CJ = 61, L_IJ = 64, L_AB = 73, L_MB = 89 };
#define LINK_WIDTH 105
/* per chain in fpar */
enum { CH_BASE = 0, CH_G = 16, CH_RS = 19, CH_TIP = 22, CH_VD0 = 25 };
#define CHAIN_WIDTH 28
/* loop block in fpar */
enum { LOOP_ALPHA, LOOP_BETA, LOOP_COUPLING_TOL, LOOP_HOLD_TOL };
/* per journal in fpar */
enum { J_A_BAR, J_D_A, J_D_B, J_D_C, J_MU_A, J_MU_B, J_MU_C, J_K, J_PSID_K, J_MU_S };
#define JOURNAL_WIDTH 10
/* load block in fpar */
enum { LOAD_T0, LOAD_PSID0, LOAD_C };

/* --- The turning linkage, piece by piece, for the families over the same mechanics with other joint friction
 * (spatial_bristle.c). a: the kernel's arguments (the spatial family's packed model first in fpar, its
 * scratch); every function returns FJ_OK or a status of fj_family_spatial's message(). */

/* (q, qd) (n each) of the state y (RSRRRSystem._coordinates). */
int64_t fj_spatial_coordinates(const fj_args *a, const double *y, double *q, double *qd);
/* RSRRRSystem.resistance (N.m) at the driving speed psid (rad/s). */
double fj_spatial_resistance(const fj_args *a, const double *tau, double psid);
/* qdd, f_S and the reactions f_O, n_O as affine functions of the friction torques t_f (n) at (q, qd) with the
 * net torque ``applied`` (N.m) on the driving link (seed 002 eq. 2 in the packed form, eqs 3.1-3.8), kept in
 * the scratch for fj_spatial_at (RSRRR.dynamics before its coupling). */
int64_t fj_spatial_affine_map(const fj_args *a, const double *q, const double *qd, double applied);
/* f_O, n_O (n, 3) and, unless qdd is NULL, qdd (n) and f_S (3) at the friction torques t_f (n) on the map of
 * the last fj_spatial_affine_map. */
void fj_spatial_at(const fj_args *a, const double *t_f, double *f_O, double *n_O, double *qdd, double *f_S);
/* (|F_A|, |F_B|, |f_z|) (N) of joint j from the reactions f_O, n_O (n, 3) (eqs 6.1-6.2) into loads (3). */
void fj_spatial_surface_loads(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O,
                              const double *n_O, double *loads);
/* The friction arms (m) of surfaces A, B, C of joint j (eqs 5.1-5.3; 5.3 in its 0/0-free form) into arms (3). */
void fj_spatial_arms(const double *fpar, const int64_t *ipar, int64_t j, double *arms);
/* dy[:2n + 3] of RSRRRSystem.rhs: [qd, qdd, drive power, resistance power, friction power -t_f . qd]. */
void fj_spatial_rates(const fj_args *a, const double *y, const double *tau, const double *qd, const double *qdd,
                      const double *t_f, double *dy);
/* A state of motion: q, qd, qdd (n), f_S (3), f_O, n_O (n, 3), t_f (n), the coupling's iterations, stuck. */
typedef struct fj_spatial_state {
    const double *q, *qd, *qdd, *f_S, *f_O, *n_O, *t_f;
    int64_t iterations, stuck;
} fj_spatial_state;
/* RSRRRSystem.record of the state s, flat (spatial.packing.record_layout) into out. Uses the scratch. */
void fj_spatial_record(const fj_args *a, const double *y, const double *tau, const fj_spatial_state *s,
                       double *out);

/* The loop closed from q_guess (n,) with chain 1's coordinates kept, by Newton on chain 2's
 * (loop.CutJointLoop.assemble), into q (n,). scratch, iscratch: the family's (fj_family_spatial.work_size).
 * Returns FJ_OK or a status of the family's message(). */
int64_t fj_spatial_close(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                         const double *q_guess, double *scratch, int64_t *iscratch, double *q);

/* qd (n,) at the closed q (n,) from chain 1's rates qd1 (n1,) and the closure, G qd = 0
 * (loop.CutJointLoop.dependent_velocities). Scratch and status as fj_spatial_close. */
int64_t fj_spatial_dependent_velocities(const double *fpar, int64_t n_fpar, const int64_t *ipar, int64_t n_ipar,
                                        const double *q, const double *qd1, double *scratch, int64_t *iscratch,
                                        double *qd);

#endif
