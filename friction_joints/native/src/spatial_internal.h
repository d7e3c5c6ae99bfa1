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
/* The message of the Newton families' status for a reaction-friction coupling without solution: an iterate
 * had det(I - G) <= 0, G = dt_f/dt_f (spatial.rsrrr.NO_SOLUTION, RSRRR._newton_coupling). */
#define FJ_SPATIAL_NO_SOLUTION                                                                                \
    "the reaction-friction coupling has no solution (Painleve-type): Newton crossed det(I - G) = 0, "          \
    "G = dt_f/dt_f the friction's gain on itself through the reactions (light links by a journal raise G)"

/* ipar header */
enum {
    I_N1, I_N2, I_FORM, I_TRACE, I_FRICTION, I_STICTION, I_LOAD, I_MAX_COUPLING, I_MAX_HOLD,
    I_PARENTS, I_F_LINKS, I_F_CHAINS, I_F_LOOP, I_F_JOURNALS, I_F_LOAD, HEADER
};
/* per link in fpar */
enum {
    L_M = 0, L_C = 1, L_IC = 4, L_B = 13, L_A = 29, L_H = 45, L_CJ = 61, L_IJ = 64, L_AB = 73, L_MB = 89,
    L_KIND = 105, L_K = 106, L_D = 107
};
#define LINK_WIDTH 108
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

/* The scratch of a kernel call (shapes with n = n1 + n2 joints), every array carved from a->work and
 * a->iwork by layout(). */
typedef struct fj_spatial_work {
    /* frames (seed 002 eq. 1) and the open-chain dynamics */
    double *T, *M, *S, *I6, *comp, *v6, *a6, *f6, *A, *e; /* (n,4,4) (n,4,4) (n,6) (n,6,6) (n,6,6) (n,6)x3 (n,n) (n) */
    /* e as the chains' dynamics gave it (before a caller's forces), b of each chain's point S (mechanics()'s kept) */
    double *bias, *tip_bias; /* (n) (2,3) */
    /* closure kinematics: G = [J1, -J2], c = b2 - b1, Phi, dPhi/dt, the points S of both chains */
    double *G, *c, *Phi, *Phid, *P; /* (3,n) (3) (3) (3) (2,3) */
    /* eq. (2) and the minimal form: the affine map of qdd and f_S in the friction torques */
    double *K, *X, *J2, *J2inv, *V, *qdd0, *fS0, *Sq, *Sf; /* (n+3,n+3) (n+3,n+1) (3,3)x2 (n,n1) (n) (3) (n,n) (3,n) */
    int64_t *piv;                                          /* (n+3) */
    /* Newton-Euler (eqs 3.1-3.8): joint geometry and motion, reactions and their slopes */
    double *Rg, *rO, *Rtip, *motion, *fO0, *nO0, *SfO, *SnO; /* (n,3,3) (n,3) (2,3,3) (n,9) (n,3)x2 (n,n,3)x2 */
    /* the state of motion */
    double *qdd, *fS, *fO, *nO, *tf, *limits, *R4; /* (n) (3) (n,3)x2 (n)x2 (4,4) */
    int64_t *path;                                 /* (n) */
    /* the trace formulation (lagrange_trace) */
    double *Delta, *Ti, *TiH; /* (n,4,4) each (a chain's joints) */
    int64_t *on_path;         /* (n) */
    /* the minimal form (solve_minimal) */
    double *wv, *Mr, *AV, *force, *Y, *qddm, *res; /* (n) (n1,n1) (n,n1) (n,n+1) (n1,n+1) (n,n+1) (3,n+1) */
    int64_t *pivr;                                 /* (n1) */
    /* zero: the zero rates where the Python engine passes np.zeros(n) (cleared by work_of, never
     * written); rest_terms' V, reaction_map's col, the kernels' q, qd */
    double *zero, *Vh, *col, *q, *qd; /* (n) each */
    /* the memo of the state of motion (motion()): its arguments y[:2n], tau, then its alpha; its flag,
     * direction and iterations */
    double *kept;  /* (2n+6) */
    int64_t *memo; /* (4) */
    /* E_kin, E_pot (where asked) and the closure error at the (q, qd) of the last mechanics() (not the trace
     * formulation's) */
    double *energy; /* (3) */
} fj_spatial_work;

/* --- The turning linkage, piece by piece, for the families over the same mechanics with other joint friction
 * (spatial_bristle.c). a: the kernel's arguments (the spatial family's packed model first in fpar, its
 * scratch); every function returns FJ_OK or a status of fj_family_spatial's message(). */

