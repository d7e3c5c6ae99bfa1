"""The C assemblies of the spatial RSRRR linkage (native/src/assembly_spatial.c: "RSRRRSystem", the one
packer of spatial/packing.py, and "RSRRRLinkage", the native FMU's) against the Python model: the packed
arrays are the layout packing.py documents, built here from the Python objects (chain.Link, Chain, the
journals, the load), bit for bit; the initial state is RSRRRSystem.initial_state's to rounding (its loop
closed by Newton in C, in numpy); the checks give the Python classes' messages; the features the native
FMU does not run are refused naming their parameter."""

import math

import numpy as np
import pytest

import build_fmu
from friction_joints import native
from friction_joints.hybrid.signals import Held
from friction_joints.spatial import packing
from friction_joints.spatial.journal import JournalFriction
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters
from friction_joints.spatial.system import RSRRRSystem

from test_native_fmus import assert_checks_as_python

SLAVE = build_fmu.slave_class(build_fmu.SOURCES / "RSRRRLinkage.py")
PARAMETERS = {v.name: v.start for v in SLAVE.variables if v.causality == "parameter"}
INITIAL_STATE = 1e-13  # rad, rad/s: the two Newton solves of the closure agree to rounding
PSI = (-np.pi, 3.0 * np.pi)  # driving angles: more than a turn (the pose is followed from pi/2 in both)


def documented(system):
    """(fpar, ipar) of the layout of packing.py's docstring, from the Python objects of the system."""
    mech, loop, load = system.mech, system.mech.loop, system.load
    links, chains, parents = packing.pack_links(loop)
    journals = [getattr(mech.journals, name) for name in packing.JOURNAL_FIELDS]
    fpar = np.concatenate((links, chains, [loop.alpha, loop.beta, mech.COUPLING_TOL, system.HOLD_TOL],
                           np.column_stack(journals).ravel(), [load.t_0, load.psid_0, load.c] if load else np.zeros(3)))
    sizes = (4 * packing.LINK_WIDTH, 2 * packing.CHAIN_WIDTH, 4, 4 * packing.JOURNAL_WIDTH)
    offsets = np.cumsum((0,) + sizes)
    ipar = [1, 3, packing.FORM_MINIMAL if system.form == "minimal" else packing.FORM_CUT, int(mech.p.trace),
            int(mech.p.friction), int(system.stiction), packing.SPEED_LOAD if load else packing.NO_LOAD,
            mech.MAX_ITERATIONS, system.MAX_HOLD_ITERATIONS, packing.HEADER, *offsets, *parents]
    return fpar, np.array(ipar)


def random_system(rng):
    """An RSRRRSystem of random parameters, formulation, form, stiction and load (near the paper's)."""
    journals = tuple(JournalFriction(a_bar=rng.uniform(0.02, 0.04), d_A=d_A, d_B=rng.uniform(0.005, 0.03),
                                     d_C=d_A * rng.uniform(1.0, 2.0), mu_A=rng.uniform(0, 0.3),
                                     mu_B=rng.uniform(0, 0.3), mu_C=rng.uniform(0, 0.3), k=rng.uniform(1, 5),
                                     psid_k=rng.uniform(0.005, 0.05), mu_s_factor=rng.uniform(1, 2))
                     for d_A in rng.uniform(0.005, 0.03, 4))
    params = RSRRRParameters(l=tuple(np.array([0.2, 0.2, 0.1, 0.3]) * rng.uniform(0.95, 1.05, 4)),
                             d=rng.uniform(0.02, 0.04), density=rng.uniform(2000, 8000), y0=rng.uniform(0.08, 0.12),
                             z0=rng.uniform(0.2, 0.24), g=rng.uniform(0, 10), journals=journals,
                             friction=bool(rng.integers(2)), alpha=rng.uniform(0, 20), beta=rng.uniform(0, 20),
                             trace=bool(rng.integers(2)))
    load = SpeedLoad(rng.uniform(0, 10), rng.normal(), rng.uniform(0.1, 5)) if rng.integers(2) else None
    return RSRRRSystem(RSRRR(params), [0.0, 0.0], load, form=("cut", "minimal")[rng.integers(2)],
                       stiction=bool(rng.integers(2)))


