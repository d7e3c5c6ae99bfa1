"""Prismatic joints, joint spring-dampers and flexible links by the rigid finite element method (seed 003,
``spatial.rfem``): the two open-chain formulations agree on mixed joint kinds, the Newton-Euler
reactions carry the new joints, and the RFEM cantilever converges to the beam theory values with the
rates derived in the comments."""

import numpy as np
import pytest
import scipy.linalg as sl
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from friction_joints.spatial import Chain, Link, energy, lagrange_trace, recursive
from friction_joints.spatial.dynamics import point_terms, point_terms_trace
from friction_joints.spatial.loop import CutJointLoop
from friction_joints.spatial.reactions import newton_euler
from friction_joints.spatial.rfem import Beam, rfem_links
from friction_joints.spatial.rsrrr import RSRRR, rod
from test_spatial_chain import random_chain
from test_spatial_loop import assert_point_terms_are_derivatives

BETA_1L = 1.8751040687119611  # first root of cos(x) cosh(x) = -1 (clamped-free Euler-Bernoulli beam)


def mixed_chain(rng, n, tree):
    """random_chain with random joint kinds (R, P) and random joint spring-dampers."""
    chain = random_chain(rng, n, tree)
    links = [Link(m=link.m, c=link.c, I_c=link.I_c, B=link.B, A=link.A, joint=str(rng.choice(["R", "P"])),
                  k=rng.uniform(0.0, 50.0), d=rng.uniform(0.0, 2.0)) for link in chain.links]
    return Chain(links, chain.base, chain.gravity, chain.parents)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.booleans())
def test_formulations_agree_with_prismatic_joints_and_springs(seed, n, tree):
    """A, e of the trace form (Delta_i from Q or Q_P) and of the recursive form (motion axes [z; o x z] or
    [0; z]); the point terms of both; the Newton-Euler axis components (n_z of a revolute joint, f_z of a
    prismatic one) equal the generalised joint forces A qdd - e - J^T F + tau_s of the Lagrange form."""
    rng = np.random.default_rng(seed)
    chain = mixed_chain(rng, n, tree)
    q, qd, qdd = rng.normal(size=n), rng.normal(size=n) * 2, rng.normal(size=n)
    A1, e1 = lagrange_trace(chain, q, qd)
    A, e = recursive(chain, q, qd)
    np.testing.assert_allclose(A1, A, rtol=1e-10, atol=1e-10 * np.abs(A).max())
    np.testing.assert_allclose(e1, e, rtol=1e-10, atol=1e-10 * max(np.abs(e).max(), 1.0))
    r, F, link = rng.normal(size=3), rng.normal(size=3) * 10, int(rng.integers(0, n))
    DT, c = point_terms_trace(chain, q, qd, r, link)
    J, b = point_terms(chain, q, qd, r, link)
    np.testing.assert_allclose(J, DT, atol=1e-12 * max(1.0, np.abs(DT).max()))
    np.testing.assert_allclose(b, c, atol=1e-11 * max(1.0, np.abs(c).max()))
    f_O, n_O = newton_euler(chain, q, qd, qdd, F, r, link)
    tau = A @ qdd - e - J.T @ F + chain.spring_forces(q, qd)
    axial = np.where(np.array(chain.kinds) == "R", n_O[:, 2], f_O[:, 2])
    np.testing.assert_allclose(axial, tau, atol=1e-11 * max(1.0, np.abs(tau).max()))


def test_prismatic_point_terms_are_the_derivatives_of_the_point():
    """J = dP/dq and b = d2P/dt2 at qdd = 0 by central differences, with prismatic joints."""
    rng = np.random.default_rng(11)
    chain = mixed_chain(rng, 5, False)
    assert "P" in chain.kinds and "R" in chain.kinds
    assert_point_terms_are_derivatives(chain, rng.normal(size=5), rng.normal(size=5), rng.normal(size=3))


