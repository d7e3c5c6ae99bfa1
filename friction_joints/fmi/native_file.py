"""The C assembly (fj_assembly.h) of a mechanism file, for its native FMU (friction_joints.fmi.native).

A mechanism file (mechanisms/files.py) is a planar mechanism whose numbers are expressions of its
parameters. Its assembly is C written here into the FMU's model.c: the file's structure (joint types and
bodies, friction law kinds, drive bodies, tree, partition) as constants, and each of its numbers as the C
form of its expression over the parameters p (``expressions.to_c``: the same IEEE operations as
``expressions.evaluate``), so that every parameter of the pythonfmu twin stays tunable. At initialisation
it evaluates them into fj_planar_model's arrays (planar_internal.h), checks them in the order and with the
messages of ``MechanismFile.build`` and the classes it builds (native/src/assembly_file.c; the file named
by its name, not its folder), packs them and projects the guess [initial] onto the closing constraints
(fj_planar_assemble). Beyond files.py, this assembly refuses friction_model > 0: a file with friction has
a second one in model.c, its bristle assembly (``FileAssembly.bristle``, family planar_bristle, the native
FMU's with friction_model 1-4 as SliderCrank's): the same description packed as a single mode, then one law
row per frictional contact (fmi.slave.FrictionModelSlave.bristle_system: the law friction_model with the
FMU's sigma0 ... z_ba_ratio, or the joint's own law with its parameters ``<joint>.<key>.<name>``; mu_c and
mu_s the kinetic and static coefficients of the contact's friction law), checked in the twin's order and with
its messages (MechanismFile.bristle_laws, then friction.bristle.make_law), and zeta = 0 in y0.

    assembly = FileAssembly(spec, "FourBar")    # NotNative if the file has what C cannot honour
    fpar, ipar, y0 = assembly(values)           # the same description evaluated in Python, packed
    fpar, ipar, y0 = assembly.bristle(values)   # (None: a file without friction) its bristle system's
    assembly.source                              # the C text of model.c's assemblies

Not native: ``independent = "auto"`` (the partition is chosen from the Jacobian at the guess, so it
depends on the parameters; the C assembly has a fixed partition).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .. import native
from ..mechanisms.expressions import c_double, evaluate, to_c
from ..friction.bristle import LAWS as BRISTLE_NUMBERS
from ..mechanisms.files import BRISTLE_LAWS, LAWS, MechanismFile
from ..planar.packing import COULOMB, EXPONENTIAL, NO_LAW, PIN_IN_SLOT, PRISMATIC, REVOLUTE, STRIBECK, TANH
from ..planar import MechanismSystem
from .native import BRISTLE, FILE_ASSEMBLY, FILE_BRISTLE_ASSEMBLY, NotNative

KINDS = {"revolute": REVOLUTE, "prismatic": PRISMATIC, "pin-in-slot": PIN_IN_SLOT}
LAW_KINDS = {"coulomb": COULOMB, "stribeck": STRIBECK, "exponential": EXPONENTIAL, "tanh": TANH}
#: each law's row of fj_planar_model.laws: mu_s, then its own coefficients (planar.packing._law_row)
LAW_ROWS = {"coulomb": ("mu_s", "mu_k"), "stribeck": ("mu_s", "mu_k", "v_s", "delta"),
            "exponential": ("mu_s", "mu_0", "k", "v_k"), "tanh": ("mu_s", "mu_k", "v_eps")}
#: the coefficient that a law's mu_s defaults to (friction.laws: Exponential, Tanh)
STATIC_DEFAULT = {"exponential": "mu_0", "tanh": "mu_k"}
#: a joint's bristle law by its number (fj_bristle_laws.h, friction.bristle.LAWS)
BRISTLE_KINDS = {name: n for n, kind in BRISTLE_NUMBERS.items() for name, law in BRISTLE_LAWS.items() if law is kind}
#: the fields of a bristle law's row after its model (fj_bristle_laws.h), the FMU's parameters of the same names
ROW = ("sigma0", "sigma1", "sigma2", "mu_c", "mu_s", "v_s", "delta", "z_ba_ratio")


def c_string(text: str) -> str:
    """A C string literal of text (UTF-8; quotes, backslashes and other bytes escaped)."""
    escapes = {'"': '\\"', "\\": "\\\\", "\n": "\\n"}
    out = [escapes.get(chr(b)) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in text.encode()]
    return '"' + "".join(out) + '"'


def _index(target: str) -> tuple:
    """The index of an element ``name[i][j]``: (i, j)."""
    return tuple(int(i) for i in target.replace("]", "").split("[")[1:])


class _Writer:
    """The file's description as C statements (``lines``) and as numbers evaluated in Python (``arrays``,
    at ``values``), in the order of MechanismFile.build's evaluations and checks."""

    def __init__(self, spec: MechanismFile, values: dict):
        self.spec, self.values = spec, values
        self.p = {q.name: f"p[{i}]" for i, q in enumerate(spec.parameters)}
        self.lines, self.arrays, self.law_kinds = [], {}, []  # law_kinds: per free coordinate (NO_LAW ... TANH)
        self.slots = []  # per free coordinate: (its joint, its slot in the joint: 1 the pin of a pin-in-slot)

    def array(self, name: str, shape: tuple):
        self.arrays[name] = np.zeros(shape)
        self.lines.append(f"double {name}{''.join(f'[{max(n, 1)}]' for n in shape)};")

    def num(self, path: str, raw, target: str, default=0.0):
        """target (``name[i][j]``) = the number at path (a number, an expression, or default if absent)."""
        raw = default if raw is None else raw
        self.arrays[target.split("[")[0]][_index(target)] = evaluate(raw, self.values)
        if isinstance(raw, str):  # files.py num(): an expression that evaluate refuses
            where = self.spec.at(path, raw, "") + f"{raw!r} "
            self.lines.append(f"bad = 0, x = {to_c(raw, self.p)};")
            self.lines.append(f"{target} = fj_file_value(&report, {c_string(where)}, bad, x);")
        else:
            self.lines.append(f"{target} = {c_double(raw)};")

    def vec(self, path: str, raw, target: str, at: int, default=(0.0, 0.0)):
        """target[at], target[at + 1], ... = the numbers of the list at path (default if absent)."""
        for c, v in enumerate(default if raw is None else raw):
            self.num(f"{path}[{c}]", v, f"{target}[{at + c}]")

    def copy(self, target: str, source: str):
        """target = source (a default that is another coefficient)."""
        self.lines.append(f"{target} = {source};")
        self.arrays[target.split("[")[0]][_index(target)] = self.arrays[source.split("[")[0]][_index(source)]

    def check(self, call: str, path: str, value=None):
        """A check of assembly_file.c: fj_file_<call> with where = the key's place."""
        self.lines.append(f"fj_file_{call.replace('WHERE', c_string(self.spec.at(path, value, '')))};")

    def unit(self, name: str, index: int, at: int):
        """arrays[name][index][at:at + 2] made a unit vector, as C's check does (at values the checks take)."""
        row = self.arrays[name][index]
        row[at:at + 2] /= math.hypot(*row[at:at + 2])


