/* assemblies.c: every assembly of the engine by name (fj_assembly_find, fj_assembly.h), for the Python
 * binding (friction_joints.native.Assembly). A native FMU leaves this file out: its model.c finds its one
 * assembly, so that its binary holds no other model's code (as families.c for the families). */
#include <stddef.h>
#include <string.h>

#include "fj_assembly.h"

static const fj_assembly *const ASSEMBLIES[] = {
    &fj_assembly_SingleMassFriction, &fj_assembly_TwoMassFriction, &fj_assembly_SingleTrackVehicle,
    &fj_assembly_SteeringSystem,     &fj_assembly_SliderCrank,     &fj_assembly_OffsetSliderCrank,
    &fj_assembly_DupontTwoMass,      &fj_assembly_RSRRRSystem,     &fj_assembly_RSRRRLinkage,
    &fj_assembly_RSRRRBristle,       &fj_assembly_RSRRRClearance,
    &fj_assembly_BristleOscillator,  &fj_assembly_SteeringBristle, &fj_assembly_SliderCrankBristle,
    &fj_assembly_OffsetSliderCrankBristle,
};

const fj_assembly *fj_assembly_find(const char *model) {
    if (model == NULL) return NULL;
    for (size_t i = 0; i < sizeof ASSEMBLIES / sizeof ASSEMBLIES[0]; i++)
        if (strcmp(ASSEMBLIES[i]->model, model) == 0) return ASSEMBLIES[i];
    return NULL;
}
