/* assembly_dupont.c: the assembly (fj_assembly.h) of the FMU DupontTwoMass (seed 000 Sect. 3): its parameters checked
 * as mechanisms/dupont.py checks them (its messages), the mechanism described as fj_planar_model's arrays
 * (planar_mechanism.h), packed by the family's one packer (fj_planar_pack), and the initial state
 * y0 = [q, u, W_drive, W_friction] (planar.system.MechanismSystem), q projected onto the closing constraints.
 */
#include "planar_joints.h"
#include "planar_mechanism.h"

/* dupont_two_mass(m1, m2, mu_s, mu_k): m1 slides in a slot of m2 along x with Coulomb friction, m2 on a
 * frictionless guide along y; F1 on m1 along x, F2 on m2 along y; no gravity. Tree: the guide (y2), the
 * slot (x1): q = u = [y2, x1], y0 from x_start, xd_start (fmu_src/DupontTwoMass.py). */
static const char *const DUPONT_NAMES[] = {"m1", "m2", "mu_s", "mu_k", "x_start", "xd_start"};

static int64_t dupont_assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                               size_t n_error) {
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require(&pr, "m1", p[0], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    fj_require(&pr, "m2", p[1], FJ_OPEN, 0.0, FJ_NO_BOUND, 0.0);
    if (pr.count) return pr.count; /* dupont_two_mass checks the masses before the law */
    fj_require(&pr, "mu_s", p[2], FJ_CLOSED, 0.0, FJ_NO_BOUND, 0.0); /* Coulomb.__post_init__ */
    fj_require(&pr, "mu_k", p[3], FJ_CLOSED, 0.0, p[2] >= 0.0 ? FJ_CLOSED : FJ_NO_BOUND, p[2]);
    fj_require_finite(&pr, "x_start", p[4]);
    fj_require_finite(&pr, "xd_start", p[5]);
    if (pr.count) return pr.count;
    fj_mechanism mech = {0};
    fj_mechanism_body(&mech, 0, p[0], 0.0), fj_mechanism_body(&mech, 1, p[1], 0.0);
    fj_mechanism_joint(&mech, PRISMATIC, 1, 2, FJ_ORIGIN, FJ_ORIGIN, FJ_E_X, 0.0, 0.0, 1, p[2], p[3]); /* the slot */
    fj_mechanism_joint(&mech, PRISMATIC, 2, 0, FJ_ORIGIN, FJ_ORIGIN, FJ_E_Y, 0.0, 0.0, 0, 0.0, 0.0);   /* the guide */
    fj_mechanism_drive(&mech, 1, 1.0, 0.0, 0.0), fj_mechanism_drive(&mech, 2, 0.0, 1.0, 0.0);
    fj_mechanism_tree(&mech, 1, 1), fj_mechanism_tree(&mech, 0, 0);
    mech.partition[0] = 0, mech.partition[1] = 1;
    const double q[2] = {0.0, p[4]}, u[2] = {0.0, p[5]};
    fj_mechanism_assemble(&fj_assembly_DupontTwoMass, &mech, q, u, fpar, ipar, y0, &pr);
    return pr.count;
}

/* model, family, parameters, n_fpar, n_ipar (fj_planar_pack's sizes), n_y = k1 + k + 2, n_tau, n_record
 * (planar.packing.record_layout), assemble (assemblies.c finds it by name) */
const fj_assembly fj_assembly_DupontTwoMass = {"DupontTwoMass", "planar", FJ_COUNT(DUPONT_NAMES), DUPONT_NAMES, 56, 389,
                                               6, 2, 27, dupont_assemble};