class FileAssembly:
    """The C assembly of a mechanism file (see the module docstring): the attributes of native.Assembly
    (model, family, names, n_fpar, n_ipar, n_y, n_tau, n_record), ``bristle`` (its FileBristleAssembly, None for
    a file without friction), ``contacts`` ((free coordinate s, joint, slot) of each frictional contact) and
    ``source``, model.c's C text of both."""

    family = "planar"

    def __init__(self, spec: MechanismFile, model: str):
        if spec.data.get("independent", "auto") == "auto":
            raise NotNative('its file says independent = "auto": the partition chosen from the closing constraints '
                            "at the guess depends on the parameters, and the C assembly has a fixed one (name the "
                            "independent coordinates in the file)")
        self.spec, self.model = spec, model
        self.names = (*(q.name for q in spec.parameters), "friction_model")
        self.mechanism = spec.build().mechanism  # the structure: joints' types and bodies, tree, partition
        system = MechanismSystem(self.mechanism, [0.0] * len(spec.drives))
        minimal = self.mechanism.minimal
        self.n_tau, self.n_y = len(spec.drives), minimal.k1 + minimal.k + 2  # y = [q, u, W_drive, W_friction]
        self.n_record = system.compiled().n_record
        w, fpar, ipar, _ = self._evaluate(spec.default_values())
        self.n_fpar, self.n_ipar = len(fpar), len(ipar)
        self.contacts = tuple((s, *slot) for s, (kind, slot) in enumerate(zip(w.law_kinds, w.slots)) if kind != NO_LAW)
        self.bristle = FileBristleAssembly(self) if self.contacts else None
        self.source = self._source()

    def _write(self, values: dict) -> _Writer:
        """The description at values (the file's where absent), in files.py's order of evaluation."""
        spec, mech = self.spec, self.mechanism
        joints, bodies, drives = spec.tables("joints"), spec.tables("bodies"), spec.tables("drives")
        n_laws = sum(2 if j["type"] == "pin-in-slot" else 1 for j in joints)
        w = _Writer(spec, {**spec.default_values(), **values})
        for name, shape in (("body", (len(bodies), 5)), ("joint", (len(joints), 9)), ("law", (n_laws, 4)),
                            ("drive", (len(drives), 3)), ("gravity", (2,)), ("q", (len(mech.q_names),)),
                            ("u", (len(mech.partition),))):
            w.array(name, shape)
        for k, b in enumerate(bodies):  # planar.Body(name, m, J, force, moment)
            path = f"bodies[{k}]"
            w.num(f"{path}.m", b.get("m"), f"body[{k}][0]")
            w.num(f"{path}.J", b.get("J"), f"body[{k}][1]")
            w.vec(f"{path}.force", b.get("force"), f"body[{k}]", at=2)
            w.num(f"{path}.moment", b.get("moment"), f"body[{k}][4]")
            w.check(f"body(&report, WHERE, {c_string(spec.body_names[k + 1])}, body[{k}])", path)
        s = 0
        for k, j in enumerate(joints):  # joint rows: p_i, p_j, e_j, theta_0, r, edge_length
            path, kind = f"joints[{k}]", j["type"]
            w.vec(f"{path}.p_i", j.get("p_i"), f"joint[{k}]", at=0)
            w.vec(f"{path}.p_j", j.get("p_j"), f"joint[{k}]", at=2)
            w.vec(f"{path}.e_j", j.get("e_j") if kind != "revolute" else None, f"joint[{k}]", at=4, default=(1.0, 0.0))
            for slot, key in enumerate(("friction_t", "friction_r") if kind == "pin-in-slot" else ("friction",)):
                self._law(w, f"{path}.{key}", j.get(key), s)
                w.slots.append((k, slot))
                s += 1
            if kind == "prismatic":
                w.num(f"{path}.edge_length", j.get("edge_length"), f"joint[{k}][8]")
                w.num(f"{path}.theta_0", j.get("theta_0"), f"joint[{k}][6]")
                w.num(f"{path}.r", None, f"joint[{k}][7]")
            else:
                w.num(f"{path}.theta_0", None, f"joint[{k}][6]")
                w.num(f"{path}.r", j.get("r"), f"joint[{k}][7]")
                w.num(f"{path}.edge_length", None, f"joint[{k}][8]")
            law_r = j.get("friction_r" if kind == "pin-in-slot" else "friction")
            r_open, edge = int(kind != "prismatic" and law_r is not None), int(j.get("edge_length") is not None)
            w.check(f"joint(&report, WHERE, {KINDS[kind]}, joint[{k}], {r_open}, {edge})", path)
            if kind != "revolute":
                w.unit("joint", k, 4)
        for i, (d, table) in enumerate(zip(spec.drives, drives)):  # planar.BodyLoad, direction a unit vector
            if d.kind == "torque":
                w.vec(f"drives[{i}].direction", None, f"drive[{i}]", at=0, default=(0.0, 0.0, 1.0))
                continue
            w.vec(f"drives[{i}].direction", table.get("direction"), f"drive[{i}]", at=0)
            w.num(f"drives[{i}].moment", None, f"drive[{i}][2]")
            w.check(f"direction(&report, WHERE, drive[{i}])", f"drives[{i}].direction", table.get("direction"))
            w.unit("drive", i, 0)
        w.vec("gravity", spec.data.get("gravity"), "gravity", at=0)
        w.lines.append("if (report.count) return fj_file_report(&report, FILE_NAME, &pr);")
        initial = spec.data.get("initial", {})
        for i, n in enumerate(mech.q_names):
            w.num(f"initial.q.{n}", initial.get("q", {}).get(n), f"q[{i}]")
        for i, c in enumerate(mech.partition):
            w.num(f"initial.u.{mech.q_names[c]}", initial.get("u", {}).get(mech.q_names[c]), f"u[{i}]")
        w.lines.append("if (report.count) return fj_file_report(&report, FILE_NAME, &pr);")
        return w

    @staticmethod
    def _law(w: _Writer, path: str, table, s: int):
        """Row s of the laws from the friction table at path (None: frictionless), and its check; the
        coefficients evaluated in the table's order, mu_s of a law that defaults it copied."""
        if table is None:
            w.law_kinds.append(NO_LAW)
            w.vec(path, None, f"law[{s}]", at=0, default=(0.0,) * 4)
            return
        name = table["law"]
        w.law_kinds.append(LAW_KINDS[name])
        row, fields = LAW_ROWS[name], LAWS[name].__dataclass_fields__
        for key in table:
            if key in row:
                w.num(f"{path}.{key}", table[key], f"law[{s}][{row.index(key)}]")
        for c, key in enumerate(row):
            if key in table:
                continue
            if key == "mu_s" and name in STATIC_DEFAULT:
                w.copy(f"law[{s}][0]", f"law[{s}][{row.index(STATIC_DEFAULT[name])}]")
            else:
                w.num(f"{path}.{key}", fields[key].default, f"law[{s}][{c}]")
        w.vec(path, None, f"law[{s}]", at=len(row), default=(0.0,) * (4 - len(row)))
        w.check(f"law(&report, WHERE, {LAW_KINDS[name]}, law[{s}])", path)

    def _structure(self):
        """(joint_types, drive bodies, tree) of the file: its constants."""
        mech = self.mechanism
        joint_types = [[KINDS[t], j.body_i, j.body_j] for t, j in zip(self.spec.joint_types, mech.model.joints)]
        coords = mech.minimal.coords
        return joint_types, [d.body for d in self.spec.drives], [list(t) for t in zip(coords.tree, coords.axes)]

    def __call__(self, values: dict):
        """(fpar, ipar, y0) of the description evaluated in Python at values (the file's where absent), packed
        by the C packer, y0 = [q, u, 0, 0] with the guess projected by the file's Python MinimalForm."""
        return self._evaluate(values)[1:]

    def _evaluate(self, values: dict, regularised: bool = False):
        """(the _Writer at values, fpar, ipar, y0) of ``__call__``; regularised: packed as a single mode (the
        bristle system's)."""
        w, mech = self._write(values), self.mechanism
        a = w.arrays
        joint_types, drive_bodies, tree = self._structure()
        fpar, ipar = native.pack_planar(a["body"], joint_types, a["joint"], w.law_kinds, a["law"], drive_bodies,
                                        a["drive"], a["gravity"], tree, mech.partition, regularised)
        q = self.spec.build(values).mechanism.minimal.project(a["q"], mech.partition)
        return w, fpar, ipar, np.concatenate([q, a["u"], [0.0, 0.0]])

    def _source(self) -> str:
        """The C text of the assembly (model.c's, before its table)."""
        spec, mech = self.spec, self.mechanism
        w = self._write({})
        joint_types, drive_bodies, tree = self._structure()
        held = ", ".join(mech.q_names[i] for i in mech.partition)
        file = Path(spec.source).name
        where = f"{file}: " + spec.at("initial.q", None, f"the mechanism cannot be assembled from this guess with "
                                                          f"{held} held: ")
        motion = f"{file}: " + spec.at("bodies", None, "the equations of motion cannot be solved at the initial "
                                                        "state: ")

        def ints(rows):
            rows = rows or [0]
            return "{" + ", ".join(ints(r) if isinstance(r, list) else str(int(r)) for r in rows) + "}"

        body = "\n".join("    " + line for line in w.lines)
        sizes = f"{len(spec.body_names) - 1}, {len(joint_types)}, {len(drive_bodies)}, {len(tree)}"
        b = self.bristle
        if b is None:
            laws, names, declared, table, friction = "    return pr.count;", self.names, "", "", "NULL"
        else:  # the bristle assembly's parameters begin with this one's (fj_fmu_model.h)
            laws, names, friction = b.source(w), b.names, c_string(b.model)
            declared = f"\nstatic const fj_assembly {FILE_BRISTLE_ASSEMBLY};"
            table = f"""
static int64_t assemble_bristle(const double *p, double *fpar, int64_t *ipar, double *y0, char *error,
                                size_t n_error) {{
    return assemble_as(&{FILE_BRISTLE_ASSEMBLY}, p, fpar, ipar, y0, error, n_error);
}}

static const fj_assembly {FILE_BRISTLE_ASSEMBLY} = {{{c_string(b.model)}, "planar_bristle", {len(b.names)}, NAMES,
                                                    {b.n_fpar}, {b.n_ipar}, {b.n_y}, {b.n_tau}, {b.n_record},
                                                    assemble_bristle}};
"""
        return f"""/* The assembly of the mechanism file {file} (fj_assembly.h), written by build_fmu.py --native
 * (friction_joints/fmi/native_file.py): its structure as constants, each of its numbers the C form of its
 * expression of the parameters p, checked as mechanisms/files.py checks them (assembly_file.c); with friction
 * also its bristle assembly (friction_model 1-4: its law rows after the mechanism's, packed as a single mode). */
#include <math.h>

#include "planar_internal.h"

#define FILE_NAME {c_string(file)}

static const char *const NAMES[] = {{{", ".join(c_string(n) for n in names)}}};
static const int64_t JOINT_TYPES[][3] = {ints(joint_types)};
static const int64_t LAW_KINDS[] = {ints(w.law_kinds)};
static const int64_t DRIVE_BODIES[] = {ints(drive_bodies)};
static const int64_t TREE[][2] = {ints(tree)};
static const int64_t PARTITION[] = {ints(list(mech.partition))};
static const fj_assembly {FILE_ASSEMBLY};{declared}

/* The assembly self: {FILE_ASSEMBLY} (friction_model 0), or the bristle one. */
static int64_t assemble_as(const fj_assembly *self, const double *p, double *fpar, int64_t *ipar, double *y0,
                           char *error, size_t n_error) {{
    fj_problems pr = fj_no_problems(error, n_error);
    int exact = self == &{FILE_ASSEMBLY};
    if (exact) fj_require_exact_friction(&pr, p[{len(self.names) - 1}], {friction});
    if (pr.count) return pr.count;
    char text[2048];
    fj_problems report = fj_no_problems(text, sizeof text);
    report.separator = "\\n  "; /* files.py's report of several problems */
    int bad; /* an expression's arithmetic that Python refuses (expressions.evaluate) */
    double x;
{body}
    const fj_planar_model d = {{{sizes}, !exact, &body[0][0], &JOINT_TYPES[0][0], &joint[0][0], LAW_KINDS,
                               &law[0][0], DRIVE_BODIES, &drive[0][0], gravity, &TREE[0][0], PARTITION}};
    fj_planar_assemble(&{FILE_ASSEMBLY}, &d, q, u, {c_string(where)},
                       {c_string(motion)}, fpar, ipar, y0, &pr);
{laws}
}}

static int64_t assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {{
    return assemble_as(&{FILE_ASSEMBLY}, p, fpar, ipar, y0, error, n_error);
}}

static const fj_assembly {FILE_ASSEMBLY} = {{{c_string(self.model)}, "planar", {len(self.names)}, NAMES,
                                            {self.n_fpar}, {self.n_ipar}, {self.n_y}, {self.n_tau}, {self.n_record},
                                            assemble}};
{table}"""