def test_the_packer_is_the_documented_layout():
    """Random systems: the packed arrays bit for bit; the initial state the one given."""
    rng = np.random.default_rng(2)
    assembly = native.Assembly("RSRRRSystem")
    for _ in range(12):
        system = random_system(rng)
        fpar, ipar = packing.pack(system)
        want_f, want_i = documented(system)
        assert np.array_equal(fpar, want_f) and ipar.tolist() == want_i.tolist()
        state = rng.normal(size=8)
        values = dict(packing.assembly_values(system), **{f"{name}[{i % 4 + 1}]": x for i, (name, x) in
                                                           enumerate(zip(["psi"] * 4 + ["psid"] * 4, state))})
        assert assembly(values)[2].tolist() == [*state, 0.0, 0.0, 0.0]


def twin_system(values):
    """The system of the pythonfmu FMU RSRRRLinkage (its build) with the parameters values, and its initial
    state; raises as the build and the initial state raise."""
    make_system, y0_of, _ = object.__new__(SLAVE).build(dict(PARAMETERS, **values))
    system = make_system([Held(0.0), Held(0.0)])
    return system, y0_of(system)


def test_the_linkage_assembly_is_the_twins_compiled_system():
    """For random FMU parameters (Booleans and the load switched too), the native FMU's packed arrays are
    the twin system's, its initial state (the loop closed in C) the twin's to rounding."""
    rng = np.random.default_rng(3)
    assembly = native.Assembly("RSRRRLinkage")
    for k in range(12):
        values = dict(friction=float(k % 3 != 0), stiction=float(k % 2), mu_scale=rng.uniform(0, 4),
                      mu_s_factor=rng.uniform(1, 2), load_t0=rng.uniform(0, 10), load_psid0=rng.normal() * 5,
                      load_c=rng.uniform(0, 5) * (k % 4 != 1), y0=rng.uniform(0.08, 0.12), z0=rng.uniform(0.2, 0.24),
                      psi1_start=rng.uniform(*PSI), psid1_start=rng.normal() * 5, baumgarte=rng.uniform(0, 20))
        system, y0 = twin_system(values)
        model = system.compiled()
        fpar, ipar, y0_c = assembly(dict(PARAMETERS, **values))
        assert np.array_equal(fpar, model.fpar) and np.array_equal(ipar, model.ipar)
        assert np.allclose(y0_c, y0, rtol=0.0, atol=INITIAL_STATE)


PYTHON_CLASSES = {  # the RSRRRSystem assembly's parameters of each Python class, and how to build it
    "JournalFriction": (packing.JOURNAL_FIELDS, lambda v: JournalFriction(**v)),
    "RSRRRParameters": (("d", "density", "y0", "z0", "g", "alpha", "beta"), lambda v: RSRRRParameters(**v)),
    "SpeedLoad": (("t_0", "psid_0", "c"), lambda v: SpeedLoad(**v)),
}


@pytest.mark.parametrize("cls", list(PYTHON_CLASSES))
def test_the_packers_checks_give_the_python_classes_messages(cls):
    """Each parameter of the class out of range (0, negative, NaN, infinite, in turn) in the assembly
    "RSRRRSystem": the class's message, in every journal; nothing for the values the class takes."""
    assembly = native.Assembly("RSRRRSystem")
    base = packing.assembly_values(RSRRRSystem(RSRRR(), [0.0, 0.0], SpeedLoad()))
    names, make = PYTHON_CLASSES[cls]
    for name in names:
        for bad in (0.0, -1.0, math.nan, math.inf):
            for joint in (1, 4) if cls == "JournalFriction" else (None,):
                key = f"{name}[{joint}]" if joint else name
                assert_checks_as_python(assembly, dict(base, **{key: bad}),
                                        lambda v: make({n: v[f"{n}[{joint}]" if joint else n] for n in names}),
                                        (key, bad))
    with pytest.raises(ValueError, match=r"^l\[3\]=-0.1 is outside the allowed range \(0, inf\)$"):
        assembly(dict(base, **{"l[3]": -0.1}))


