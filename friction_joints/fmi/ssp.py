"""SSP 1.0 files of FMI 2.0 and 3.0 co-simulation FMUs: a small writer and reader (xml.etree).

An .ssp is a zip with SystemStructure.ssd and the FMUs in resources/. The writer puts every input,
output and parameter of each FMU as a connector of its component, the couplings as connections,
the system's inputs as connectors of the system (connected to the component inputs they drive), a
DefaultExperiment with start and stop time and libcosim's fixed-step annotation (``baseStepSize``, s),
and parameter values as inline ParameterBindings (ssv:Real). The reader takes a flat system of co-simulation FMUs; nested
systems, other component types, parameter bindings in .ssv files and connection transformations
(units conversion) are refused with an error naming them.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree as ET

from fmpy import read_model_description

NS = {"ssd": "http://ssp-standard.org/SSP1/SystemStructureDescription",
      "ssc": "http://ssp-standard.org/SSP1/SystemStructureCommon",
      "ssv": "http://ssp-standard.org/SSP1/SystemStructureParameterValues",
      "osp": "http://opensimulationplatform.com/SSP/OSPAnnotations"}
FMU_TYPE = "application/x-fmu-sharedlibrary"
KINDS = ("input", "output", "parameter")  # the causalities written as connectors
for _prefix, _uri in NS.items():  # libcosim reads the prefixes literally: keep ssd, ssc, osp
    ET.register_namespace(_prefix, _uri)


class SSPError(ValueError):
    """An SSP file this module cannot read; the message names the file and the feature."""


@dataclass
class System:
    """A flat system: fmus {instance: FMU path (in the archive: resources/...)}; links: (src instance,
    output, dst instance, input) tuples; inputs: {system connector: (instance, input)}; parameters:
    {instance: {parameter: value}} (SI units); step, stop_time and start_time: the default experiment's (s;
    step None where a file has none; stop_time None only as read from a file without one)."""

    name: str
    fmus: dict
    links: list
    inputs: dict
    parameters: dict = field(default_factory=dict)
    step: float | None = None
    stop_time: float | None = None
    start_time: float = 0.0


def _tag(prefix: str, name: str) -> str:
    return f"{{{NS[prefix]}}}{name}"


def _connector(parent, name: str, kind: str, type_: str = "Real"):
    element = ET.SubElement(parent, _tag("ssd", "Connector"), name=name, kind=kind)
    ET.SubElement(element, _tag("ssc", type_ if type_ in ("Real", "Integer", "Boolean", "String") else "Real"))


def _parameter_binding(component, name: str, values: dict):
    binding = ET.SubElement(ET.SubElement(component, _tag("ssd", "ParameterBindings")), _tag("ssd", "ParameterBinding"))
    parameter_set = ET.SubElement(ET.SubElement(binding, _tag("ssd", "ParameterValues")), _tag("ssv", "ParameterSet"),
                                  version="1.0", name=name)
    parameters = ET.SubElement(parameter_set, _tag("ssv", "Parameters"))
    for parameter, value in values.items():
        ET.SubElement(ET.SubElement(parameters, _tag("ssv", "Parameter"), name=parameter), _tag("ssv", "Real"),
                      value=repr(float(value)))


def _read_parameter_bindings(path, component) -> dict:
    """{parameter: value} of the inline ParameterBindings of component (ssv:Real, Integer, Boolean)."""
    values = {}
    for binding in component.findall("ssd:ParameterBindings/ssd:ParameterBinding", NS):
        if binding.get("source"):
            _refuse(path, f"ParameterBinding source {binding.get('source')!r} of component {component.get('name')!r}"
                          " (.ssv files; set parameters with --set)")
        for parameter in binding.findall("ssd:ParameterValues/ssv:ParameterSet/ssv:Parameters/ssv:Parameter", NS):
            value = parameter.find("*")
            if value is None or value.tag not in (_tag("ssv", t) for t in ("Real", "Integer", "Boolean")):
                _refuse(path, f"parameter {parameter.get('name')!r} of component {component.get('name')!r}"
                              " that is no ssv:Real, Integer or Boolean")
            text = value.get("value")
            boolean = value.tag == _tag("ssv", "Boolean")
            values[parameter.get("name")] = float(text == "true") if boolean else float(text)
    return values


def write_ssp(path, system: System):
    """Write system (its fmus: paths of the FMU files on disk) as the .ssp archive at path; ValueError
    without a stop time (every file states its start and stop time)."""
    if system.stop_time is None or not system.start_time <= system.stop_time:
        raise ValueError(f"{system.name}: stop_time = {system.stop_time!r}: the default experiment needs a stop time "
                         f"from start_time = {system.start_time!r} on")
    root = ET.Element(_tag("ssd", "SystemStructureDescription"), name=system.name, version="1.0")
    ssd_system = ET.SubElement(root, _tag("ssd", "System"), name=system.name)
    connectors = ET.SubElement(ssd_system, _tag("ssd", "Connectors"))
    elements = ET.SubElement(ssd_system, _tag("ssd", "Elements"))
    resources = {}
    for instance, fmu in system.fmus.items():
        fmu = Path(fmu)
        variables = {v.name: v for v in read_model_description(str(fmu)).modelVariables}
        source = f"resources/{fmu.name}"
        resources[source] = fmu
        component = ET.SubElement(elements, _tag("ssd", "Component"), name=instance, type=FMU_TYPE, source=source)
        component_connectors = ET.SubElement(component, _tag("ssd", "Connectors"))
        for v in variables.values():
            if v.causality in KINDS:
                _connector(component_connectors, v.name, v.causality, v.type)
        if system.parameters.get(instance):
            _parameter_binding(component, instance, system.parameters[instance])
    for name in system.inputs:
        _connector(connectors, name, "input", "Real")
    connections = ET.SubElement(ssd_system, _tag("ssd", "Connections"))
    for src, output, dst, target in system.links:
        ET.SubElement(connections, _tag("ssd", "Connection"), startElement=src, startConnector=output,
                      endElement=dst, endConnector=target)
    for name, (instance, var) in system.inputs.items():
        ET.SubElement(connections, _tag("ssd", "Connection"), startConnector=name, endElement=instance,
                      endConnector=var)
    experiment = ET.SubElement(root, _tag("ssd", "DefaultExperiment"), startTime=repr(float(system.start_time)),
                               stopTime=repr(float(system.stop_time)))
    if system.step is not None:
        annotation = ET.SubElement(ET.SubElement(experiment, _tag("ssd", "Annotations")), _tag("ssc", "Annotation"),
                                   type="com.opensimulationplatform")
        ET.SubElement(ET.SubElement(annotation, _tag("osp", "Algorithm")), _tag("osp", "FixedStepAlgorithm"),
                      baseStepSize=repr(float(system.step)))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("SystemStructure.ssd", b'<?xml version="1.0" encoding="UTF-8"?>\n'
                         + ET.tostring(root, encoding="utf-8"))
        for source, fmu in resources.items():
            archive.write(fmu, source)


def _refuse(path, what):
    raise SSPError(f"{path}: {what} not supported (only a flat system of FMI 2.0 or 3.0 co-simulation FMUs)")


def read_ssp(path, folder) -> System:
    """The system of the .ssp at path, its FMUs extracted into folder (System.fmus: their paths there).
    SSPError names an unsupported feature or a missing part."""
    path, folder = Path(path), Path(folder)
    try:
        with zipfile.ZipFile(path) as archive:
            archive.extractall(folder)
    except (OSError, zipfile.BadZipFile) as exc:
        raise SSPError(f"{path}: not an SSP archive ({exc})") from None
    try:
        root = ET.parse(folder / "SystemStructure.ssd").getroot()
    except (OSError, ET.ParseError) as exc:
        raise SSPError(f"{path}: no readable SystemStructure.ssd ({exc})") from None
    ssd_system = root.find("ssd:System", NS)
    if ssd_system is None:
        raise SSPError(f"{path}: SystemStructure.ssd has no ssd:System")
    fmus, parameters = {}, {}
    for element in ssd_system.findall("ssd:Elements/*", NS):
        if element.tag != _tag("ssd", "Component"):
            _refuse(path, f"element {element.tag.rpartition('}')[2]} {element.get('name')!r} (nested systems)")
        name, type_ = element.get("name"), element.get("type", FMU_TYPE)
        if type_ != FMU_TYPE:
            _refuse(path, f"component {name!r} of type {type_!r}")
        parameters[name] = _read_parameter_bindings(path, element)
        fmu = folder / element.get("source", "")
        if not fmu.is_file():
            raise SSPError(f"{path}: component {name!r}: no FMU at {element.get('source')!r} in the archive")
        md = read_model_description(str(fmu))
        if md.fmiVersion not in ("2.0", "3.0") or md.coSimulation is None:
            _refuse(path, f"component {name!r}: FMI {md.fmiVersion} without co-simulation (ModelExchange)")
        fmus[name] = fmu
    links, inputs = [], {}
    for connection in ssd_system.findall("ssd:Connections/ssd:Connection", NS):
        start, end = connection.get("startElement"), connection.get("endElement")
        what = (f"connection {start or ''}.{connection.get('startConnector')} -> "
                f"{end or ''}.{connection.get('endConnector')}")
        transformations = [c.tag.rpartition("}")[2] for c in connection if c.tag != _tag("ssd", "Annotations")]
        if transformations:
            _refuse(path, f"{what} with {transformations[0]} (units conversion)")
        if end not in fmus or (start is not None and start not in fmus):
            _refuse(path, f"{what} to or from the system's outputs or unknown elements")
        if start is None:
            inputs[connection.get("startConnector")] = (end, connection.get("endConnector"))
        else:
            links.append((start, connection.get("startConnector"), end, connection.get("endConnector")))
    experiment = root.find("ssd:DefaultExperiment", NS)
    stop = None if experiment is None else experiment.get("stopTime")
    start = None if experiment is None else experiment.get("startTime")
    base = root.find("ssd:DefaultExperiment/ssd:Annotations/ssc:Annotation/osp:Algorithm/osp:FixedStepAlgorithm", NS)
    return System(ssd_system.get("name"), fmus, links, inputs, parameters,
                  None if base is None else float(base.get("baseStepSize")), None if stop is None else float(stop),
                  0.0 if start is None else float(start))


def for_libcosim(path, folder) -> Path:
    """The .ssp at path extracted into folder for libcosim, without the connections from the system's
    connectors (libcosim's SSP reader needs a startElement on every connection; its caller sets those
    inputs itself). Returns folder, which libcosim loads as an SSP."""
    folder = Path(folder)
    with zipfile.ZipFile(path) as archive:
        archive.extractall(folder)
    tree = ET.parse(folder / "SystemStructure.ssd")
    for connections in tree.getroot().iterfind("ssd:System/ssd:Connections", NS):
        for connection in list(connections):
            if connection.get("startElement") is None:
                connections.remove(connection)
    tree.write(folder / "SystemStructure.ssd", encoding="utf-8", xml_declaration=True)
    return folder