class FileBristleAssembly:
    """The bristle assembly of a file's FileAssembly ``exact`` (see the module docstring): the attributes of
    native.Assembly. Its parameters: exact's, then BRISTLE, then those of the joints' own laws."""

    family = "planar_bristle"

    def __init__(self, exact: FileAssembly):
        self.exact, self.model = exact, exact.model + "Bristle"
        self.names = (*exact.names, *BRISTLE, *exact.spec.law_values())
        n_c = len(exact.contacts)
        self.n_tau, self.n_y, self.n_record = exact.n_tau, exact.n_y + n_c, exact.n_record + 2 * n_c
        _, fpar, ipar, _ = exact._evaluate(exact.spec.default_values(), regularised=True)
        self.n_fpar, self.n_ipar = len(fpar) + n_c * (1 + len(ROW)), len(ipar)  # a row per contact

    def laws(self):
        """Per frictional contact (FileAssembly.contacts): (its joint's own JointLaw or None, its law row as
        terms (C text, source)), source a number, a parameter's name, or (s, column) of the _Writer's law."""
        own = {(law.joint, law.slot): law for law in self.exact.spec.joint_laws}
        p = {name: f"p[{i}]" for i, name in enumerate(self.names)}
        out = []
        for s, k, slot in self.exact.contacts:
            law = own.get((k, slot))
            if law is None:  # FrictionModelSlave.bristle_system: friction_model and the FMU's parameters
                names, model = dict(zip(ROW, ROW)), (p["friction_model"], "friction_model")
            else:  # MechanismFile.bristle_laws: the joint's law and its parameters
                names, model = {f: law.parameter(f) for f in law.values}, float(BRISTLE_KINDS[law.law])
                model = (c_double(model), model)
            coefficients = {"mu_c": (f"law[{s}][1]", (s, 1)), "mu_s": (f"law[{s}][0]", (s, 0))}  # mu(inf), mu_s
            out.append((law, [model] + [coefficients[f] if f in coefficients else (p[names[f]], names[f])
                                        if f in names else ("1.0", 1.0) for f in ROW]))  # (a field it lacks)
        return out

    def __call__(self, values: dict):
        """(fpar, ipar, y0) of the bristle system evaluated in Python at values (the FileAssembly's, with the
        FMU's bristle parameters and the joint laws' file values where absent), the rows packed by the C packer
        (native.pack_bristle_law), y0 = [q, u, zeta = 0, 0, 0]."""
        values = {**self.exact.spec.law_values(), **values}
        w, fpar, ipar, y0 = self.exact._evaluate(values, regularised=True)

        def value(source):
            return float(values[source]) if isinstance(source, str) else \
                w.arrays["law"][source] if isinstance(source, tuple) else source
        rows = [native.pack_bristle_law([value(source) for _, source in given]) for _, given in self.laws()]
        return np.concatenate([fpar, *rows]), ipar, np.concatenate([y0[:-2], np.zeros(len(rows) + 2)])

    def source(self, w: _Writer) -> str:
        """The C statements of the law rows after the mechanism's fpar (files.py's checks of the joints' own
        laws, all reported, then make_law's of the others, up to the first contact that fails) and zeta = 0."""
        spec = self.exact.spec
        lines = ["if (exact || pr.count) return pr.count;", f"double *rows = fpar + {self.exact.n_fpar};"]
        laws = self.laws()
        for c, (law, given) in enumerate(laws):
            row = ("(const double[]){" + ", ".join(text for text, _ in given) + "}", f"rows + {c * len(given)}")
            if law is not None:
                where = spec.at(f"joints[{law.joint}].{law.key}", None, f"joint {law.joint_name}'s {law.law} law: ")
                lines.append(f"fj_file_own_law(&report, {c_string(where)}, {c_string(law.parameter(''))}, {row[0]},\n"
                             f"                {row[1]});")
        lines.append("if (report.count) return fj_file_report(&report, FILE_NAME, &pr);")
        for c, (law, given) in enumerate(laws):
            if law is None:
                row = "(const double[]){" + ", ".join(text for text, _ in given) + "}"
                lines.append(f'if (!pr.count) fj_bristle_law(&pr, "friction_model", {row},\n'
                             f"                              rows + {c * len(given)});")
        lines.append(f"for (int i = {self.exact.n_y - 2}; i < {self.n_y}; i++) y0[i] = 0.0; "
                     "/* zeta, W_drive, W_friction */")
        lines.append("return pr.count;")
        return "\n".join("    " + line for line in "\n".join(lines).split("\n"))
