/* assembly_vehicle.c: the assembly of the single-track vehicle (family "vehicle", vehicle.c: SingleTrackVehicle)
 * from its parameters: fpar and ipar as vehicle.c reads them (vehicle/single_track_packing.py documents them),
 * the checks of VehicleParameters with their messages.
 */
#include "fj_assembly.h"

#define GRAVITY 9.81 /* m/s^2, vehicle.single_track.G */

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

/* model, family, parameters, n_fpar, n_ipar, n_y, n_tau, n_record (vehicle.c), assemble */
const fj_assembly fj_assembly_SingleTrackVehicle = {"SingleTrackVehicle", "vehicle", FJ_COUNT(VEHICLE_NAMES),
                                                    VEHICLE_NAMES, 13, 1, 5, 2, 10, vehicle_assemble};
