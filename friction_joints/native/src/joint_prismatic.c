/* joint_prismatic.c: the prismatic joint of the planar family (planar.joints.Prismatic; seed 000 Sect. 2):
 * z = (n . d, theta_i - theta_j - theta_0), s = e . d along the guide e = R_j e_j, friction on the normal
 * force (two edges at -+L/2 where edge_length L is given); and the slide rows it shares with PinInSlot. */
#include "fj_linalg.h"
#include "planar_internal.h"
#include "planar_joints.h"

double fj_slide_value(const fj_joint_frame *j) {
    double dx = j->ri[0] + j->ai[0] - j->rj[0] - j->aj[0], dy = j->ri[1] + j->ai[1] - j->rj[1] - j->aj[1], ex, ey;
    fj_turn(j->rot_j, j->par[JF_EJ], j->par[JF_EJ + 1], &ex, &ey);
    return -ey * dx + ex * dy; /* n = perp(e), e = R_j e_j */
}

void fj_slide_rows(const fj_joint_frame *j, double *Cz, double *Ms) {
    const double *par = j->par;
    double aix = j->ai[0], aiy = j->ai[1], ajx = j->aj[0], ajy = j->aj[1];
    double dx = j->ri[0] + aix - j->rj[0] - ajx, dy = j->ri[1] + aiy - j->rj[1] - ajy, ex, ey;
    fj_turn(j->rot_j, par[JF_EJ], par[JF_EJ + 1], &ex, &ey);
    double nx = -ey, ny = ex;
    int64_t ci = j->ci, cj = j->cj;
    Cz[ci] = nx, Cz[ci + 1] = ny, Cz[ci + 2] = nx * -aiy + ny * aix;
    Ms[ci] = ex, Ms[ci + 1] = ey, Ms[ci + 2] = ex * -aiy + ey * aix;
    if (j->j_moves) { /* de/dtheta_j = n, dn/dtheta_j = -e: extra terms in the theta_j column */
        Cz[cj] = -nx, Cz[cj + 1] = -ny;
        Cz[cj + 2] = -(nx * -ajy + ny * ajx) - (ex * dx + ey * dy);
        Ms[cj] = -ex, Ms[cj + 1] = -ey;
        Ms[cj + 2] = -(ex * -ajy + ey * ajx) + (nx * dx + ny * dy);
    }
}

/* z_n'' = n''.d + 2 n'.d' + n.d'' (joints.Prismatic._slide_xi) */
double fj_slide_xi(const fj_joint_frame *j, const double *pi, const double *pj) {
    double ex, ey;
    fj_turn(j->rot_j, j->par[JF_EJ], j->par[JF_EJ + 1], &ex, &ey);
    double nx = -ey, ny = ex, wi = pi[MP_W], wj = pj[MP_W];
    return ((nx * (pi[MP_PX] - pj[MP_PX]) + ny * (pi[MP_PY] - pj[MP_PY])) * (wj * wj)
            + 2.0 * wj * (ex * (pi[MP_VX] - pj[MP_VX]) + ey * (pi[MP_VY] - pj[MP_VY]))
            + (nx * (pi[MP_AX] * (wi * wi) - pj[MP_AX] * (wj * wj))
               + ny * (pi[MP_AY] * (wi * wi) - pj[MP_AY] * (wj * wj))));
}

/* q = x or y of r_i (axis 0 or 1), theta_i = theta_j + theta_0, P_i on the guide through P_j */
static int64_t place(const double *par, int64_t axis, double q, const double rj[3], double ri[3]) {
    double pjx, pjy, pix, piy, ex, ey;
    fj_rotate(rj[2], par[JF_PJ], par[JF_PJ + 1], &pjx, &pjy);
    double thi = rj[2] + par[JF_THETA0];
    fj_rotate(rj[2], par[JF_EJ], par[JF_EJ + 1], &ex, &ey);
    double e_axis = axis == 0 ? ex : ey;
    if (fabs(e_axis) < 1e-12) return ST_GUIDE_AXIS;
    fj_rotate(thi, par[JF_PI], par[JF_PI + 1], &pix, &piy);
    double bx = rj[0] + pjx - pix, by = rj[1] + pjy - piy;
    double step = (q - (axis == 0 ? bx : by)) / e_axis;
    ri[0] = bx + step * ex;
    ri[1] = by + step * ey;
    ri[2] = thi;
    return FJ_OK;
}

static void values(const fj_joint_frame *j, double *z) {
    z[0] = fj_slide_value(j);
    z[1] = j->ri[2] - j->rj[2] - j->par[JF_THETA0];
}

static void jacobians(const fj_joint_frame *j, double *Cz, double *Ms, int64_t ld) {
    fj_slide_rows(j, Cz, Ms);
    Cz[ld + j->ci + 2] = 1.0; /* lock row theta_i - theta_j - theta_0 */
    if (j->j_moves) Cz[ld + j->cj + 2] = -1.0;
}

static void xi(const fj_joint_frame *j, const double *pi, const double *pj, double *out) {
    out[0] = fj_slide_xi(j, pi, pj);
    out[1] = 0.0;
}

/* f_mu = -sgn mu N (seed 000 eq. 2.5 row 2) */
static void friction(const double *par, int64_t edge, const double *f, const double *coef, double *f_mu, double *J,
                     int64_t ld) {
    (void)ld;
    if (edge == 0) { /* N = |f_n| */
        f_mu[0] = coef[0] * fabs(f[0]);
        J[0] = coef[0] * fj_sign(f[0]);
        J[1] = 0.0;
    } else { /* two edges at -+L/2 carry the lock moment: N = |f_n/2 + f_th/L| + |f_n/2 - f_th/L| */
        double L = par[JF_EDGE];
        double pa = f[0] / 2 + f[1] / L, pb = f[0] / 2 - f[1] / L;
        f_mu[0] = coef[0] * (fabs(pa) + fabs(pb));
        J[0] = coef[0] * (fj_sign(pa) * 0.5 + fj_sign(pb) * 0.5);
        J[1] = coef[0] * (fj_sign(pa) * (1 / L) + fj_sign(pb) * (-1 / L));
    }
}

/* the law times the largest load per unit reaction: 1, or sqrt(1 + 4 / L^2) with two edges (Prismatic.lipschitz) */
static double lipschitz(const double *par, const int64_t *law_kinds, const double *laws) {
    if (law_kinds[0] == NO_LAW) return 0.0;
    double edge = par[JF_EDGE];
    return fj_friction_bound(law_kinds[0], laws) * (edge > 0.0 ? sqrt(1.0 + 4.0 / (edge * edge)) : 1.0);
}

const fj_planar_joint_type fj_prismatic = {.n_z = 2, .n_s = 1, .place = place, .values = values,
                                           .jacobians = jacobians, .xi = xi, .friction = friction,
                                           .lipschitz = lipschitz};