/* (q, qd) (n each) of the state y (RSRRRSystem._coordinates). */
int64_t fj_spatial_coordinates(const fj_args *a, const double *y, double *q, double *qd);
/* qdd, f_S and the reactions f_O, n_O as affine functions of the friction torques t_f (n) at (q, qd) with the
 * net torque ``applied`` (N.m) on the driving link (seed 002 eq. 2 in the packed form, eqs 3.1-3.8), kept in
 * the scratch for fj_spatial_coupling and fj_spatial_motion_at (RSRRR.dynamics before its coupling). */
int64_t fj_spatial_affine_map(const fj_args *a, const double *q, const double *qd, double applied);
/* qdd (n) and f_S (3) at the friction torques t_f (n) on the map of the last fj_spatial_affine_map (the
 * reactions at t_f: fj_spatial_coupling's). */
void fj_spatial_motion_at(const fj_args *a, const double *t_f, double *qdd, double *f_S);
/* (|F_A|, |F_B|, |f_z|) (N) of journal j from the reactions f_O, n_O (3,) of its joint (eqs 6.1-6.2) into loads (3). */
void fj_spatial_surface_loads(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O,
                              const double *n_O, double *loads);
/* The friction arms (m) of surfaces A, B, C of joint j (eqs 5.1-5.3; 5.3 in its 0/0-free form) into arms (3). */
void fj_spatial_arms(const double *fpar, const int64_t *ipar, int64_t j, double *arms);
/* dy[:2n + 3] of RSRRRSystem.rhs: [qd, qdd, drive power, resistance power, friction power -t_f . qd]. */
void fj_spatial_rates(const fj_args *a, const double *y, const double *tau, const double *qd, const double *qdd,
                      const double *t_f, double *dy);
/* A state of motion: q, qd, qdd (n), f_S (3), f_O, n_O (n, 3), t_f (n), the coupling's iterations, stuck;
 * energy: its E_kin, E_pot (J) and closure error (m) where its mechanics computed them, or NULL. */
