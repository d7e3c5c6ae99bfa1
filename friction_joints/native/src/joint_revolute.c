/* joint_revolute.c: the revolute joint of the planar family (planar.joints.Revolute; seed 000 Sect. 2):
 * z = d = P_i - P_j (2 rows), s = theta_i - theta_j, journal friction with arm r. */
#include "fj_linalg.h"
#include "planar_internal.h"
#include "planar_joints.h"

/* q = theta_i, the absolute angle (seed 000 eq. 6.4): P_i = P_j */
static int64_t place(const double *par, int64_t axis, double q, const double rj[3], double ri[3]) {
    (void)axis;
    double pjx, pjy, pix, piy;
    fj_rotate(rj[2], par[JF_PJ], par[JF_PJ + 1], &pjx, &pjy);
    fj_rotate(q, par[JF_PI], par[JF_PI + 1], &pix, &piy);
    ri[0] = rj[0] + pjx - pix;
    ri[1] = rj[1] + pjy - piy;
    ri[2] = q;
    return FJ_OK;
}

/* z = d = r_i + R_i p_i - r_j - R_j p_j */
static void values(const fj_joint_frame *j, double *z) {
    z[0] = j->ri[0] + j->ai[0] - j->rj[0] - j->aj[0];
    z[1] = j->ri[1] + j->ai[1] - j->rj[1] - j->aj[1];
}

static void jacobians(const fj_joint_frame *j, double *Cz, double *Ms, int64_t ld) {
    double *Cz1 = Cz + ld;
    int64_t ci = j->ci, cj = j->cj;
    Cz[ci] = 1.0, Cz[ci + 2] = -j->ai[1];
    Cz1[ci + 1] = 1.0, Cz1[ci + 2] = j->ai[0];
    Ms[ci + 2] = 1.0;
    if (j->j_moves) {
        Cz[cj] = -1.0, Cz[cj + 2] = j->aj[1];
        Cz1[cj + 1] = -1.0, Cz1[cj + 2] = -j->aj[0];
        Ms[cj + 2] = -1.0;
    }
}

/* xi = R_i p_i w_i^2 - R_j p_j w_j^2 */
static void xi(const fj_joint_frame *j, const double *pi, const double *pj, double *out) {
    (void)j;
    double wi = pi[MP_W], wj = pj[MP_W];
    out[0] = pi[MP_AX] * (wi * wi) - pj[MP_AX] * (wj * wj);
    out[1] = pi[MP_AY] * (wi * wi) - pj[MP_AY] * (wj * wj);
}

/* f_mu = -sgn mu r |f| (seed 000 eq. 2.5 row 1) */
static void friction(const double *par, int64_t edge, const double *f, const double *coef, double *f_mu, double *J,
                     int64_t ld) {
    (void)edge, (void)ld;
    double r = par[JF_R];
    double nrm = fj_hypot(f[0], f[1]); /* (the same bits on every platform) */
    f_mu[0] = coef[0] * r * nrm;
    if (nrm != 0.0) {
        J[0] = coef[0] * r * f[0] / nrm;
        J[1] = coef[0] * r * f[1] / nrm;
    } else {
        J[0] = 0.0;
        J[1] = 0.0;
    }
}

/* the journal's law times its arm r (Revolute.lipschitz) */
static double lipschitz(const double *par, const int64_t *law_kinds, const double *laws) {
    return law_kinds[0] == NO_LAW ? 0.0 : fj_friction_bound(law_kinds[0], laws) * par[JF_R];
}

const fj_planar_joint_type fj_revolute = {.n_z = 2, .n_s = 1, .place = place, .values = values,
                                          .jacobians = jacobians, .xi = xi, .friction = friction,
                                          .lipschitz = lipschitz};
