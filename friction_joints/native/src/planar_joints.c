/* planar_joints.c: the planar family's joint types by code (planar_internal.h's REVOLUTE ...; planar.packing's),
 * for the kernels (planar.c) and the packer (planar_pack.c). */
#include "planar_internal.h"
#include "planar_joints.h"

const fj_planar_joint_type *fj_planar_joint_type_of(int64_t code) {
    static const fj_planar_joint_type *const types[] = {
        [REVOLUTE] = &fj_revolute, [PRISMATIC] = &fj_prismatic, [PIN_IN_SLOT] = &fj_pin_in_slot};
    if (code < 0 || code >= (int64_t)(sizeof types / sizeof types[0])) return NULL;
    return types[code];
}