typedef struct fj_spatial_state {
    const double *q, *qd, *qdd, *f_S, *f_O, *n_O, *t_f;
    int64_t iterations, stuck;
    const double *energy;
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

/* The chain functions of spatial.c for other families (spatial_clearance.c), on the packed layout above. */
/* The arrays of w carved from f and iw for n joints (n1 in chain 1); NULL f, iw: only count into *nf, *ni. */
void fj_spatial_layout(fj_spatial_work *w, double *f, int64_t *iw, int64_t n, int64_t n1, int64_t *nf, int64_t *ni);
/* Clears the entries of w the functions read but do not all write (A, G, zero) and w's memo. */
void fj_spatial_clear(fj_spatial_work *w, int64_t n);
/* What w holds of the last fj_spatial_mechanics, at (q_last, qd_last), for a call at (q, qd): per chain ch,
 * FJ_KEPT_Q << 2 ch where its q is the same bits, and FJ_KEPT_QD << 2 ch where its qd is too. */
enum { FJ_KEPT_Q = 1, FJ_KEPT_QD = 2, FJ_KEPT_ALL_Q = FJ_KEPT_Q | FJ_KEPT_Q << 2 };
int fj_spatial_kept(const int64_t *ipar, const double *q, const double *qd, const double *q_last,
                    const double *qd_last);
/* Frames, A and e (with the joints' spring-dampers), G, c, Phi, dPhi/dt and the joint geometry at (q, qd);
 * w->energy: the closure error, E_kin and E_pot left 0 (a right-hand side needs neither; fj_spatial_energy
 * computes them for a record). kept: what w holds of the last call (fj_spatial_kept; 0: nothing), whose terms
 * serve (the same numbers: the Jacobian's columns, fj_rodas.h, each change q or qd of one chain). */
int64_t fj_spatial_mechanics(const double *q, const double *qd, const double *fpar, const int64_t *ipar,
                             fj_spatial_work *w, int kept);
/* q_kept (fj_spatial_solve_cut, fj_spatial_reaction_map): w holds what the last calls computed at this same q
 * (and cols), and only the terms that depend on qd are computed (the same numbers). */
/* Seed 002 eq. (2) with Baumgarte's terms as the affine map of unit joint torques (qdd0, fS0, and the
 * columns Sq, Sf of the joints cols, n_cols of them; NULL: every joint), the torque tau0 on joint 0 and the
 * bias w->e (which a caller may add applied forces to). */
int64_t fj_spatial_solve_cut(double tau0, const double *fpar, const int64_t *ipar, fj_spatial_work *w,
                             const int64_t *cols, int64_t n_cols, int q_kept);
/* The reactions (eqs 3.1-3.8) as affine functions of the unit joint torques: fO0, nO0, and SfO, SnO of the
 * joints cols (as fj_spatial_solve_cut's). */
void fj_spatial_reaction_map(const double *qd, const double *fpar, const int64_t *ipar, fj_spatial_work *w,
                             const int64_t *cols, int64_t n_cols, int q_kept);

/* The reaction-friction coupling of the four journals (RSRRR.dynamics), shared by the families spatial,
 * spatial_clearance and spatial_bristle. Journal j's friction torque at its joint's reactions f_O, n_O:
 *
 *     g_j = chi_j (mu_j0 arm_j0 |F_A| + mu_j1 arm_j1 |F_B| + mu_j2 arm_j2 |f_z|) + offset_j
 *
 * (seed 002 eq. 4 with the arms of eqs 5.1-5.3 and the loads of eqs 6.1-6.2; chi_j = 0: g_j = offset_j, the
 * torque not evaluated), its joint joints[j] among the map's coordinates. The spatial family's journals:
 * mu = the full levels mu_a0, chi = eq. (7) / mu_a0, offset 0; the bristle family's: mu = the surfaces' bristle
 * coefficients, chi = 1, offset = their viscous torques. */
#define FJ_JOURNALS 4
typedef struct fj_spatial_journals {
    int64_t joints[FJ_JOURNALS];
    double chi[FJ_JOURNALS], mu[FJ_JOURNALS][3], offset[FJ_JOURNALS];
} fj_spatial_journals;
/* The spatial family's journals at the rates qd (of the map's coordinates) into law: their joints `joints` (4),
 * mu = mu_a0, chi = eq. (7) / mu_a0 at their rates (0 without friction), offset 0. */
void fj_spatial_journals_of(const double *fpar, const int64_t *ipar, const int64_t *joints, const double *qd,
                            fj_spatial_journals *law);
/* t_f = g(t_f) on the affine map in w (fO0, nO0 and the columns SfO, SnO of the journals' joints: those of
 * fj_spatial_reaction_map) by Newton's method with the analytic Jacobian I - G, G = dg/dt_f (the gradient of
 * each journal's torque through the norms of eqs 6.1-6.2 times the map's columns), from start (4; NULL: from the
 * frictionless t_f = 0), stopped where
 * the change |g(t_f) - t_f| <= tol (1 + max |g(t_f)|) (tol: the loop block's coupling tolerance; the paper's
 * fixed point's test). A step that does not lower the change is halved from the iterate it left; a singular
 * I - G (or a step not finite) takes the fixed point's step g - t_f. Into t_f (4) the solution, f_O, n_O (4, 3)
 * the journals' reactions at it, *passes the evaluations of g, *folded 1 if an iterate had det(I - G) <= 0 (a
 * fold: where the coupling fails so, it has no solution near, FJ_SPATIAL_NO_SOLUTION). Returns FJ_OK, or
 * ST_COUPLING after ipar[I_MAX_COUPLING] passes. */
int64_t fj_spatial_coupling(const double *fpar, const int64_t *ipar, const fj_spatial_work *w,
                            const fj_spatial_journals *law, const double *start, double *t_f, double *f_O,
                            double *n_O, int64_t *passes, int *folded);
/* t_0 (N.m) of journal j (eqs 4-6) under its joint's reactions f_O, n_O (3,); unless grad is NULL, its gradient
 * dt_0/d(f_O, n_O) into grad (6) (0 for the part of a zero load, a kink of its norm): the terms of the coupling's
 * Jacobian at the levels mu_a0 (tests/test_compiled_spatial.py checks them against differences). */
double fj_spatial_journal_torque(const double *fpar, const int64_t *ipar, int64_t j, const double *f_O,
                                 const double *n_O, double *grad);
/* (E_kin, E_pot) in J of both chains. */
void fj_spatial_energy(const double *q, const double *qd, const double *fpar, const int64_t *ipar,
                       fj_spatial_work *w, double *e_kin, double *e_pot);
/* max |Phi| (m) at q. */
double fj_spatial_closure(const double *q, const double *fpar, const int64_t *ipar, fj_spatial_work *w);
/* tau_res plus the SpeedLoad's at psid (N.m). */
double fj_spatial_resistance(const double *tau, const double *fpar, const int64_t *ipar, double psid);

#endif
