"""A system of FMI 2.0 co-simulation FMUs (``ssp.System``) as one FMU: FMPy's container FMU
(``fmpy.container_fmu``), with the two workarounds that FMPy 0.3's container needs for FMI 2.0
components.

1. Its writer copies the FMI 2.0 type name of a connection's variables ("Real", "Integer") into
   ``resources/container.json``, whose reader knows only the FMI 3.0 names: every instantiation fails
   with "unknown variant `Real`". The connectors are given the FMI 3.0 type names here (the writer
   already converts the types of the container's own variables).
2. The container's value reference 0 is its time, not its first variable: a container without a
   leading "time" variable refuses fmi2SetReal on its first input ("Value reference 0 is not valid").

The container steps its components one after the other with the outputs of the last communication
point (Jacobi coupling, as ``master.run``'s default, with which it agrees to the last digit), at the
fixed step of the system: what ``master`` says about explicit coupling and step size holds for it.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .ssp import System

FMI3_TYPES = {"Real": "Float64", "Integer": "Int32"}  # the rest (Boolean, String) keep their names


def _fmi3(variable):
    """The variable with the FMI 3.0 name of its type (a copy)."""
    import attrs

    return attrs.evolve(variable, type=FMI3_TYPES.get(variable.type, variable.type))


def write_container(system: System, path, outputs=None, step=None) -> Path:
    """Write the container FMU of ``system`` to path (.fmu) and return it. Its inputs are the system's
    inputs, its parameters the system's parameter bindings (start values), its outputs ``outputs``
    {name: (instance, variable)} (default: every output of every instance, named INSTANCE.VAR);
    step: the container's fixed communication step (s; default the system's)."""
    from fmpy import read_model_description
    from fmpy.container_fmu.cli import create_container_fmu
    from fmpy.container_fmu.config import Component, Configuration, Connection
    from fmpy.model_description import CoSimulation, DefaultExperiment, ModelDescription, ModelVariable

    step = step if step is not None else system.step
    if not (step is not None and step > 0):
        raise ValueError(f"step={step!r}: the container needs a positive fixed step (s)")
    components, variables = {}, {}
    for name, fmu in system.fmus.items():
        md = read_model_description(str(fmu))
        components[name] = Component(name=name, filename=Path(fmu), modelDescription=md)
        variables[name] = {v.name: v for v in md.modelVariables}
    if outputs is None:
        outputs = {f"{name}.{v.name}": (name, v.name) for name in system.fmus
                   for v in variables[name].values() if v.causality == "output"}
    for name, (instance, var) in [*system.inputs.items(), *outputs.items()]:
        if var not in variables.get(instance, {}):
            raise ValueError(f"{name}: no variable {instance}.{var} in the system {system.name}")

    def own(name, instance, var, causality, start=None):
        v = variables[instance][var]
        return ModelVariable(type=v.type, name=name, causality=causality, start=None if start is None else str(start),
                             variability="fixed" if causality == "parameter" else v.variability,
                             initial="calculated" if causality == "output" else None, unit=v.unit)

    mappings = {}
    for name, (instance, var) in system.inputs.items():
        mappings[own(name, instance, var, "input", variables[instance][var].start)] = [(components[instance],
                                                                                       variables[instance][var])]
    for instance, values in system.parameters.items():
        for var, value in values.items():
            mappings[own(f"{instance}.{var}", instance, var, "parameter", value)] = [(components[instance],
                                                                                     variables[instance][var])]
    for name, (instance, var) in outputs.items():
        mappings[own(name, instance, var, "output")] = [(components[instance], variables[instance][var])]
    time = ModelVariable(type="Real", name="time", causality="independent", variability="continuous")
    units = {u.name: u for c in components.values() for u in c.modelDescription.unitDefinitions}
    experiment = DefaultExperiment(stopTime=str(system.stop_time or 1.0), stepSize=str(step))
    md = ModelDescription(fmiVersion="2.0", modelName=system.name, instantiationToken="",
                          unitDefinitions=list(units.values()), defaultExperiment=experiment,
                          coSimulation=CoSimulation(fixedInternalStepSize=step), modelVariables=[time, *mappings])
    connections = [Connection(components[src], [_fmi3(variables[src][out])],
                              components[dst], [_fmi3(variables[dst][inp])]) for src, out, dst, inp in system.links]
    config = Configuration(parallelDoStep=False, modelDescription=md, components=list(components.values()),
                           connections=connections, variableMappings=mappings)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="container_", dir=path.parent) as folder:  # renamed into place
        create_container_fmu(config, Path(folder), path.resolve())
    return path
