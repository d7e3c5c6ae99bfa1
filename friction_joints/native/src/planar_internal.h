/* planar_internal.h: the packed layout of the planar family (friction_joints/planar/packing.py's module
 * docstring describes it; planar_pack.c packs it), the few planar helpers the absolute family (absolute.c)
 * reuses and the projection the mechanism assemblies (planar_mechanism.h) use. The header offsets and status
 * codes have the names and values of the constants of planar/packing.py; the workspace fields are in the
 * order of planar_pack.c's WORK_FIELDS and IWORK_FIELDS. */
#ifndef FJ_PLANAR_INTERNAL_H
#define FJ_PLANAR_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "fj_assembly.h"
#include "fj_kernel.h"

/* status codes (planar/packing.py's ST_*; planar.c's message() has their texts) */
enum {
    ST_GUIDE_AXIS = 1, ST_TREE_SINGULAR, ST_V_SINGULAR, ST_M2_NOT_PD, ST_CCT_SINGULAR, ST_NO_CONVERGENCE,
    ST_INCONSISTENT, ST_INDETERMINATE, ST_HOLDING_SINGULAR, ST_LOCK_SINGULAR, ST_SHARED_NO_SETTLE,
    /* the mode decision (12 and 13 are planar.absolute_packing's) */
    ST_GAUSS_NO_SETTLE = 14, ST_DEPENDENT_STUCK, ST_BREAKAWAY_SLIPPING,
    /* the projection onto the closing constraints (fj_planar_project) */
    ST_NOT_ASSEMBLED
};

/* the imode header (planar/packing.py's IM_*), then the partition and the dependent coordinates */
enum { IM_NSTUCK, IM_NLOCK, IM_SIGN, IM_HEADER };

/* the codes of the joint types and friction laws (planar/packing.py's) */
enum { REVOLUTE, PRISMATIC, PIN_IN_SLOT };
enum { NO_LAW, COULOMB, STRIBECK, EXPONENTIAL, TANH };

/* ipar header */
enum {
    I_N, I_M, I_L, I_K1, I_K, I_M2, I_NB, I_NJ, I_ND, I_NC,
    I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS, I_XQ, I_XO, I_WORK, I_IWORK,
    I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS, I_F_LAWS,
    I_WORK_ROWS, I_IWORK_ROWS, I_WIDTH, I_PARTITION, I_REGULARISED, HEADER
};

/* the fields of the workspace (planar_pack.c's WORK_FIELDS, IWORK_FIELDS), in their order */
enum {
    W_X, W_XD, W_QD, W_C, W_CMU, W_XI, W_D1, W_D2, W_NU2, W_D, W_GAMMA, W_SD, W_H, W_L2, W_H2, W_CPP, W_F0, W_B,
    W_A, W_V, W_C2P, W_U, W_D1DQ, W_XI2P, W_Y0, W_Y, W_WV, W_WM, W_CCT,
    W_F, W_FMU, W_UDOT, W_DIRECTION, W_BASE, W_TRIAL, W_SCALED, W_LIMITS, W_ONES,
    W_J, W_J2, W_F2, W_FMU2, W_BF, W_BF2, W_R, W_R2, W_STEP, W_NA, W_JR, W_START, W_ROOT, W_ROOTMU,
    W_P, W_WR, W_B0, W_HOLD, W_F0S, W_BS, W_SV, W_SVALUES,
    W_ROW_SCALE, W_DIRF, W_QR, W_VN1, W_VN2, W_RDIAG, W_Q_OFF, W_U_OFF, W_GA, W_GB, W_LAM, W_LAM_NEW, W_ACCEL,
    W_BOUND, W_FIXED, W_QP, W_MEMO_Q, W_MEMO_U, W_H_NEW, W_MEMO_DIRECTION, W_ROTATIONS, W_COEF, W_F_RHS
};
enum {
    WI_PIV, WI_VPIV, WI_NPIV, WI_WPIV, WI_LPIV, WI_STATIC, WI_ALL_STATIC,
    WI_QR_PIV, WI_DIR, WI_OLD, WI_ZERO, WI_Z, WI_KINEMATIC, WI_STUCK, WI_NEW_STUCK, WI_ROWS, WI_PART, WI_QPI, WI_MEMO, WI_MEMO_PART,
    WI_C_LO, WI_C_HI, WI_MU_LO, WI_MU_HI
};
/* the static flags (stat) of the friction laws: kinetic, static coefficient mu_s, f_mu fixed to the
 * workspace field `fixed` with zero derivative (the static friction of the Gauss problem), or a bristle
 * contact (planar_bristle.c): mu_s scaled by its direction, less the field `fixed` (its viscous part) */
