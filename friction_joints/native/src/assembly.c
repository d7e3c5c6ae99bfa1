/* assembly.c: the parameter checks every assembly uses (fj_assembly.h: errors.require's messages, Python's
 * repr of a float) and the assemblies of the models whose packed arrays are a direct function of their
 * parameters: the lumped luz/tar models (family "lumped": SingleMassFriction,
 * TwoMassFriction), the single-track vehicle (family "vehicle": SingleTrackVehicle) and the steering
 * system (family "steering": SteeringSystem; with bristle friction the family "steering_bristle":
 * SteeringBristle). The layouts
 * of fpar and ipar are those lumped.c, vehicle.c and steering.c read (and lumped/packing.py,
 * vehicle/single_track_packing.py, vehicle/steering_packing.py document); the checks are those of the
 * Python parameter classes (SingleMassParameters, TwoMassParameters, VehicleParameters, SteeringParameters),
 * with their messages.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fj_assembly.h"
#include "fj_bristle_laws.h"

#define GRAVITY 9.81 /* m/s^2, vehicle.single_track.G */

/* ==================================================================================================
 * Python's repr(float) and the parameter checks (errors.require, errors.check_parameters)
 * ================================================================================================== */

void fj_repr(double x, char *out, size_t n) {
    if (n == 0) return;
    if (isnan(x) || isinf(x)) {
        snprintf(out, n, "%s", isnan(x) ? "nan" : (x > 0 ? "inf" : "-inf"));
        return;
    }
    char e_form[40];
    for (int precision = 0; precision < 17; precision++) { /* the fewest digits that read back as x */
        snprintf(e_form, sizeof e_form, "%.*e", precision, x);
        if (strtod(e_form, NULL) == x) break;
    }
    /* e_form: [-]d[.ddd]e[+-]XX; its decimal point is the locale's, so only digits are read */
    char digits[24];
    int n_digits = 0, exponent = 0;
    const char *c = e_form + (e_form[0] == '-');
    for (; *c && *c != 'e' && *c != 'E'; c++)
        if (*c >= '0' && *c <= '9' && n_digits < 23) digits[n_digits++] = *c;
    while (n_digits > 1 && digits[n_digits - 1] == '0') n_digits--; /* %.*e pads with zeros */
    digits[n_digits] = '\0';
    if (*c) exponent = atoi(c + 1);
    char text[64], *t = text;
    if (x < 0 || (x == 0 && signbit(x))) *t++ = '-';
    if (exponent < -4 || exponent >= 16) { /* d[.ddd]e[+-]XX, as float_repr_style 'short' */
        *t++ = digits[0];
        if (n_digits > 1) {
            *t++ = '.';
            memcpy(t, digits + 1, (size_t)(n_digits - 1));
            t += n_digits - 1;
        }
        snprintf(t, sizeof text - (size_t)(t - text), "e%c%02d", exponent < 0 ? '-' : '+', abs(exponent));
    } else if (exponent < 0) { /* 0.000ddd */
        t += sprintf(t, "0.");
        for (int i = 0; i < -exponent - 1; i++) *t++ = '0';
        sprintf(t, "%s", digits);
    } else { /* ddd.ddd, with ".0" for an integer */
        for (int i = 0; i <= exponent; i++) *t++ = i < n_digits ? digits[i] : '0';
        *t++ = '.';
        if (n_digits > exponent + 1) {
            memcpy(t, digits + exponent + 1, (size_t)(n_digits - exponent - 1));
            t += n_digits - exponent - 1;
        } else {
            *t++ = '0';
        }
        *t = '\0';
    }
    snprintf(out, n, "%s", text);
}

/* errors.require: a problem unless low <= value <= high (each bound FJ_NO_BOUND, FJ_CLOSED or FJ_OPEN), NaN
 * and infinite values are problems too. Its text: "name=repr(value) is outside the allowed range lo, hi"
 * with the bounds as Python's format "g" writes them. */
void fj_require(fj_problems *pr, const char *name, double value, int low_kind, double low, int high_kind,
                double high) {
    int bad = isnan(value) || isinf(value);
    if (low_kind == FJ_CLOSED) bad |= value < low;
    if (low_kind == FJ_OPEN) bad |= value <= low;
    if (high_kind == FJ_CLOSED) bad |= value > high;
    if (high_kind == FJ_OPEN) bad |= value >= high;
    if (!bad) return;
    char shown[40], lo[40], hi[40];
    fj_repr(value, shown, sizeof shown);
    if (low_kind == FJ_NO_BOUND)
        snprintf(lo, sizeof lo, "(-inf");
    else
        snprintf(lo, sizeof lo, "%c%g", low_kind == FJ_OPEN ? '(' : '[', low);
    if (high_kind == FJ_NO_BOUND)
        snprintf(hi, sizeof hi, "inf)");
    else
        snprintf(hi, sizeof hi, "%g%c", high, high_kind == FJ_OPEN ? ')' : ']');
    fj_problem(pr, "%s=%s is outside the allowed range %s, %s", name, shown, lo, hi);
}

