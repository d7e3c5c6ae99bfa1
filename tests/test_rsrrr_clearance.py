"""The RSRRR linkage with a clearance joint and a flexible link (issue 17 item 4): energy balance, the ideal joint
as the limit of a vanishing clearance, the spatial clearance model with aligned axes against the planar one, the
defaults against today's linkage, bad parameters."""

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.hybrid.integrator import HybridIntegrator
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters
from friction_joints.spatial.system import paper_drive


def simulate(clearance, t_end, params=RSRRRParameters(), tau=2.0, seated=True, psid11=3.0, rtol=1e-9):
    mech = ClearanceRSRRR(params, clearance)
    system = ClearanceRSRRRSystem(mech, [tau, 0.0])
    y0 = system.initial_state(psid11=psid11, seated=seated)
    return mech, run(system, y0, t_end, dt_out=t_end / 20, rtol=rtol, atol=1e-12, engine="python")


def test_defaults_are_the_rigid_linkage():
    """Clearance 0 and n_rfe 0: the same four coordinates and the same dynamics as today's RSRRR."""
    mech, rigid = ClearanceRSRRR(), RSRRR()
    assert mech.loop.n == 4 and mech.clearance_joint is None and not len(mech.gap) and not len(mech.sde)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q = rigid.initial_position(rng.uniform(0.0, 2.0 * np.pi))
        qd = rigid.loop.dependent_velocities(q, rng.normal(size=1) * 5.0)
        a, b = mech.dynamics(q, qd, 1.5), rigid.dynamics(q, qd, 1.5)
        for name in ("qdd", "f_S", "f_O", "n_O", "t_f"):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def balance(res):
    """(largest |E - E0 - W| (J), the scale of the energies (J))."""
    E = res["E_kin"] + res["E_pot"] + res["E_elastic"]
    W = res["W_drive"] + res["W_friction"] + res["W_dissipated"]
    return np.abs(E - E[0] - W).max(), np.ptp(E) + np.abs(res["W_friction"]).max()


@pytest.mark.parametrize("case, t_end", [
    (dict(clearance=1e-4, k_contact=1e8), 0.006),  # planar: the bearing drops from the centre and strikes
    (dict(n_rfe=2, flexible=3, rfem="classical", E=2e9, G=2e9 / 2.6), 0.002),  # a soft flexible coupler (2,3)
    pytest.param(dict(clearance=1e-4, k_contact=1e7, model="spatial", n_slices=4, joint=3, n_rfe=2, flexible=2,
                      E=2e9, G=2e9 / 2.6), 0.006, marks=pytest.mark.slow),  # clearance in (2,3), (2,2) flexible
], ids=["planar clearance", "classical flexible link", "spatial clearance and modified flexible link"])
def test_energy_balance_with_clearance_and_flexible_link(case, t_end):
    """E_kin + E_pot + E_elastic changes by W_drive + W_friction + W_dissipated along a run from a centred
    journal (impacts) with friction in every joint and damping in the contact and the sdes; the works of
    friction and damping never grow."""
    mech, res = simulate(ClearanceParameters(**case), t_end, seated=False)
    error, scale = balance(res)
    assert error < 1e-8 * scale, (error, scale)
    for name in ("W_friction", "W_dissipated"):
        assert np.all(np.diff(res[name]) <= 1e-15) and res[name][-1] < 0.0, name
    if len(mech.gap):
        assert any(kind == "impact" for _, kind in res.events) and res["F_contact"].max() > 1.0
    if len(mech.sde):
        assert np.abs(res["q_all"][:, mech.sde]).max() > 1e-6 and res["E_strain"].max() > 0.0


def test_vanishing_clearance_converges_to_the_ideal_joint_with_order_one():
    """Clearance c -> 0 with the contact stiffened so that the static penetration shrinks like c
    (K ~ c^-1.5): the joint angles after a short run from a seated journal approach the ideal joint's as c
    (the bearing's offset c + delta changes the geometry to first order). Frictionless joints: the contact's
    friction and seed 002's journal friction are different laws, so only the ideal joint is the common limit."""
    params = RSRRRParameters(friction=False)
    t_end = 0.004
    _, ideal = simulate(ClearanceParameters(), t_end, params)
    errors = []
    for c in (4e-5, 2e-5, 1e-5):
        _, res = simulate(ClearanceParameters(clearance=c, k_contact=1e8 * (1e-4 / c) ** 1.5), t_end, params)
        errors.append(np.abs(res["q"][-1] - ideal["q"][-1]).max())
    rates = np.log2(np.array(errors[:-1]) / errors[1:])
    assert np.all(np.abs(rates - 1.0) < 0.1), (errors, rates)