enum { STAT_KINETIC, STAT_STATIC, STAT_FIXED, STAT_BRISTLE };

/* per joint in ipar (its row in fpar and in fj_planar_model.joints: planar_joints.h's JF_*) */
enum { JI_TYPE, JI_BODY_I, JI_BODY_J, JI_Z, JI_NZ, JI_S, JI_NS, JI_EDGE, JI_WIDTH };
#define LAW_WIDTH 4 /* mu_s and three parameters, per free coordinate in fpar (and fj_planar_model.laws) */

/* A planar model as flat arrays (row-major): what fj_planar_pack packs, the one packer of the family's model
 * arrays (planar/packing.py describes a PlanarModel and its MinimalForm so; the assemblies of the
 * mechanism FMUs, planar_mechanism.h, describe theirs from the FMU parameters). Free coordinates (laws) in
 * joint order, n_s of them per joint (Revolute, Prismatic 1, PinInSlot 2). Validated by the caller
 * (planar.model, planar.tree); fj_planar_pack checks only what it indexes. */
typedef struct fj_planar_model {
    int64_t n_bodies, n_joints, n_drives, n_tree, regularised;
    const double *bodies;       /* n_bodies x 5: m, J, force (x, y), moment (bodies.Body) */
    const int64_t *joint_types; /* n_joints x 3: type, body_i, body_j (0: the ground) */
    const double *joints;       /* n_joints x 9: p_i (2), p_j (2), e_j (2, a unit vector), theta_0, r, edge_length
                                   (0: none) */
    const int64_t *law_kinds;   /* per free coordinate: NO_LAW (frictionless), COULOMB ... TANH */
    const double *laws;         /* per free coordinate x 4: mu_s, then Coulomb mu_k | Stribeck mu_k, v_s, delta |
                                   Exponential mu_0, k, v_k | Tanh mu_k, v_eps */
    const int64_t *drive_bodies; /* n_drives: the body of each input (bodies.BodyLoad) */
    const double *drives;       /* n_drives x 3: its generalized force (Fx, Fy, M) per unit input */
    const double *gravity;      /* 2: (gx, gy) */
    const int64_t *tree;        /* n_tree x 2: joint index, axis (0 x, 1 y, 2 theta) of each tree joint */
    const int64_t *partition;   /* k = n_tree - m2: the indices of q of the independent velocities */
} fj_planar_model;

/* The packed model (fpar, ipar) of d (layout: planar/packing.py's docstring). With fpar or ipar NULL, only
 * their sizes into *n_fpar, *n_ipar; else they are filled, and *n_fpar, *n_ipar must be those sizes.
 * Returns 0, or 1 with a message naming what does not fit in error (n_error bytes). */
int64_t fj_planar_pack(const fj_planar_model *d, double *fpar, int64_t *n_fpar, int64_t *ipar, int64_t *n_ipar,
                       char *error, size_t n_error);
/* q (k1) moved onto the closing constraints Phi2'(q) = 0 by Newton on its dependent coordinates, those of
 * the partition ipar[I_PARTITION] held (MinimalForm.project); a->work and a->iwork the workspace, no mode.
 * Returns FJ_OK, a status of the tree map, or ST_NOT_ASSEMBLED (no convergence, *residual its
 * |Phi2'(q)|). */