void fj_problem(fj_problems *pr, const char *format, ...) {
    pr->count++;
    if (pr->error == NULL || pr->n_error == 0 || pr->used >= pr->n_error - 1) return;
    int written = pr->count > 1 ? snprintf(pr->error + pr->used, pr->n_error - pr->used, "%s", pr->separator) : 0;
    if (written > 0) pr->used += (size_t)written;
    if (pr->used < pr->n_error - 1) {
        va_list args;
        va_start(args, format);
        written = vsnprintf(pr->error + pr->used, pr->n_error - pr->used, format, args);
        va_end(args);
        if (written > 0) pr->used += (size_t)written;
    }
    if (pr->used >= pr->n_error) pr->used = pr->n_error - 1;
}

fj_problems fj_no_problems(char *error, size_t n_error) {
    fj_problems pr = {error, n_error, 0, 0, "; "};
    if (error != NULL && n_error > 0) error[0] = '\0';
    return pr;
}

void fj_require_finite(fj_problems *pr, const char *name, double value) {
    fj_require(pr, name, value, FJ_NO_BOUND, 0.0, FJ_NO_BOUND, 0.0);
}

void fj_require_exact_friction(fj_problems *pr, double friction_model, const char *bristle) {
    if (friction_model == 0.0) return; /* not a Python check: the exact model's assembly */
    if (bristle != NULL)
        fj_problem(pr, "friction_model=%g: this assembly has the exact friction model (0) only; the bristle laws "
                       "(1-4) are the assembly %s's", friction_model, bristle);
    else
        fj_problem(pr, "friction_model=%g: the native FMU has the exact friction model (0) only; the bristle laws "
                       "(1-4) run in the pythonfmu FMU", friction_model);
}

/* ==================================================================================================
 * lumped (lumped.c): SingleMassFriction (seed 001 Sect. 2) and TwoMassFriction (Sect. 4)
 * ================================================================================================== */

enum { SINGLE_MASS = 0, TWO_MASS = 1 }; /* ipar[0], lumped.c */

/* SingleMassParameters then the initial state; fpar = M, C, FT0, FT0S, K, v_belt; ipar = [SINGLE_MASS, 0, 0];
 * y0 = [z, zd, W_drive, W_friction] (SingleMassFriction.initial_state). */
static const char *const SINGLE_NAMES[] = {"M", "C", "FT0", "FT0S", "K", "v_belt", "z_start", "zd_start"};

static int64_t single_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require(&pr, "M", p[0], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0); /* SingleMassParameters.__post_init__, in its order */
    fj_require(&pr, "C", p[1], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT0", p[2], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "K", p[4], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT0S", p[3], FJ_CLOSED, p[2], FJ_NO_BOUND, 0.0);
    fj_require(&pr, "v_belt", p[5], FJ_NO_BOUND, 0.0, FJ_NO_BOUND, 0.0);
    fj_require_finite(&pr, "z_start", p[6]);
    fj_require_finite(&pr, "zd_start", p[7]);
    if (pr.count) return pr.count;
    for (int i = 0; i < 6; i++) fpar[i] = p[i];
    ipar[0] = SINGLE_MASS, ipar[1] = 0, ipar[2] = 0;
    y0[0] = p[6], y0[1] = p[7], y0[2] = 0.0, y0[3] = 0.0;
    return 0;
}

/* TwoMassParameters then the initial state; fpar = M1, M2, C12, C20, FT012, FT020, FT012S, FT020S;
 * ipar = [TWO_MASS, dry_12, dry_20] with dry_c = static level > 0 (TwoMassFriction.dry); y0 = [z1, z2,
 * zd1, zd2, W_drive, W_friction] (TwoMassFriction.initial_state). */
static const char *const TWO_NAMES[] = {"M1",       "M2",       "C12",       "C20",      "FT012",     "FT020",
                                        "FT012S",   "FT020S",   "z1_start",  "z2_start", "zd1_start", "zd2_start"};

