/* assembly_steering.c: the assemblies of the steering system (family "steering", steering.c: SteeringSystem; with
 * bristle friction the family "steering_bristle", steering_bristle.c: SteeringBristle) from their parameters:
 * fpar and ipar as those files read them (vehicle/steering_packing.py documents them), the checks of
 * SteeringParameters and of the bristle laws (fj_bristle_law) with their messages.
 */
#include "fj_assembly.h"
#include "fj_bristle_laws.h"

/* SteeringParameters in the order of vehicle.steering_packing.PARAMETERS, then the initial steering-wheel angle and
 * the friction model (SteeringSystem: 0, the exact one); fpar = the parameters, then mu_k r_k (F_KINGPIN) and the
 * inertias J_sw, J_p, m_r, J_w, J_w; ipar = the active flag of each element (SteeringSystem.active: friction_scale
 * times its level > 0); y0 = at rest, every spring relaxed at the steering-wheel angle
 * (SteeringSystem.initial_state). SteeringBristle (family "steering_bristle"): the same parameters with
 * friction_model 1-4, then the bristle law's sigma0, sigma1, sigma2, v_s, delta, z_ba_ratio (one value for every
 * element); fpar = the steering's, then a law row per element (fj_bristle_laws.h: that model, mu_c = 1, mu_s =
 * static_factor: vehicle.steering_bristle.element_laws); ipar the steering's; y0 the steering's, then the four
 * deflections 0 (SteeringBristle.initial_state). */
static const char *const STEERING_NAMES[] = {
    "J_sw", "k_c", "c_c", "J_p", "r_p", "k_g", "b", "m_r", "k_t", "c_t", "l_a", "J_w", "c_w", "T_p", "F_r", "mu_k",
    "r_k", "static_factor", "friction_scale", "rack_travel", "k_stop", "c_stop", "delta_sw_start", "friction_model",
    "sigma0", "sigma1", "sigma2", "v_s", "delta", "z_ba_ratio"};
enum {
    S_J_SW, S_K_C, S_C_C, S_J_P, S_R_P, S_K_G, S_B, S_M_R, S_K_T, S_C_T, S_L_A, S_J_W, S_C_W, S_T_P, S_F_R, S_MU_K,
    S_R_K, S_STATIC, S_SCALE, S_TRAVEL, S_K_STOP, S_C_STOP, S_DELTA_SW, S_FRICTION_MODEL, S_SIGMA0, S_SIGMA1,
    S_SIGMA2, S_V_S, S_DELTA, S_Z_BA_RATIO, N_STEERING = S_DELTA_SW, N_STEERING_EXACT = S_SIGMA0
};
enum { N_STEERING_FPAR = N_STEERING + 6, N_STEERING_Y = 14 };

/* The checks of SteeringParameters.__post_init__ and of the initial angle. */
static void steering_problems(fj_problems *pr, const double *p) {
    static const int positive[] = {S_J_SW, S_K_C, S_J_P, S_R_P, S_K_G, S_M_R, S_K_T, S_L_A, S_J_W, S_TRAVEL, S_K_STOP};
    static const int non_negative[] = {S_C_C, S_B, S_C_T, S_C_W, S_T_P, S_F_R, S_MU_K, S_R_K, S_SCALE, S_C_STOP};
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
        fj_require(pr, STEERING_NAMES[positive[i]], p[positive[i]], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    for (size_t i = 0; i < sizeof non_negative / sizeof non_negative[0]; i++)
        fj_require(pr, STEERING_NAMES[non_negative[i]], p[non_negative[i]], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(pr, "static_factor", p[S_STATIC], FJ_CLOSED, 1.0, FJ_NO_BOUND, 0.0);
    fj_require_finite(pr, "delta_sw_start", p[S_DELTA_SW]);
}

/* fpar (N_STEERING_FPAR), ipar and y0 (N_STEERING_Y) of checked parameters. */
static void steering_pack(const double *p, double *fpar, int64_t *ipar, double *y0) {
    for (int i = 0; i < N_STEERING; i++) fpar[i] = p[i];
    double kingpin = p[S_MU_K] * p[S_R_K];
    fpar[N_STEERING] = kingpin;
    const double masses[5] = {p[S_J_SW], p[S_J_P], p[S_M_R], p[S_J_W], p[S_J_W]};
    for (int i = 0; i < 5; i++) fpar[N_STEERING + 1 + i] = masses[i];
    const double levels[4] = {p[S_T_P], p[S_F_R], kingpin, kingpin};
    for (int k = 0; k < 4; k++) ipar[k] = p[S_SCALE] * levels[k] > 0.0;
    double theta = p[S_DELTA_SW], x = p[S_R_P] * theta;
    const double q[5] = {theta, theta, x, x / p[S_L_A], x / p[S_L_A]};
    for (int i = 0; i < N_STEERING_Y; i++) y0[i] = i < 5 ? q[i] : 0.0;
}

static int64_t steering_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                 size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    steering_problems(&pr, p);
    fj_require_exact_friction(&pr, p[S_FRICTION_MODEL], fj_assembly_SteeringBristle.model);
    if (pr.count) return pr.count;
    steering_pack(p, fpar, ipar, y0);
    return 0;
}

/* The SteeringParameters first, then the laws (as the FMU's build: SteeringParameters, then element_laws). */
static int64_t steering_bristle_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                         size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    steering_problems(&pr, p);
    if (pr.count) return pr.count;
    const double given[FJ_BRISTLE_LAW_SIZE] = {p[S_FRICTION_MODEL], p[S_SIGMA0], p[S_SIGMA1], p[S_SIGMA2], 1.0,
                                               p[S_STATIC],         p[S_V_S],    p[S_DELTA],  p[S_Z_BA_RATIO]};
    double *laws = fpar + N_STEERING_FPAR;
    fj_bristle_law(&pr, "friction_model", given, laws);
    if (pr.count) return pr.count;
    for (int k = 1; k < 4; k++)
        for (int i = 0; i < FJ_BRISTLE_LAW_SIZE; i++) laws[k * FJ_BRISTLE_LAW_SIZE + i] = laws[i];
    steering_pack(p, fpar, ipar, y0);
    for (int k = 0; k < 4; k++) y0[N_STEERING_Y + k] = 0.0;
    return 0;
}

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau, n_record (steering.c, steering_bristle.c), assemble */
const fj_assembly fj_assembly_SteeringSystem = {"SteeringSystem", "steering", N_STEERING_EXACT, STEERING_NAMES,
                                                N_STEERING_FPAR, 4, N_STEERING_Y, 5, 35, steering_assemble};
const fj_assembly fj_assembly_SteeringBristle = {"SteeringBristle", "steering_bristle", FJ_COUNT(STEERING_NAMES),
                                                 STEERING_NAMES, N_STEERING_FPAR + 4 * FJ_BRISTLE_LAW_SIZE, 4,
                                                 N_STEERING_Y + 4, 5, 35 + 12, steering_bristle_assemble};