int64_t fj_planar_project(const fj_args *a, double *q, double *residual);

/* The linear terms of the minimal form at (q, u, tau) for the partition ipar[I_PARTITION] (MinimalForm.linear_terms:
 * the velocities' V, M'', C C^T); imode: scratch of IM_HEADER + k1 entries. FJ_OK or the status of the failure. */
int64_t fj_planar_initial_terms(const fj_args *a, const double *q, const double *u, const double *tau, int64_t *imode);
/* The mechanism assemblies' end (planar_assemble.c): fpar, ipar of d packed (sizes self->n_fpar, n_ipar) and
 * y0 = [q, u, 0, 0] (self->n_y) with q the guess q_guess (k1) projected onto the closing constraints holding the
 * partition's coordinates (Mechanism.assemble), u (k); a problem in pr where the packing or the projection
 * fails, the latter's text after `where` (MinimalForm.project's words). With motion_where (else NULL), also the
 * checks of a mechanism file's build at the initial state with tau = 0 (MechanismFile._assemble): V regular
 * (after `where`, MinimalForm.velocities' words), M'' positive definite and C C^T regular (after motion_where). */
void fj_planar_assemble(const fj_assembly *self, const fj_planar_model *d, const double *q_guess, const double *u,
                        const char *where, const char *motion_where, double *fpar, int64_t *ipar, double *y0,
                        fj_problems *pr);

/* The checks of a mechanism file's assembly (assembly_file.c; mechanisms/files.py's MechanismFile.build and the
 * classes it builds, with their messages). Each adds its problems to report (whose separator is "\n  ") after
 * `where` ("<key path> (line N): "); fj_file_report closes the report as files.py does (into pr, "<file>: ..."),
 * returning pr's count. */
/* The value x of an expression (where: "<key> = <text> (line N): '<text>' "), or NaN and a problem if its
 * arithmetic failed (bad: Python raises) or x is not finite (expressions.evaluate). */
double fj_file_value(fj_problems *report, const char *where, int bad, double x);
/* a / b, *bad set where Python raises (b = 0); f(a) and f(a, b), *bad set where CPython's math module (and
 * float's **) raises: a NaN of numbers, an infinity of finite arguments. */
double fj_file_div(int *bad, double a, double b);
double fj_file_f1(int *bad, double (*f)(double), double a);
double fj_file_f2(int *bad, double (*f)(double, double), double a, double b);
/* planar.Body `name` of the row body (m, J, force_x, force_y, moment). */
void fj_file_body(fj_problems *report, const char *where, const char *name, const double *body);
/* The friction law of kind (COULOMB ... TANH) with the row law (fj_planar_model.laws). */
void fj_file_law(fj_problems *report, const char *where, int64_t kind, const double *law);
/* A joint of type (REVOLUTE ...) with the row joint (JF_*; its e_j made a unit vector): r > 0 with r_open (a
 * revolute joint with friction, a pin with its turning friction), else r >= 0; edge_length > 0 if has_edge. */
void fj_file_joint(fj_problems *report, const char *where, int64_t type, double *joint, int r_open, int has_edge);
/* A force drive's direction (2), made a unit vector, or "<where>must be a non-zero direction". */
void fj_file_direction(fj_problems *report, const char *where, double *direction);
/* A joint's own bristle law (MechanismFile._bristle_law) of the row given (fj_bristle_laws.h: its mu_c and mu_s
 * the contact's), packed into law: fj_bristle_law's checks, its parameters named "<prefix><name>" (the FMU's
 * "O.bristle.sigma0"), with files.py's note where mu_c or mu_s fails; where: "<key path> (line N): joint O's
 * lugre law: ". */
void fj_file_own_law(fj_problems *report, const char *where, const char *prefix, const double *given, double *law);
int64_t fj_file_report(const fj_problems *report, const char *file, fj_problems *pr);

/* The kernels look their fields up at every evaluation: where the engine is a shared library whose symbols
 * are exported (ELF, the Python package's), these stay hidden, so that the calls are direct, not through the
 * library's symbol table. Not inline: a native FMU's binary stays within its size goal. */
