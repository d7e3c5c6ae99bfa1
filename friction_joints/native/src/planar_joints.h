/* planar_joints.h: the joint types and friction laws of the planar family behind one small interface
 * (planar.joints' classes, seed 000 Sect. 2; friction.laws), one C file each: joint_revolute.c,
 * joint_prismatic.c, joint_pin_in_slot.c, friction_laws.c. planar.c and the packer (planar_pack.c) loop
 * over the joints and call them; a new joint type is one file, its code in planar_internal.h and its row
 * in planar_joints.c's table. */
#ifndef FJ_PLANAR_JOINTS_H
#define FJ_PLANAR_JOINTS_H

#include <math.h>
#include <stdint.h>

/* per joint in fpar (planar.packing.pack) */
enum { JF_PI = 0, JF_PJ = 2, JF_EJ = 4, JF_THETA0 = 6, JF_R = 7, JF_EDGE = 8, JF_WIDTH = 9 };

/* A joint between body i and body j at a configuration x, as its kernels see it. */
typedef struct fj_joint_frame {
    const double *par;   /* its fpar row (JF_*): p_i, p_j, e_j, theta_0, r, edge_length */
    double ri[3], rj[3]; /* poses (rx, ry, theta) of bodies i and j (the ground at the origin) */
    double ai[2], aj[2]; /* R_i p_i and R_j p_j (m) */
    double rot_i[2], rot_j[2]; /* (cos, sin) of theta_i and theta_j */
    int64_t ci, cj;      /* the first columns of bodies i and j in x */
    int j_moves;         /* 0 if body j is the ground (no columns) */
} fj_joint_frame;

/* A point p of a body moving with it (joints._moving_point): R p, r + R p, omega, velocity of the point:
 * [ax, ay, Px, Py, w, vx, vy]. */
enum { MP_AX, MP_AY, MP_PX, MP_PY, MP_W, MP_VX, MP_VY, MP_WIDTH };

typedef struct fj_planar_joint_type {
    int64_t n_z, n_s; /* its rows of z = Phi(x) and its free coordinates s (Joint.n_z, n_s) */
    /* Body i's pose ri from body j's pose rj and the tree coordinate q along axis (0 x, 1 y, 2 theta)
     * (tree.JointCoordinates.g, seed 000 eq. 4.2): FJ_OK or ST_GUIDE_AXIS. NULL: not a tree joint. */
    int64_t (*place)(const double *par, int64_t axis, double q, const double rj[3], double ri[3]);
    /* Its entries of z = Phi(x) (seed 000 eq. 2.1; the projection onto the closing constraints). */
    void (*values)(const fj_joint_frame *j, double *z);
    /* Its rows of C = dPhi/dx from Cz and of C_mu = dPsi/dx from Ms (row stride ld), in the columns of
     * its bodies (seed 000 eqs 2.1-2.2); the rows hold zeros on entry. */
    void (*jacobians)(const fj_joint_frame *j, double *Cz, double *Ms, int64_t ld);
    /* Its entries of xi = -Cdot xdot from its points' motion pi, pj (MP_*) (seed 000 eq. 2.9). */
    void (*xi)(const fj_joint_frame *j, const double *pi, const double *pj, double *xi);
    /* f_mu (its free coordinates) from its reactions f and the signed coefficients coef = -sgn mu of its
     * free coordinates (seed 000 eq. 2.5), and df_mu/df into J (its rows, stride ld, its z columns).
     * edge: 1 if par's edge_length is given. */
    void (*friction)(const double *par, int64_t edge, const double *f, const double *coef, double *f_mu, double *J,
                     int64_t ld);
    /* The Lipschitz constant L of f_mu(f) over every mu its laws allow, ||f_mu(f) - f_mu(f')|| <= L ||f - f'||
     * (Joint.lipschitz; the uniqueness test of the coupled equations, planar.coupling), from the law kind
     * (planar_internal.h's NO_LAW ...) and row (LAW_WIDTH) of each of its free coordinates. */
    double (*lipschitz)(const double *par, const int64_t *law_kinds, const double *laws);
} fj_planar_joint_type;

extern const fj_planar_joint_type fj_revolute, fj_prismatic, fj_pin_in_slot;

/* The joint type of a code (planar_internal.h's REVOLUTE ...), NULL for an unknown code. */
const fj_planar_joint_type *fj_planar_joint_type_of(int64_t code);

/* The normal and sliding rows of a slide (Prismatic and PinInSlot: n . d and e . d, e = R_j e_j,
 * n = perp(e), d = P_i - P_j) into Cz and Ms, and the xi of the normal row (joints.Prismatic._slide_terms,
 * _slide_xi). */
void fj_slide_rows(const fj_joint_frame *j, double *Cz, double *Ms);
double fj_slide_value(const fj_joint_frame *j); /* n . d, the normal row's z */
double fj_slide_xi(const fj_joint_frame *j, const double *pi, const double *pj);

/* The friction coefficient mu >= 0 of a law (friction.laws) at the slip speed sd: its static mu_s if
 * stat, else the kinetic mu(sd). kind: planar_internal's COULOMB ... TANH; law: mu_s and three
 * parameters (LAW_WIDTH). */
double fj_friction_mu(int64_t kind, const double *law, double sd, int stat);

/* The bound of mu(v) over every slip speed of a law (FrictionLaw.bound: its mu_s), 0 for none (NO_LAW). */
double fj_friction_bound(int64_t kind, const double *law);

/* R p with rot = (cos theta, sin theta). */
static inline void fj_turn(const double rot[2], double px, double py, double *ox, double *oy) {
    *ox = rot[0] * px - rot[1] * py;
    *oy = rot[1] * px + rot[0] * py;
}

/* R(theta) p. */
static inline void fj_rotate(double theta, double px, double py, double *ox, double *oy) {
    const double rot[2] = {cos(theta), sin(theta)};
    fj_turn(rot, px, py, ox, oy);
}

#endif
