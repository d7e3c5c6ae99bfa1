/* planar_mechanism.c: a planar mechanism filled joint by joint as fj_planar_model's arrays (planar_mechanism.h). */
#include <stdio.h>
#include <string.h>

#include "planar_joints.h"
#include "planar_mechanism.h"

void fj_mechanism_body(fj_mechanism *mech, int i, double m, double J) {
    const double row[5] = {m, J, 0.0, 0.0, 0.0};
    memcpy(mech->bodies[i], row, sizeof row);
    mech->n_bodies = i + 1 > mech->n_bodies ? i + 1 : mech->n_bodies;
}

void fj_mechanism_joint(fj_mechanism *mech, int64_t type, int64_t body_i, int64_t body_j, const double p_i[2],
                        const double p_j[2], const double e_j[2], double theta_0, double r, int frictional, double mu_s,
                        double mu_k) {
    int64_t j = mech->n_joints++;
    const int64_t kinds[3] = {type, body_i, body_j};
    const double row[JF_WIDTH] = {p_i[0], p_i[1], p_j[0], p_j[1], e_j[0], e_j[1], theta_0, r, 0.0};
    const double law[LAW_WIDTH] = {frictional ? mu_s : 0.0, frictional ? mu_k : 0.0, 0.0, 0.0};
    memcpy(mech->joint_types[j], kinds, sizeof kinds);
    memcpy(mech->joints[j], row, sizeof row);
    memcpy(mech->laws[j], law, sizeof law);
    mech->law_kinds[j] = frictional ? COULOMB : NO_LAW;
}

void fj_mechanism_drive(fj_mechanism *mech, int64_t on, double fx, double fy, double moment) {
    int64_t i = mech->n_drives++;
    mech->drive_bodies[i] = on;
    mech->drives[i][0] = fx, mech->drives[i][1] = fy, mech->drives[i][2] = moment;
}

void fj_mechanism_tree(fj_mechanism *mech, int64_t j, int64_t axis) {
    int64_t t = mech->n_tree++;
    mech->tree[t][0] = j, mech->tree[t][1] = axis;
}

const double FJ_ORIGIN[2] = {0.0, 0.0}, FJ_E_X[2] = {1.0, 0.0}, FJ_E_Y[2] = {0.0, 1.0};

void fj_mechanism_assemble(const fj_assembly *self, const fj_mechanism *mech, const double *q_guess, const double *u,
                           double *fpar, int64_t *ipar, double *y0, fj_problems *pr) {
    const fj_planar_model d = {mech->n_bodies, mech->n_joints, mech->n_drives, mech->n_tree, mech->regularised,
                               &mech->bodies[0][0], &mech->joint_types[0][0], &mech->joints[0][0], mech->law_kinds,
                               &mech->laws[0][0], mech->drive_bodies, &mech->drives[0][0], mech->gravity,
                               &mech->tree[0][0], mech->partition};
    char where[64];
    snprintf(where, sizeof where, "%s: ", self->model);
    fj_planar_assemble(self, &d, q_guess, u, where, NULL, fpar, ipar, y0, pr);
}
