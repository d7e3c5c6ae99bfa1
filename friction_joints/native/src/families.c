/* families.c: the engine's families by name (fj_family_find, fj_kernel.h), for callers that hold a
 * family's name rather than its symbol (the native FMUs). Python finds a family by its symbol
 * fj_family_<name> instead (friction_joints.native.Family). */
#include <stddef.h>
#include <string.h>

#include "fj_kernel.h"

/* Every family of the engine, in the order of fj_family.name's list (fj_kernel.h). */
static const fj_family *const FAMILIES[] = {
    &fj_family_planar, &fj_family_absolute, &fj_family_lumped,
    &fj_family_steering, &fj_family_vehicle, &fj_family_spatial, &fj_family_bristle,
    &fj_family_planar_bristle,
    &fj_family_steering_bristle,
    &fj_family_spatial_clearance,
    &fj_family_spatial_bristle,
    &fj_family_two_mass_bristle,
};

const fj_family *fj_family_find(const char *name) {
    if (name == NULL) return NULL;
    for (size_t i = 0; i < sizeof FAMILIES / sizeof FAMILIES[0]; i++)
        if (strcmp(FAMILIES[i]->name, name) == 0) return FAMILIES[i];
    return NULL;
}