def test_undamped_mixed_chain_conserves_energy():
    """Kinetic + potential + strain energy is constant without dampers: a sign or a missing term in the
    prismatic kinematics or the springs would break it."""
    rng = np.random.default_rng(5)
    chain = mixed_chain(rng, 4, False)
    chain = Chain([Link(m=l.m, c=l.c, I_c=l.I_c, B=l.B, A=l.A, joint=l.joint, k=l.k) for l in chain.links],
                  chain.base, chain.gravity)

    def rhs(t, y):
        A, e = recursive(chain, y[:4], y[4:])
        return np.concatenate((y[4:], np.linalg.solve(A, e)))

    y0 = np.concatenate((0.3 * rng.normal(size=4), rng.normal(size=4)))
    sol = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-11, atol=1e-12, dense_output=True)

    def total(y):
        return sum(energy(chain, y[:4], y[4:])) + chain.strain_energy(y[:4])

    E = [total(sol.sol(t)) for t in np.linspace(0.0, 1.0, 11)]
    assert np.ptp(E) <= 1e-8 * max(abs(v) for v in (*energy(chain, y0[:4], y0[4:]), chain.strain_energy(y0[:4])))


# --- RFEM -----------------------------------------------------------------------------------------------

def rectangular(L=1.0, b=0.02, h=0.01, E=2.1e11, G=8.1e10, rho=7850.0):
    """A steel bar b x h (y x z) with the torsion constant of a 2:1 rectangle, J = 0.229 b h^3."""
    return Beam(L=L, A=b * h, I_y=b * h**3 / 12.0, I_z=h * b**3 / 12.0, J=0.229 * b * h**3, rho=rho, E=E, G=G)


def cantilever(beam, n, approach):
    """(chain, K, M, J_tip) of the beam clamped at its root: joint 0 (the link's own joint) removed;
    K, M the stiffness and mass matrices of the sde coordinates at q = 0, J_tip (3, .) the tip's Jacobian."""
    chain = Chain(rfem_links(beam, n, approach), gravity=(0.0, 0.0, 0.0))
    zero = np.zeros(chain.n)
    A, _ = recursive(chain, zero, zero)
    J, _ = point_terms(chain, zero, zero, (beam.L, 0.0, 0.0))
    return chain, np.diag(chain.k[1:]), A[1:, 1:], J[:, 1:]


def tip_deflection(beam, n, approach, F):
    """Static tip displacement (3,) under the tip force F (3,), linear: K dq = J^T F."""
    _, K, _, J = cantilever(beam, n, approach)
    return J @ np.linalg.solve(K, J.T @ np.asarray(F, float))


def observed_order(errors, ns):
    return np.log(np.abs(errors[:-1] / errors[1:])) / np.log(np.asarray(ns[1:]) / np.asarray(ns[:-1]))


def test_cantilever_tip_deflection_converges_with_order_two():
    """Tip load F along z (bending about y, I_y) and along y (about z, I_z): the sdes give the midpoint
    rule of int F (L - x)^2 / (E I) dx, so delta_n = F L^3 / (3 E I) (1 - 1 / (4 n^2)) exactly (module
    docstring): relative error -1/(4 n^2), order 2."""
    beam, F = rectangular(), 3.0
    ns = [1, 2, 4, 8, 16]
    for axis, I in ((2, beam.I_y), (1, beam.I_z)):
        load = np.zeros(3)
        load[axis] = F
        exact = F * beam.L**3 / (3.0 * beam.E * I)
        errors = np.array([tip_deflection(beam, n, "modified", load)[axis] / exact - 1.0 for n in ns])
        np.testing.assert_allclose(errors, [-1.0 / (4 * n * n) for n in ns], rtol=1e-9)
        np.testing.assert_allclose(observed_order(errors, ns), 2.0, rtol=1e-8)


