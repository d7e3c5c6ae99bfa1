/* assemblies.c: the models' assemblies by name (fj_assembly_find, fj_assembly.h), over every file of
 * assemblies (assembly_internal.h), for the Python binding. A native FMU is built without it: its model.c
 * finds the assembly in the one file that holds it (so the binary holds no other model's). */
#include <stddef.h>

#include "assembly_internal.h"

const fj_assembly *fj_assembly_find(const char *model) {
    if (model == NULL) return NULL;
    const fj_assembly *found = fj_core_assembly_find(model);
    return found != NULL ? found : fj_spatial_assembly_find(model);
}