def test_spatial_model_with_aligned_axes_equals_the_planar_model():
    """At states with the bearing's axis parallel to the journal's (tilts a = b = 0 and their rates 0), the
    spatial model's contact (sliced along the bearing) gives the planar model's generalised forces on x, y
    and psi, no tilting moment, and the same force, elastic energy and powers."""
    rng = np.random.default_rng(7)
    for joint in range(4):
        planar = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, joint=joint))
        spatial = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, joint=joint, model="spatial"))
        for _ in range(3):
            q_p = planar.initial_position(rng.uniform(0.0, 2.0 * np.pi))
            angle = rng.uniform(0.0, 2.0 * np.pi)
            q_p[planar.gap] = (1e-4 + rng.uniform(0.0, 2e-6)) * np.array([np.cos(angle), np.sin(angle)])
            qd_p = rng.normal(size=planar.loop.n) * np.where(np.isin(np.arange(planar.loop.n), planar.gap), 1e-3, 3.0)
            q_s, qd_s = (np.insert(v, planar.gap[-1] + 1, [0.0, 0.0]) for v in (q_p, qd_p))
            a, b = planar.contact(q_p, qd_p, 0.01), spatial.contact(q_s, qd_s, 0.01)
            assert a.delta > 0 and a.F > 0
            tilts = spatial.gap[2:]
            np.testing.assert_allclose(b.Q[tilts], 0.0, atol=1e-12 * a.F)
            np.testing.assert_allclose(np.delete(b.Q, tilts), a.Q, rtol=1e-12, atol=1e-12 * a.F)
            for name in ("e", "delta", "deltad", "F", "E_el", "P_damping", "P_friction"):
                assert getattr(b, name) == pytest.approx(getattr(a, name), rel=1e-12, abs=1e-15), name


def test_spatial_tilts_carry_the_joint_moment_through_the_contact():
    """The spatial model's tilt coordinates take the joint's bending moment through the contact: a tilt
    about x gives a restoring generalised moment on it (opposite to the tilt), which the planar model lacks."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, model="spatial"))
    q = mech.initial_position()
    q[mech.gap[:2]] = [0.0, -1.0e-4 - 2e-6]  # in contact along -y
    qd = np.zeros(mech.loop.n)
    tilt = mech.gap[2]
    moments = []
    for a in (-1e-4, 1e-4):
        q[tilt] = a
        moments.append(mech.contact(q, qd, 0.01).Q[tilt])
    assert moments[0] > 0.0 > moments[1]


def test_default_stiffness_is_the_hertz_stiffness_of_the_steel_journal():
    """k_contact None: K from the journal's radius, the clearance and steel (Flores et al. 2006), by hand for
    joint (2,2), d_A = 10 mm, c = 0.1 mm: sigma = (1 - 0.3^2) / 2.1e11 = 4.333e-12 1/Pa,
    K = 4 / (3 * 2 sigma) * sqrt(5 mm * 5.1 mm / 0.1 mm) = 1.5385e11 * 0.50498 = 7.769e10 N/m^1.5, so that
    335 N press the journal (335 / K)^(2/3) = 2.65 um into the bearing (1e9, the former default: 48 um);
    k_contact overrides it."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, joint=2))
    K = mech.clearance_joint.law.k_contact
    assert K == pytest.approx(7.769e10, rel=1e-4)
    assert (335.0 / K) ** (2.0 / 3.0) == pytest.approx(2.65e-6, rel=2e-3)
    assert ClearanceParameters(clearance=1e-4, nu_joint=0.0, E_joint=1e11).stiffness(5e-3) == pytest.approx(
        4.0 / 3.0 / (2.0 / 1e11) * 0.50498, rel=1e-4)
    softer = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, joint=2, k_contact=1e8))
    assert softer.clearance_joint.law.k_contact == 1e8