@pytest.mark.parametrize("approach", ["modified", "classical"])
def test_own_weight_sag_from_the_nonlinear_equations_converges_with_order_two(approach):
    """Static equilibrium of the chain's own equations, e(q, 0) = 0 for the sde coordinates (joint 0
    clamped), under gravity: the rfes beyond sde i cover [x_i, L], so its moment is the exact w (L - x_i)^2
    / 2 (w = rho A g) and the tip sag is the midpoint rule of int w (L - x)^3 / (2 E I) dx, w L^4 / (8 E I)
    (1 - 1 / (2 n^2)) (derived here; the classical approach adds the shear sag w L^2 / (2 G A)). A stiff
    bar keeps the geometric nonlinearity, of order (sag / L)^2, below 1e-8."""
    beam = rectangular(L=0.5, b=0.04, h=0.04)
    w = beam.rho * beam.A * 9.81
    bending = w * beam.L**4 / (8.0 * beam.E * beam.I_y)
    shear = w * beam.L**2 / (2.0 * beam.G * beam.A) if approach == "classical" else 0.0
    errors = []
    for n in (2, 4, 8):
        chain = Chain(rfem_links(beam, n, approach), gravity=(0.0, 0.0, -9.81))
        q = np.zeros(chain.n)
        for _ in range(4):  # q <- q + K^-1 e(q, 0): the springs dominate, contraction ~ (sag / L)
            q[1:] += recursive(chain, q, 0 * q)[1][1:] / chain.k[1:]
        assert np.abs(recursive(chain, q, 0 * q)[1][1:]).max() < 1e-12 * w * beam.L**2
        sag = -(chain.frames(q)[0][-1] @ np.array([beam.L, 0.0, 0.0, 1.0]))[2]
        exact_n = bending * (1.0 - 1.0 / (2 * n * n)) + shear
        assert sag == pytest.approx(exact_n, rel=1e-7)
        errors.append(sag / (bending + shear) - 1.0)
    np.testing.assert_allclose(observed_order(np.array(errors), [2, 4, 8]), 2.0, atol=1e-5)


def test_classical_approach_adds_shear_stretching_is_exact():
    """Classical = modified + the shear deflection F L / (kappa G A) (n springs kappa G A / l in series)
    for a transverse load; a tip torque turns the tip by T L / (G J) and an axial force stretches the
    beam by F L / (E A), exactly for every n."""
    beam, F = rectangular(), 2.0
    shear_5_6 = Beam(**{**beam.__dict__, "kappa": 5.0 / 6.0})
    for n in (1, 3, 6):
        modified = tip_deflection(beam, n, "modified", (0.0, 0.0, F))[2]
        classical = tip_deflection(beam, n, "classical", (0.0, 0.0, F))[2]
        assert classical - modified == pytest.approx(F * beam.L / (beam.G * beam.A), rel=1e-9)
        assert tip_deflection(shear_5_6, n, "classical", (0.0, F, 0.0))[1] - tip_deflection(
            shear_5_6, n, "modified", (0.0, F, 0.0))[1] == pytest.approx(1.2 * F * beam.L / (beam.G * beam.A), rel=1e-9)
        assert tip_deflection(beam, n, "classical", (F, 0.0, 0.0))[0] == pytest.approx(
            F * beam.L / (beam.E * beam.A), rel=1e-9)
        chain, K, _, _ = cantilever(beam, n, "modified")
        torsion = np.array([l.joint == "R" and abs(l.B[0, 2]) == 1.0 for l in chain.links[1:]])  # about x
        assert np.sum(F / np.diag(K)[torsion]) == pytest.approx(F * beam.L / (beam.G * beam.J), rel=1e-12)


def first_frequencies(beam, n, approach):
    """{(kind, axis): lowest angular frequency (rad/s)} of the clamped beam, each mode assigned to the
    group of sde coordinates that holds most of its strain energy: ("R", 1) bending about y, ("R", 2)
    about z, ("R", 0) torsion."""
    chain, K, M, _ = cantilever(beam, n, approach)
    w2, V = sl.eigh(K, M)
    groups = [(link.joint, int(np.argmax(np.abs(link.B[:3, 2])))) for link in chain.links[1:]]
    first = {}
    for j in range(len(w2)):
        share = {}
        for g, strain in zip(groups, np.diag(K) * V[:, j] ** 2):
            share[g] = share.get(g, 0.0) + strain
        first.setdefault(max(share, key=share.get), np.sqrt(w2[j]))
    return first