@pytest.mark.parametrize("name, bad", [("z0", 0.0), ("mu_scale", -1.0), ("mu_s_factor", 0.5), ("baumgarte", -1.0),
                                       ("load_t0", -1.0), ("load_psid0", math.nan), ("y0", math.inf)])
def test_the_fmus_checks_give_the_twins_messages(name, bad):
    """A bad FMU parameter: the message the twin's build raises (its Python classes')."""
    with pytest.raises(ValueError) as python:
        twin_system({name: bad})
    with pytest.raises(ValueError) as c:
        native.Assembly("RSRRRLinkage")(dict(PARAMETERS, **{name: bad}))
    assert str(c.value) == str(python.value)


@pytest.mark.parametrize("name, value, says", [
    ("friction_model", 2, "friction_model=2: this assembly has the exact friction model (0) only; the bristle laws "
                          "(1-4) are the assembly RSRRRBristle's"),
    ("clearance", 1e-4, "clearance=0.0001: the native FMU has ideal joints only"),
    ("n_rfe", 3, "n_rfe=3: the native FMU has rigid links only"),
    ("psi1_start", math.nan, "psi1_start=nan is outside the allowed range (-inf, inf)"),
    ("z0", 2.0, "psi1_start=1.5707963267948966: no initial state, the loop does not close"),
])
def test_the_fmu_refuses_what_the_native_engine_does_not_run_naming_it(name, value, says):
    """The bristle laws are the assembly RSRRRBristle's; the clearance and the flexible link (seed 003) run in
    the pythonfmu FMU only; an
    initial state must be finite, and the loop must close there (the twin fails too)."""
    with pytest.raises(ValueError) as c:
        native.Assembly("RSRRRLinkage")(dict(PARAMETERS, **{name: value}))
    assert str(c.value).startswith(says), str(c.value)
    if name == "z0":  # chain 2's base out of reach of S: the twin's initial state fails as well
        with pytest.raises(Exception, match="close"):
            twin_system({name: value})


def test_the_initial_pose_is_the_one_the_driving_link_turns_into():
    """The pose at psi1_start is followed from the reference pose (pi/2): continuous in the driving angle over
    a whole turn (no jump to chain 2's other branch), the same a turn later, closed, and the C assembly's at
    every angle. Newton from one guess (the earlier rule) lands on the other branch at most of these angles."""
    mech, assembly = RSRRR(RSRRRParameters()), native.Assembly("RSRRRLinkage")
    angles = np.pi / 2 + np.linspace(-np.pi, np.pi, 121)
    poses = np.array([mech.initial_position(psi) for psi in angles])
    jumps = np.abs(np.angle(np.exp(1j * np.diff(poses, axis=0)))).max()
    assert jumps < 4.0 * (angles[1] - angles[0]), jumps  # the linkage's gear ratios stay below about 2 here
    for psi, q in zip(angles[::10], poses[::10]):
        assert np.abs(mech.loop.closure(q)).max() < 1e-12
        assert np.allclose(mech.initial_position(psi + 2.0 * np.pi), q, rtol=0.0, atol=1e-12)
        _, _, y0 = assembly(dict(PARAMETERS, psi1_start=float(psi)))
        assert np.allclose(y0[:4], q, rtol=0.0, atol=INITIAL_STATE)
    other = sum(not np.allclose(mech.loop.assemble([psi, 0.0, -0.7, -2.3]), q, atol=1e-6)
                for psi, q in zip(angles, poses))
    assert other > 20, other