static int64_t two_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    for (int i = 0; i < 2; i++) fj_require(&pr, TWO_NAMES[i], p[i], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    for (int i = 2; i < 6; i++) fj_require(&pr, TWO_NAMES[i], p[i], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT012S", p[6], FJ_CLOSED, p[4], FJ_NO_BOUND, 0.0);
    fj_require(&pr, "FT020S", p[7], FJ_CLOSED, p[5], FJ_NO_BOUND, 0.0);
    for (int i = 8; i < 12; i++) fj_require_finite(&pr, TWO_NAMES[i], p[i]);
    if (pr.count) return pr.count;
    for (int i = 0; i < 8; i++) fpar[i] = p[i];
    ipar[0] = TWO_MASS, ipar[1] = p[6] > 0.0, ipar[2] = p[7] > 0.0;
    for (int i = 0; i < 4; i++) y0[i] = p[8 + i];
    y0[4] = 0.0, y0[5] = 0.0;
    return 0;
}

/* ==================================================================================================
 * vehicle (vehicle.c): SingleTrackVehicle
 * ================================================================================================== */

/* VehicleParameters in the order of vehicle.single_track_packing.PARAMETERS; fpar = them, then the static front wheel
 * load m G b / (2 (a + b)) (VehicleParameters.front_wheel_load); ipar = [sigma > 0]; y0 = 0 (v_y, r, psi,
 * F_yf, F_yr: SingleTrackVehicle.initial_state). */
static const char *const VEHICLE_NAMES[] = {"m", "I_z", "a", "b", "C_f", "C_r", "t_p", "t_c", "h", "T", "u", "sigma"};
enum { V_M, V_I_Z, V_A, V_B, V_C_F, V_C_R, V_T_P, V_T_C, V_H, V_T, V_U, V_SIGMA, N_VEHICLE };

static int64_t vehicle_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                size_t n_error) {
    static const int positive[] = {V_M, V_I_Z, V_A, V_B, V_C_F, V_C_R, V_T, V_U}; /* __post_init__'s order */
    static const int non_negative[] = {V_T_P, V_T_C, V_H, V_SIGMA};
    fj_problems pr = fj_no_problems(error, n_error);
    for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
        fj_require(&pr, VEHICLE_NAMES[positive[i]], p[positive[i]], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    for (size_t i = 0; i < sizeof non_negative / sizeof non_negative[0]; i++)
        fj_require(&pr, VEHICLE_NAMES[non_negative[i]], p[non_negative[i]], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0);
    if (pr.count) return pr.count;
    for (int i = 0; i < N_VEHICLE; i++) fpar[i] = p[i];
    fpar[N_VEHICLE] = p[V_M] * GRAVITY * p[V_B] / (2.0 * (p[V_A] + p[V_B]));
    ipar[0] = p[V_SIGMA] > 0.0;
    for (int i = 0; i < 5; i++) y0[i] = 0.0;
    return 0;
}

/* ==================================================================================================
 * steering (steering.c): SteeringSystem with the exact friction model
 * ================================================================================================== */

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

/* ==================================================================================================
 * The assemblies (fj_assembly_find, assemblies.c, finds them by name)
 * ================================================================================================== */

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau, n_record (lumped.c, vehicle.c, steering.c,
 * steering_bristle.c), assemble */
const fj_assembly fj_assembly_SingleMassFriction = {"SingleMassFriction", "lumped", FJ_COUNT(SINGLE_NAMES),
                                                    SINGLE_NAMES, 6, 3, 4, 1, 10, single_assemble};
const fj_assembly fj_assembly_TwoMassFriction = {"TwoMassFriction", "lumped", FJ_COUNT(TWO_NAMES), TWO_NAMES, 8, 3, 6,
                                                 2, 17, two_assemble};
const fj_assembly fj_assembly_SingleTrackVehicle = {"SingleTrackVehicle", "vehicle", FJ_COUNT(VEHICLE_NAMES),
                                                    VEHICLE_NAMES, 13, 1, 5, 2, 10, vehicle_assemble};
const fj_assembly fj_assembly_SteeringSystem = {"SteeringSystem", "steering", N_STEERING_EXACT, STEERING_NAMES,
                                                N_STEERING_FPAR, 4, N_STEERING_Y, 5, 35, steering_assemble};
const fj_assembly fj_assembly_SteeringBristle = {"SteeringBristle", "steering_bristle", FJ_COUNT(STEERING_NAMES),
                                                 STEERING_NAMES, N_STEERING_FPAR + 4 * FJ_BRISTLE_LAW_SIZE, 4,
                                                 N_STEERING_Y + 4, 5, 35 + 12, steering_bristle_assemble};