def test_first_bending_frequency_converges_to_euler_bernoulli_with_order_two():
    """omega_1 -> 1.875^2 sqrt(E I / (rho A L^4)) in both bending planes; the error falls as n^-2 (observed
    order 1.95-2.05 from n = 4 to 16). The bar is slender (L / b = 250) so that the rotary inertia of the
    section, a Rayleigh-beam effect of order (r / L)^2 that Euler-Bernoulli neglects (measured: about
    2.3 (r / L)^2, r^2 = I / A), stays near 3e-6, below the n^-2 error."""
    beam, ns = rectangular(b=0.004, h=0.002), [4, 8, 16]
    freqs = [first_frequencies(beam, n, "modified") for n in ns]
    for group, I in ((("R", 1), beam.I_y), (("R", 2), beam.I_z)):
        exact = BETA_1L**2 * np.sqrt(beam.E * I / (beam.rho * beam.A * beam.L**4))
        errors = np.array([f[group] / exact - 1.0 for f in freqs])
        assert np.all(errors > 0) and errors[-1] < 1e-3
        assert np.all(np.abs(observed_order(errors, ns) - 2.0) < 0.05), (group, errors)


def test_first_torsion_frequency_matches_the_lumped_chain_and_saint_venant():
    """In torsion the rfes are discs (rho I_p l, the last l/2) on shafts G J / l, the clamped-free chain
    of springs and masses with a half mass at the free end, whose first frequency is, exactly,
    omega_1 = (2 n / L) sqrt(G J / (rho I_p)) sin(pi / (4 n)) -> (pi / 2L) sqrt(G J / (rho I_p)) (Saint-Venant),
    error -pi^2 / (96 n^2): order 2."""
    beam, ns = rectangular(), [2, 4, 8, 16]
    c = np.sqrt(beam.G * beam.J / (beam.rho * (beam.I_y + beam.I_z)))
    exact = np.pi / (2.0 * beam.L) * c
    errors = []
    for n in ns:
        omega = first_frequencies(beam, n, "modified")[("R", 0)]
        assert omega == pytest.approx(2.0 * n / beam.L * c * np.sin(np.pi / (4 * n)), rel=1e-9)
        errors.append(omega / exact - 1.0)
    np.testing.assert_allclose(observed_order(np.array(errors), ns), 2.0, atol=0.01)
    assert errors[-1] == pytest.approx(-np.pi**2 / (96 * ns[-1] ** 2), rel=1e-2)


def test_modified_and_classical_agree_in_bending_of_a_slender_beam():
    """The classical approach adds shear flexibility, which lowers the bending frequency by a fraction of
    order E I / (G A L^2) ~ (h / L)^2: the two approaches agree to 1e-4 for h / L = 0.01, and halving h
    divides their difference by 4 (a shear effect, not a discretisation one)."""
    differences = []
    for h in (0.02, 0.01):
        beam = rectangular(b=2 * h, h=h)
        m, c = (first_frequencies(beam, 8, a)[("R", 1)] for a in ("modified", "classical"))
        differences.append((m - c) / m)
    assert 0 < differences[1] < 1e-4
    assert differences[0] / differences[1] == pytest.approx(4.0, rel=0.02)