def test_default_contact_sinks_less_than_5_percent_of_the_clearance():
    """The example's run (examples/rsrrr_clearance.py: drive ramped to 10 N.m over 0.05 s, the bearing of (2,2)
    released centred on its journal, 0.1 mm clearance) with the default contact: its first impact (about 4.2 ms,
    some 400 N) presses the journal in by less than 5 % of the clearance, sampled every 2 us through it (the
    former default, 1e9 N/m^1.5: 14 % at 4.5 ms, still sinking)."""
    mech = ClearanceRSRRR(RSRRRParameters(), ClearanceParameters(clearance=1e-4, joint=2))
    system = ClearanceRSRRRSystem(mech, [paper_drive(10.0, 0.05), 0.0])
    window = (4.1e-3, 4.5e-3)
    grid = np.arange(window[0], window[1] + 1e-9, 2e-6)
    res = HybridIntegrator(system, 0.0, system.initial_state(seated=False), rtol=1e-8, atol=1e-11).advance(
        window[1], grid)
    assert [kind for _, kind in res.events] == ["impact", "separation"], res.events
    assert window[0] < res.events[0][0] < res.events[1][0] < window[1]
    penetration = res["e_clearance"].max() - 1e-4
    assert res["F_contact"].max() > 100.0 and 0.0 < penetration < 0.05 * 1e-4, (res["F_contact"].max(), penetration)


def test_bad_parameters_name_the_parameter():
    for kwargs, name in ((dict(clearance=-1e-4), "clearance"), (dict(joint=4), "joint"),
                         (dict(model="skew"), "model"), (dict(k_contact=0.0), "k_contact"),
                         (dict(e_restitution=0.0), "e_restitution"), (dict(n_rfe=-1), "n_rfe"),
                         (dict(rfem="timoshenko"), "rfem"), (dict(E=-1.0), "E"), (dict(flexible=7), "flexible"),
                         (dict(E_joint=0.0), "E_joint"), (dict(nu_joint=0.5), "nu_joint")):
        with pytest.raises(ValueError, match=name):
            ClearanceParameters(**kwargs)
    with pytest.raises(ValueError, match="mechanism"):
        ClearanceRSRRRSystem(RSRRR(), [0.0, 0.0])


def test_minimal_form_with_any_dependent_coordinates_equals_the_cut_form():
    """On a loop with clearance and sde coordinates the closure determines chain 2's three joints (not all of
    chain 2): the minimal form in the other coordinates gives the cut form's accelerations and cut force, and
    the dependent velocities satisfy the closure's derivative."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, model="spatial", n_rfe=2, flexible=2))
    loop = mech.loop
    rng = np.random.default_rng(11)
    q = mech.initial_position(1.1)
    q[loop.independent] += rng.normal(size=len(loop.independent)) * 1e-3
    q = loop.assemble(q)
    qd = loop.dependent_velocities(q, rng.normal(size=len(loop.independent)))
    G, _, Phi, Phid = loop.kinematics(q, qd)
    assert np.abs(Phi).max() < 1e-12 and np.abs(Phid).max() < 1e-12
    tau = rng.normal(size=loop.n)
    (qdd_cut, f_cut), (qdd_min, f_min) = loop.solve(q, qd, tau), loop.solve_minimal(q, qd, tau)
    np.testing.assert_allclose(qdd_min, qdd_cut, rtol=1e-8, atol=1e-8 * np.abs(qdd_cut).max())
    np.testing.assert_allclose(f_min, f_cut, rtol=1e-8, atol=1e-8 * np.abs(f_cut).max())


@pytest.mark.parametrize("flexible", range(4))
def test_undeformed_flexible_link_is_the_rod(flexible):
    """Any link made flexible (3 sdes, classical): undeformed, the loop closes where the rigid one does and the
    mechanism has the rigid one's kinetic and potential energy at the same joint rates (the rfes fill the rod)."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(flexible=flexible, n_rfe=3, rfem="classical"))
    rigid = RSRRR()
    q4 = rigid.initial_position(0.8)
    qd4 = rigid.loop.dependent_velocities(q4, np.array([4.0]))
    q, qd = mech.expand(q4), mech.expand(qd4)
    np.testing.assert_allclose(mech.loop.closure(q), rigid.loop.closure(q4), atol=1e-15)
    np.testing.assert_allclose(mech.energy(q, qd), rigid.energy(q4, qd4), rtol=1e-12)
