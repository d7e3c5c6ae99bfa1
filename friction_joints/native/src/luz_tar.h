/* luz_tar.h: the piecewise-linear projections luz and tar of seed 001 (Sect. 2), shared by the lumped
 * and steering families (packed by lumped/packing.py and vehicle/steering_packing.py; the reference is
 * friction_joints.lumped.projections). Static inline: each family's source compiles its own copy.
 *
 *   luz(x, a) = x + (|x - a| - |x + a|) / 2     (seed 001 Sect. 2; a >= 0: the dead zone [-a, a])
 *   tar(x, a) = x + a sgh(x)                    (seed 001 Sect. 2: the inverse of luz, a jump of 2 a
 *                                                at x = 0, where sgh is the set [-1, 1])
 */
#ifndef FJ_LUZ_TAR_H
#define FJ_LUZ_TAR_H

#include <math.h>

/* luz(x, a) (seed 001 Sect. 2) evaluated as the equal dead zone: 0 on [-a, a], x -+ a outside, so that
 * a stuck state gets exactly zero (projections.luz). */
static inline double fj_luz(double x, double a) {
    if (fabs(x) <= a) return 0.0;
    return x - copysign(a, x);
}

/* The margin |x| - a whose crossing of zero is luz(x, a) leaving its dead zone (seed 001 Sect. 2): the
 * breakaway event of a stuck friction holding x with static level a. */
static inline double fj_luz_margin(double x, double a) {
    return fabs(x) - a;
}

/* C tar(v, F_T0 / C) = C v + F_T0 sgh(v) (seed 001 Sect. 2), the extended Coulomb friction force, with
 * sgh(v) = d the direction of the slip (+1, -1, or 0 for a frictionless contact at rest); written
 * without dividing by C, so that C = 0 (pure Coulomb) needs no special case. */
static inline double fj_tar_force(double C, double v, double FT0, double d) {
    return C * v + FT0 * d;
}

#endif