def test_n_zero_is_the_rigid_rod_and_a_flexible_link_is_a_drop_in_replacement():
    """n = 0 gives the rod of the RSRRR model (the same mass, centre and inertia); for n > 0 at zero
    deflection the last link's frame is the rigid link's frame, the inertia felt by the link's own joint
    is the rigid one and so is its gravity torque."""
    L, d, rho = 0.3, 0.028, 7850.0
    beam = Beam.circular(L=L, d=d, rho=rho, E=2.1e11, G=8.1e10)
    to_z = np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # beam x along the link's z
    frame = np.eye(4)
    frame[:3, :3] = to_z
    for axis, fr in ((0, np.eye(4)), (2, frame)):
        rigid = rod(L, d, rho, axis)
        (link,) = rfem_links(beam, 0, frame=fr)
        assert link.m == pytest.approx(rigid.m, rel=1e-12)
        np.testing.assert_allclose(link.c, rigid.c, atol=1e-15)
        np.testing.assert_allclose(link.I_c, rigid.I_c, rtol=1e-12, atol=1e-18)
        for approach in ("modified", "classical"):
            base = np.eye(4)
            base[:3, :3] = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]  # a horizontal joint axis
            flexible = Chain(rfem_links(beam, 3, approach, frame=fr), base=base)
            stiff = Chain([rigid], base=base)
            q = np.zeros(flexible.n)
            q[0] = 0.4
            A_f, e_f = recursive(flexible, q, np.zeros(flexible.n))
            A_r, e_r = recursive(stiff, q[:1], np.zeros(1))
            np.testing.assert_allclose(flexible.frames(q)[0][-1], stiff.frames(q[:1])[0][0], atol=1e-15)
            assert A_f[0, 0] == pytest.approx(A_r[0, 0], rel=1e-12)
            assert e_f[0] == pytest.approx(e_r[0], rel=1e-12)


@pytest.mark.parametrize("approach", ["modified", "classical"])
def test_formulations_agree_on_a_deflected_rfem_link(approach):
    """The trace and the recursive formulations on a flexible link of 2 sdes in a random, large deflection,
    with dampers: the chain of massless frames and rfes is an ordinary chain to both."""
    rng = np.random.default_rng(3)
    chain = Chain(rfem_links(rectangular(L=0.4), 2, approach, beta=1e-3), gravity=(0.0, -9.81, 0.0))
    q, qd = 0.2 * rng.normal(size=chain.n), rng.normal(size=chain.n)
    A1, e1 = lagrange_trace(chain, q, qd)
    A, e = recursive(chain, q, qd)
    np.testing.assert_allclose(A1, A, rtol=1e-10, atol=1e-12 * np.abs(A).max())
    np.testing.assert_allclose(e1, e, rtol=1e-10, atol=1e-12 * np.abs(e).max())


@pytest.mark.parametrize("approach", ["modified", "classical"])
def test_flexible_link_inside_a_tree_is_the_rigid_one_when_its_sdes_are_locked(approach):
    """A tree of random rigid links with link 1 a beam (two links hang from it), rigid and flexible (3
    sdes): at zero deflection and zero sde velocities the flexible chain is the rigid one with its sdes
    locked, so the real joints see the same frames, mass matrix and bias forces (e_k of the Lagrange
    equations involves only derivatives of A along the real coordinates)."""
    rng = np.random.default_rng(8)
    others = random_chain(rng, 4).links
    beam = rectangular(L=0.6, b=0.03, h=0.02)
    frame = np.eye(4)
    frame[:3, :3] = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]  # the beam along the link's -z
    B, A = others[1].B, others[1].A
    rigid = Chain([others[0], rfem_links(beam, 0, B=B, A=A, frame=frame)[0]] + others[2:],
                  base=random_chain(rng, 1).base, gravity=(1.0, -2.0, -9.81), parents=(-1, 0, 1, 1))
    flex_links = rfem_links(beam, 3, approach, B=B, A=A, frame=frame)
    last = len(flex_links)  # index of the flexible link's last link in the flexible chain
    flexible = Chain([others[0]] + flex_links + others[2:], rigid.base, rigid.gravity,
                     parents=(-1, *range(last), last, last))
    real = [0, 1, last + 1, last + 2]
    q, qd = np.zeros(flexible.n), np.zeros(flexible.n)
    q[real], qd[real] = rng.normal(size=4), rng.normal(size=4)
    T_f, _ = flexible.frames(q)
    T_r, _ = rigid.frames(q[real])
    np.testing.assert_allclose(T_f[[0, last, last + 1, last + 2]], T_r, atol=1e-14)
    A_f, e_f = recursive(flexible, q, qd)
    A_r, e_r = recursive(rigid, q[real], qd[real])
    np.testing.assert_allclose(A_f[np.ix_(real, real)], A_r, rtol=1e-12, atol=1e-13 * np.abs(A_r).max())
    np.testing.assert_allclose(e_f[real], e_r, rtol=1e-12, atol=1e-12 * np.abs(e_r).max())


