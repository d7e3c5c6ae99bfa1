/* joint_pin_in_slot.c: the pin-in-slot joint of the planar family (planar.joints.PinInSlot; seed 000
 * Sect. 2): z = n . d (the slide's normal row), s = (e . d, theta_i - theta_j), friction of the slot on
 * the pin and of the pin's journal (arm r). Not a tree joint. */
#include "fj_linalg.h"
#include "planar_internal.h"
#include "planar_joints.h"

static void values(const fj_joint_frame *j, double *z) { z[0] = fj_slide_value(j); }

static void jacobians(const fj_joint_frame *j, double *Cz, double *Ms, int64_t ld) {
    fj_slide_rows(j, Cz, Ms);
    Ms[ld + j->ci + 2] = 1.0; /* second free coordinate theta_i - theta_j */
    if (j->j_moves) Ms[ld + j->cj + 2] = -1.0;
}

static void xi(const fj_joint_frame *j, const double *pi, const double *pj, double *out) {
    out[0] = fj_slide_xi(j, pi, pj);
}

/* seed 000 eq. 2.5 rows 3-4: the pin's load sqrt(f^2 + f_mu1^2) = |f| sqrt(1 + c_t^2) */
static void friction(const double *par, int64_t edge, const double *f, const double *coef, double *f_mu, double *J,
                     int64_t ld) {
    (void)edge;
    double fn = f[0];
    double factor = par[JF_R] * sqrt(1.0 + coef[0] * coef[0]);
    f_mu[0] = coef[0] * fabs(fn);
    f_mu[1] = coef[1] * factor * fabs(fn);
    J[0] = coef[0] * fj_sign(fn);
    J[ld] = coef[1] * factor * fj_sign(fn);
}

/* the sliding law, then the turning one with its arm r (PinInSlot.lipschitz) */
static double lipschitz(const double *par, const int64_t *law_kinds, const double *laws) {
    double mt = fj_friction_bound(law_kinds[0], laws), mr = fj_friction_bound(law_kinds[1], laws + LAW_WIDTH);
    double mrr = mr * par[JF_R];
    return sqrt(mt * mt + mrr * mrr * (1.0 + mt * mt));
}

const fj_planar_joint_type fj_pin_in_slot = {.n_z = 1, .n_s = 2, .place = NULL, .values = values,
                                             .jacobians = jacobians, .xi = xi, .friction = friction,
                                             .lipschitz = lipschitz};
