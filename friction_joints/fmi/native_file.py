"""The C assembly (fj_assembly.h) of a mechanism file, for its native FMU (friction_joints.fmi.native).

A mechanism file (mechanisms/files.py) is a planar mechanism whose numbers are expressions of its
parameters. Its assembly is C written here into the FMU's model.c: the file's structure (joint types and
bodies, friction law kinds, drive bodies, tree, partition) as constants, and each of its numbers as the C
form of its expression over the parameters p (``expressions.to_c``: the same IEEE operations as
``expressions.evaluate``), so that every parameter of the pythonfmu twin stays tunable. At initialisation
it evaluates them into fj_planar_model's arrays (planar_internal.h), checks them in the order and with the
messages of ``MechanismFile.build`` and the classes it builds (native/src/assembly_file.c; the file named
by its name, not its folder), packs them and projects the guess [initial] onto the closing constraints
(fj_planar_assemble). Beyond files.py, the C assembly refuses friction_model > 0 (the bristle laws run
in the pythonfmu twin only), as RSRRRLinkage's does (SliderCrank's and SteeringSystem's have a bristle assembly).

    assembly = FileAssembly(spec, "FourBar")    # NotNative if the file has what C cannot honour
    fpar, ipar, y0 = assembly(values)           # the same description evaluated in Python, packed
    assembly.source                              # the C text of model.c's assembly

Not native: ``independent = "auto"`` (the partition is chosen from the Jacobian at the guess, so it
depends on the parameters; the C assembly has a fixed partition).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .. import native
from ..mechanisms.expressions import c_double, evaluate, to_c
from ..mechanisms.files import LAWS, MechanismFile
from ..planar.packing import COULOMB, EXPONENTIAL, NO_LAW, PIN_IN_SLOT, PRISMATIC, REVOLUTE, STRIBECK, TANH
from ..planar import MechanismSystem
from .native import FILE_ASSEMBLY, NotNative

KINDS = {"revolute": REVOLUTE, "prismatic": PRISMATIC, "pin-in-slot": PIN_IN_SLOT}
LAW_KINDS = {"coulomb": COULOMB, "stribeck": STRIBECK, "exponential": EXPONENTIAL, "tanh": TANH}
#: each law's row of fj_planar_model.laws: mu_s, then its own coefficients (planar.packing._law_row)
LAW_ROWS = {"coulomb": ("mu_s", "mu_k"), "stribeck": ("mu_s", "mu_k", "v_s", "delta"),
            "exponential": ("mu_s", "mu_0", "k", "v_k"), "tanh": ("mu_s", "mu_k", "v_eps")}
#: the coefficient that a law's mu_s defaults to (friction.laws: Exponential, Tanh)
STATIC_DEFAULT = {"exponential": "mu_0", "tanh": "mu_k"}


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
    (model, family, names, n_fpar, n_ipar, n_y, n_tau, n_record) and ``source``, model.c's C text."""

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
        fpar, ipar, _ = self(spec.default_values())
        self.n_fpar, self.n_ipar = len(fpar), len(ipar)
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
            for key in ("friction_t", "friction_r") if kind == "pin-in-slot" else ("friction",):
                self._law(w, f"{path}.{key}", j.get(key), s)
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
        w, mech = self._write(values), self.mechanism
        a = w.arrays
        joint_types, drive_bodies, tree = self._structure()
        fpar, ipar = native.pack_planar(a["body"], joint_types, a["joint"], w.law_kinds, a["law"], drive_bodies,
                                        a["drive"], a["gravity"], tree, mech.partition)
        q = self.spec.build(values).mechanism.minimal.project(a["q"], mech.partition)
        return fpar, ipar, np.concatenate([q, a["u"], [0.0, 0.0]])

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
        return f"""/* The assembly of the mechanism file {file} (fj_assembly.h), written by build_fmu.py --native
 * (friction_joints/fmi/native_file.py): its structure as constants, each of its numbers the C form of its
 * expression of the parameters p, checked as mechanisms/files.py checks them (assembly_file.c). */
#include <math.h>

#include "planar_internal.h"

#define FILE_NAME {c_string(file)}

static const char *const NAMES[] = {{{", ".join(c_string(n) for n in self.names)}}};
static const int64_t JOINT_TYPES[][3] = {ints(joint_types)};
static const int64_t LAW_KINDS[] = {ints(w.law_kinds)};
static const int64_t DRIVE_BODIES[] = {ints(drive_bodies)};
static const int64_t TREE[][2] = {ints(tree)};
static const int64_t PARTITION[] = {ints(list(mech.partition))};
static const fj_assembly {FILE_ASSEMBLY};

static int64_t assemble(const double *p, double *fpar, int64_t *ipar, double *y0, char *error, size_t n_error) {{
    fj_problems pr = fj_no_problems(error, n_error);
    fj_require_exact_friction(&pr, p[{len(self.names) - 1}], NULL);
    if (pr.count) return pr.count;
    char text[2048];
    fj_problems report = fj_no_problems(text, sizeof text);
    report.separator = "\\n  "; /* files.py's report of several problems */
    int bad; /* an expression's arithmetic that Python refuses (expressions.evaluate) */
    double x;
{body}
    const fj_planar_model d = {{{sizes}, 0, &body[0][0], &JOINT_TYPES[0][0], &joint[0][0], LAW_KINDS, &law[0][0],
                               DRIVE_BODIES, &drive[0][0], gravity, &TREE[0][0], PARTITION}};
    fj_planar_assemble(&{FILE_ASSEMBLY}, &d, q, u, {c_string(where)},
                       {c_string(motion)}, fpar, ipar, y0, &pr);
    return pr.count;
}}

static const fj_assembly {FILE_ASSEMBLY} = {{{c_string(self.model)}, "planar", {len(self.names)}, NAMES,
                                            {self.n_fpar}, {self.n_ipar}, {self.n_y}, {self.n_tau}, {self.n_record},
                                            assemble}};
"""