#if defined(__GNUC__) && !defined(_WIN32)
#define FJ_HIDDEN __attribute__((visibility("hidden")))
#else
#define FJ_HIDDEN
#endif
/* Field `field` of WORK_FIELDS: its first row in a->work (the row that fj_planar_pack's table
 * at ipar[I_WORK] gives); every field has the row stride ipar[I_WIDTH]. */
FJ_HIDDEN double *fj_planar_field(const fj_args *a, int64_t field);
/* Field `field` of IWORK_FIELDS in a->iwork (its table at ipar[I_IWORK]). */
FJ_HIDDEN int64_t *fj_planar_ifield(const fj_args *a, int64_t field);
/* C = dPhi/dx (m x n) and C_mu = dPsi/dx (l x n), row stride ld (model.constraints; seed 000 eqs 2.1-2.2). */
void fj_planar_jacobians(const fj_args *a, const double *x, double *C, double *Cmu, int64_t ld);
/* xi = -Cdot xdot (m) (model.xi; seed 000 eq. 2.9). */
void fj_planar_xi(const fj_args *a, const double *x, const double *xd, double *xi);
/* f = f0 + B f_mu(f) (seed 000 eq. 3.3), B (m x l, row stride ipar[I_WIDTH]) (coupling.solve_coupled);
 * stat (l): STAT_* of each free coordinate (with STAT_BRISTLE, the Lipschitz constants scaled by the largest
 * |direction| above 1, as BristleSystem._contacts does). */
int64_t fj_planar_solve_coupled(const fj_args *a, const double *f0, const double *B, const double *sd,
                                const double *direction, int use_sign, const int64_t *stat, double *f,
                                double *f_mu);
/* The minimal form with friction unknown at (q, u, tau) for the partition of the mode a->imode
 * (MinimalForm.linear_terms), into the workspace's fields (the memo's where it has them). */
int64_t fj_planar_linear_terms(const fj_args *a, const double *q, const double *u, const double *tau);
/* MinimalForm.evaluate on the linear terms with the friction directions direction (l) and the flags stat (l):
 * the coupled solve, then udot (into the fields f, f_mu, udot). The solve's Newton iteration starts from
 * f_start (m) where the root is unique (the coupling a contraction), NULL: from f0 (coupling.solve_coupled);
 * either way it ends within the solve's tolerance. */
int64_t fj_planar_evaluate(const fj_args *a, const double *direction, const int64_t *stat, const double *f_start);
/* (H tau) . xdot (W) at the kinematics in the workspace. */
double fj_planar_drive_power(const fj_args *a, const double *tau);
/* The record of record_layout (planar/packing.py) into out from y, tau and the workspace's fields after an
 * evaluation, but udot (out's, written before: qdd = D2 udot + nu2 reads it); stuck per the mode a->imode. */
void fj_planar_record_fields(const fj_args *a, const double *y, const double *tau, double *out);
/* QR with column pivoting of A (m x n, row stride lda; overwritten) as scipy.linalg.qr(pivoting=True)
 * gets it from LAPACK's dgeqp3 (its unblocked dlaqp2 at these sizes): at step i the column of largest
 * partial norm (the first of equal ones), the reflector of dlarfg applied as dlarf does, the partial
 * norms downdated and recomputed where they lose their digits as dlaqp2 does, so that the pivots are
 * LAPACK's (the column norms as the BLAS dnrm2 of OpenBLAS on x86-64 computes them: in extended
 * precision). jpvt (n): the pivot order (scipy's piv); rdiag (min(m, n)): |R_ii|; vn1, vn2 (n): scratch.
 * (The planar mode decisions: the partition, the independent stuck rows and their pivot columns.) */
void fj_planar_qr_pivots(double *A, int64_t m, int64_t n, int64_t lda, int64_t *jpvt, double *rdiag, double *vn1,
                         double *vn2);

#endif
