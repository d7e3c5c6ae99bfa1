/* planar_mechanism.h: a planar mechanism described as fj_planar_model's arrays (planar_internal.h), filled joint by
 * joint, for the assemblies of the shipped planar mechanisms (assembly_planar.c: the slider-cranks,
 * assembly_dupont.c: Dupont's two masses), each in a file of its own so that a native FMU carries only its own.
 */
#ifndef FJ_PLANAR_MECHANISM_H
#define FJ_PLANAR_MECHANISM_H

#include "fj_assembly.h"
#include "planar_internal.h"

enum { MAX_BODIES = 3, MAX_JOINTS = 4, MAX_DRIVES = 2 }; /* each joint here has one free coordinate */

/* A mechanism as fj_planar_model's arrays (planar_internal.h), filled by the functions below. */
typedef struct fj_mechanism {
    double bodies[MAX_BODIES][5];
    int64_t joint_types[MAX_JOINTS][3];
    double joints[MAX_JOINTS][JF_WIDTH];
    int64_t law_kinds[MAX_JOINTS];
    double laws[MAX_JOINTS][LAW_WIDTH];
    int64_t drive_bodies[MAX_DRIVES];
    double drives[MAX_DRIVES][3];
    double gravity[2];
    int64_t tree[MAX_BODIES][2];
    int64_t partition[MAX_BODIES];
    int64_t n_bodies, n_joints, n_drives, n_tree, regularised; /* regularised: packed as a single mode */
} fj_mechanism;

extern const double FJ_ORIGIN[2], FJ_E_X[2], FJ_E_Y[2];

/* Body i (0-based; planar.Body(name, m, J), no applied load). */
void fj_mechanism_body(fj_mechanism *mech, int i, double m, double J);
/* The next joint: type, bodies, p_i, p_j, e_j, theta_0, friction arm r, and a Coulomb law (mu_s, mu_k), or none
 * (frictional 0). */
void fj_mechanism_joint(fj_mechanism *mech, int64_t type, int64_t body_i, int64_t body_j, const double p_i[2],
                        const double p_j[2], const double e_j[2], double theta_0, double r, int frictional, double mu_s,
                        double mu_k);
/* The next drive: generalized force (Fx, Fy, M) per unit input on body (planar.BodyLoad). */
void fj_mechanism_drive(fj_mechanism *mech, int64_t on, double fx, double fy, double moment);
/* The next tree joint and its coordinate's axis (0 x, 1 y, 2 theta: planar.MinimalForm's tree). */
void fj_mechanism_tree(fj_mechanism *mech, int64_t j, int64_t axis);
/* fpar, ipar of the mechanism and y0 (fj_planar_assemble), the failure of its projection named after the model. */
void fj_mechanism_assemble(const fj_assembly *self, const fj_mechanism *mech, const double *q_guess, const double *u,
                           double *fpar, int64_t *ipar, double *y0, fj_problems *pr);

#endif