def free_vibration(chain, y0, t_end, rhs_of):
    """Integrate (q, qd, W_d) with dW_d/dt = qd . (-d qd), the work of the dampers; returns the solution."""
    n = chain.n

    def rhs(t, y):
        qdd, = rhs_of(y[:n], y[n:2 * n])
        return np.concatenate((y[n:2 * n], qdd, [-y[n:2 * n] @ (chain.d * y[n:2 * n])]))

    return solve_ivp(rhs, (0.0, t_end), np.append(y0, 0.0), method="DOP853", rtol=1e-9, atol=1e-11,
                     dense_output=True)


@pytest.mark.parametrize("approach, n", [("modified", 2), ("classical", 1)])
def test_energy_balance_of_a_damped_flexible_pendulum(approach, n):
    """A flexible link swinging about a horizontal axis, its sdes deflected at the start, with dampers
    d = beta k: E_kin + E_pot + E_strain - W_d stays at its initial value, and W_d (the dampers' work)
    is negative and not negligible."""
    beam = Beam.circular(L=0.5, d=0.02, rho=7850.0, E=5e7, G=5e7 / 2.6)  # soft: few steps
    base = np.eye(4)
    base[:3, :3] = [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]  # joint z axis = global -y
    chain = Chain(rfem_links(beam, n, approach, beta=2e-3), base=base, gravity=(0.0, 0.0, -9.81))
    q0 = np.full(chain.n, 0.01 if approach == "modified" else 1e-4)
    q0[0] = 0.5

    def accelerations(q, qd):
        A, e = recursive(chain, q, qd)
        return (np.linalg.solve(A, e),)

    sol = free_vibration(chain, np.concatenate((q0, np.zeros(chain.n))), 0.1, accelerations)

    def balance(y):
        q, qd = y[:chain.n], y[chain.n:2 * chain.n]
        return sum(energy(chain, q, qd)) + chain.strain_energy(q) - y[-1]

    start = balance(sol.sol(0.0))
    W_d = sol.sol(0.1)[-1]
    assert W_d < -1e-3 * chain.strain_energy(q0)
    scale = abs(energy(chain, q0, np.zeros(chain.n))[1]) + chain.strain_energy(q0)
    for t in np.linspace(0.0, 0.1, 6):
        assert balance(sol.sol(t)) == pytest.approx(start, abs=1e-8 * scale)


def test_flexible_crank_in_the_rsrrr_loop_closes_and_conserves_energy():
    """The RSRRR crank (chain 1) replaced by a flexible link of 2 sdes: at zero deflection the loop closes
    where the rigid one does; a free run of the cut form (no friction, no dampers, no Baumgarte) keeps
    E_kin + E_pot + E_strain and the closure."""
    mech = RSRRR()
    p = mech.p
    rigid = mech.loop
    beam = Beam.circular(L=p.l[0], d=p.d, rho=p.density, E=2e7, G=2e7 / 2.6)  # soft: few steps
    chain1 = Chain(rfem_links(beam, 2, "modified"), gravity=rigid.chains[0].gravity)
    loop = CutJointLoop(chain1, rigid.chains[1], rigid.r_S[0], rigid.r_S[1])
    q_r = mech.initial_position()
    q = np.concatenate((q_r[:1], np.zeros(chain1.n - 1), q_r[1:]))
    np.testing.assert_allclose(loop.closure(q), rigid.closure(q_r), atol=1e-15)
    qd = np.zeros(loop.n)
    qd[0] = 2.0
    qd = loop.dependent_velocities(q, qd[:loop.n1])

    def rhs(t, y):
        qdd, _ = loop.solve(y[:loop.n], y[loop.n:], np.zeros(loop.n))
        return np.concatenate((y[loop.n:], qdd))

    sol = solve_ivp(rhs, (0.0, 0.02), np.concatenate((q, qd)), method="DOP853", rtol=1e-10, atol=1e-12,
                    dense_output=True)

    def total(y):
        q1, q2 = loop.split(y[:loop.n])
        qd1, qd2 = loop.split(y[loop.n:])
        return (sum(energy(chain1, q1, qd1)) + sum(energy(loop.chains[1], q2, qd2)) + chain1.strain_energy(q1))

    E0 = total(sol.sol(0.0))
    kinetic = energy(chain1, *loop.split(q)[:1], qd[:loop.n1])[0]
    for t in np.linspace(0.0, 0.02, 6):
        y = sol.sol(t)
        assert total(y) == pytest.approx(E0, abs=1e-7 * kinetic)
        assert np.abs(loop.closure(y[:loop.n])).max() < 1e-9
    assert np.abs(sol.y[1:loop.n1]).max() > 1e-6  # the crank did deflect


def test_bad_beam_and_joint_data_name_the_parameter():
    with pytest.raises(ValueError, match="kappa"):
        Beam(L=1.0, A=1e-4, I_y=1e-9, I_z=1e-9, J=1e-9, rho=7850.0, E=2e11, G=8e10, kappa=1.5)
    with pytest.raises(ValueError, match="I_y"):
        Beam(L=1.0, A=1e-4, I_y=0.0, I_z=1e-9, J=1e-9, rho=7850.0, E=2e11, G=8e10)
    with pytest.raises(ValueError, match=r"L=-1.*E=nan"):
        Beam(L=-1.0, A=1e-4, I_y=1e-9, I_z=1e-9, J=1e-9, rho=7850.0, E=float("nan"), G=8e10)
    beam = rectangular()
    with pytest.raises(ValueError, match="n must be an integer"):
        rfem_links(beam, -1)
    with pytest.raises(ValueError, match="approach"):
        rfem_links(beam, 2, "timoshenko")
    with pytest.raises(ValueError, match="beta"):
        rfem_links(beam, 2, beta=-1.0)
    with pytest.raises(ValueError, match="joint"):
        Link(m=1.0, c=(0, 0, 0), I_c=np.eye(3), joint="S")
    with pytest.raises(ValueError, match=r"k=-1.*d=-2"):
        Link(m=1.0, c=(0, 0, 0), I_c=np.eye(3), k=-1.0, d=-2.0)
    with pytest.raises(ValueError, match="massless"):
        Link(m=0.0, c=(0, 0, 0), I_c=np.eye(3))


def test_the_compiled_engine_leaves_joint_springs_to_the_python_engine():
    """The compiled RSRRR kernels have revolute joints without springs: a crank with a joint spring is
    not packed (the Python engine runs it) rather than run without its spring."""
    from friction_joints.spatial.packing import pack
    from friction_joints.spatial.system import RSRRRSystem

    mech = RSRRR()
    assert pack(RSRRRSystem(mech, [0.0, 0.0])) is not None
    crank = mech.loop.chains[0]
    link = crank.links[0]
    sprung = Chain([Link(m=link.m, c=link.c, I_c=link.I_c, B=link.B, A=link.A, k=5.0)], crank.base, crank.gravity)
    mech.loop = CutJointLoop(sprung, *mech.loop.chains[1:], *mech.loop.r_S)
    assert pack(RSRRRSystem(mech, [0.0, 0.0])) is None
