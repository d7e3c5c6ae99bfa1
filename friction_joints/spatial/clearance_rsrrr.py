"""The RSRRR linkage of seed 002 with a radial clearance in one revolute joint and one flexible link
(seed 003 Sect. on clearance and on the rigid finite element method; issue 17 item 4).

Clearance: seed 002 has the journal of link p-1 turn in the bearing of link p. The joint's rotation
psi about its axis keeps its place in the chain, and before it the chain gets the relative motion of
the bearing's centre and axis in the journal's axis frame (massless links, ``clearance_links``):
  planar model (seed 003, Flores et al. 2006): two prismatic joints along x and y of that frame,
  the bearing centre at e = (x, y, 0) with its axis parallel to the journal's;
  spatial model (seed 003, after Marques et al. 2017): also the two tilts a, b of the bearing axis,
  u_B = Rx(a) Ry(b) e_z (intrinsic angles about x, then about the turned y).
Axial clearance is neglected (seed 003): the axial force and, in the planar model, the tilting
moments stay ideal reactions. The contact of ``friction_joints.contact`` (journal at rest at the
origin of the journal frame, bearing moving) gives the force F_B (3,) on the bearing and its moment M_B
about the bearing centre; their generalised forces follow from the virtual work
dW = F_B . d r_B + M_B . d phi_B with d r_B = (dx, dy, 0) and d phi_B = da e_x + db Rx(a) e_y + dpsi u_B:

    Q_x = F_B,x,  Q_y = F_B,y,  Q_a = M_B . e_x,  Q_b = M_B . Rx(a) e_y,  Q_psi = M_B . u_B.

The journal's radius is d_A / 2 and the spatial model's bearing length a_bar (seed 002 Table 1, the
spacing of the journal surfaces A and B, which the clearance contact replaces); the contact friction is
the regularised Coulomb law (``Tanh``, mu_k = mu_A, slip speed scale v_eps), zero at zero slip as the
contact package requires. Seed 002's eq. (7) at the journal surface (v_k = psid_k d_A / 2 = 50 um/s)
would make the tangential motion of the bearing about 50 times stiffer than its contact (a friction
slope mu F / v_k on a mass of a link), so v_eps is a parameter, 1 mm/s by default.
The joint keeps the face friction t_C of eq. (5.3) (mu_C) on its ideal axial thrust; its surfaces A
and B give no journal torque (mu_A = mu_B = 0 there).

Flexible link: ``rfem_links`` (modified or classical RFEM) replaces one rod, its first joint the
link's own (after the clearance links when both are in one joint).

Coordinates: the loop's chains hold the four joints of seed 002 at ``joints``, the clearance
coordinates at ``gap`` (2 planar, 4 spatial: x, y (m), a, b (rad)) and the sde coordinates at ``sde``.
The closure determines chain 2's three joints (``CutJointLoop.dependent``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..contact import Flores, PlanarClearance, SpatialClearance, cylinder_stiffness
from ..errors import check_parameters, require
from ..friction.laws import Tanh
from .chain import X_TO_Z, Y_TO_Z, Chain, Link, fixed
from .loop import CutJointLoop
from .rfem import APPROACHES, Beam, rfem_links
from .rsrrr import RSRRR, RSRRRParameters

MODELS = ("planar", "spatial")
# the start frame of each link's beam (along its x) in the link frame: the rods of ``RSRRR`` lie along x, (2,1) along z
BEAM_FRAMES = (np.eye(4), fixed(Y_TO_Z), np.eye(4), np.eye(4))


@dataclass(frozen=True)
class ClearanceParameters:
    """clearance (m): radial clearance c >= 0 (0: the ideal joint); joint: 0..3, which joint of (1,1),
    (2,1), (2,2), (2,3); model: "planar" or "spatial"; k_contact (N/m^1.5) > 0 or None, e_restitution in
    (0, 1]: the Flores et al. (2011) contact law (``contact.Flores``, for low restitution as well), K = k_contact
    or, with None, from the journal's radius, the clearance and the material E_joint (Pa) > 0, nu_joint in
    [0, 0.5) of journal and bearing (steel: ``stiffness``); n_slices:
    slices of the spatial model; v_eps (m/s) > 0: the slip speed scale of the contact friction;
    deltad0_min (m/s) > 0: the floor of the impact rate; flexible: 0..3,
    the flexible link; n_rfe >= 0: its sdes (0: rigid); rfem: "modified" or "classical"; E, G (Pa) its
    moduli; beta (s): stiffness-proportional damping of its sdes; kappa: shear coefficient (classical)."""

    clearance: float = 0.0
    joint: int = 2
    model: str = "planar"
    k_contact: float | None = None
    e_restitution: float = 0.9
    n_slices: int = 10
    v_eps: float = 1e-3
    deltad0_min: float = 1e-3
    flexible: int = 3
    n_rfe: int = 0
    rfem: str = "modified"
    E: float = 2.1e11
    G: float = 8.1e10
    beta: float = 1e-4
    kappa: float = 0.9
    E_joint: float = 2.1e11
    nu_joint: float = 0.3

    def __post_init__(self):
        problems = []
        require(problems, "clearance", self.clearance, 0.0)
        for name in ("joint", "flexible"):
            if getattr(self, name) not in range(4):
                problems.append(f"{name} must be 0, 1, 2 or 3 (joints (1,1), (2,1), (2,2), (2,3)), "
                                f"got {getattr(self, name)!r}")
        if self.model not in MODELS:
            problems.append(f"model must be one of {MODELS}, got {self.model!r}")
        if self.rfem not in APPROACHES:
            problems.append(f"rfem must be one of {APPROACHES}, got {self.rfem!r}")
        for name in ("n_slices", "n_rfe"):
            value, low = getattr(self, name), 1 if name == "n_slices" else 0
            if not isinstance(value, (int, np.integer)) or value < low:
                problems.append(f"{name} must be an integer >= {low}, got {value!r}")
        given = ("k_contact",) if self.k_contact is not None else ()
        for name in ("v_eps", "deltad0_min", "E", "G", "E_joint") + given:
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        require(problems, "nu_joint", self.nu_joint, 0.0, 0.5, high_open=True)
        require(problems, "e_restitution", self.e_restitution, 0.0, 1.0, low_open=True)
        require(problems, "beta", self.beta, 0.0)
        require(problems, "kappa", self.kappa, 0.0, 1.0, low_open=True)
        check_parameters(problems)

    def stiffness(self, R_J) -> float:
        """K (N/m^1.5) of the contact of a journal of radius R_J (m): k_contact, or with None the Hertz
        stiffness of that journal in its bearing of radius R_J + clearance (> 0), both of the material E_joint,
        nu_joint (``contact.cylinder_stiffness``, Flores et al. 2006)."""
        if self.k_contact is not None:
            return self.k_contact
        return cylinder_stiffness(R_J, R_J + self.clearance, self.E_joint, self.E_joint, self.nu_joint, self.nu_joint)


def massless(B, A, joint) -> Link:
    """A massless Link carrying only a joint frame."""
    return Link(m=0.0, c=(0.0, 0.0, 0.0), I_c=np.zeros((3, 3)), B=B, A=A, joint=joint)


def clearance_links(model, B) -> list:
    """The massless links of the bearing's motion in the journal's axis frame (the frame after B):
    prismatic x, y, and for the spatial model revolute a (about x), b (about the turned y)."""
    X, Y = fixed(X_TO_Z), fixed(Y_TO_Z)
    links = [massless(B @ X, X.T, "P"), massless(Y, Y.T, "P")]
    if model == "spatial":
        links += [massless(X, X.T, "R"), massless(Y, Y.T, "R")]
    return links


@dataclass(frozen=True)
class JointContact:
    """The clearance contact at one instant, in the journal's axis frame: Q (n,) its generalised forces;
    e (m) the eccentricity |r_B - r_J| (at the bearing centre); delta (m) the largest penetration and deltad
    (m/s) its rate;
    F (N) the contact force |F_B|; E_el (J) its elastic energy; P_damping, P_friction (W, <= 0) the powers
    of its hysteresis damping and friction."""

    Q: np.ndarray
    e: float
    delta: float
    deltad: float
    F: float
    E_el: float
    P_damping: float
    P_friction: float


class ClearanceRSRRR(RSRRR):
    """The RSRRR (``params``) with the clearance and flexible link of ``clearance`` (ClearanceParameters).
    With clearance 0 the joint is ideal (no clearance coordinates); with n_rfe 0 the link is the rod.
    The light rigid finite elements beside a joint make the fixed-point iteration of the reaction-friction
    coupling contract slowly: Newton's method takes over where it has not converged."""

    NEWTON_FALLBACK = True

    def __init__(self, params: RSRRRParameters = RSRRRParameters(), clearance=ClearanceParameters()):
        cp = clearance
        j = cp.joint
        journal = params.journals[j]
        if cp.clearance > 0:  # the contact replaces the journal surfaces A and B of this joint
            journals = list(params.journals)
            journals[j] = replace(journal, mu_A=0.0, mu_B=0.0)
            params = replace(params, journals=tuple(journals))
        super().__init__(params)
        self.c, self.rigid = cp, RSRRR(params)
        chains, joints, gap, sde = [], [], [], []
        offset = 0
        for chain, first in zip(self.loop.chains, (0, 1)):
            links = []
            for k, rigid in enumerate(chain.links):
                p, B = first + k, rigid.B
                if p == j and cp.clearance > 0:
                    gap += [offset + len(links) + i for i in range(2 if cp.model == "planar" else 4)]
                    links += clearance_links(cp.model, B)
                    B = np.eye(4)
                joints.append(offset + len(links))
                if p == cp.flexible and cp.n_rfe > 0:
                    flexible = rfem_links(self.beam(), cp.n_rfe, cp.rfem, cp.beta, B=B, A=rigid.A,
                                          frame=BEAM_FRAMES[p])
                    sde += [offset + len(links) + i for i in range(1, len(flexible))]
                    links += flexible
                else:
                    links.append(replace(rigid, B=B))
            chains.append(Chain(links, base=chain.base, gravity=chain.gravity))
            offset += len(links)
        self.loop = CutJointLoop(*chains, *self.loop.r_S, params.alpha, params.beta, self.loop.formulation,
                                 dependent=joints[1:])
        self.joints, self.gap, self.sde = np.array(joints), np.array(gap, int), np.array(sde, int)
        if cp.clearance > 0:
            R_J = journal.d_A / 2.0
            law = Flores(cp.e_restitution, cp.stiffness(R_J))
            friction = Tanh(journal.mu_A, cp.v_eps) if params.friction else None
            self.clearance_joint = (PlanarClearance(R_J, R_J + cp.clearance, law, friction) if cp.model == "planar"
                                    else SpatialClearance(R_J, R_J + cp.clearance, journal.a_bar, law, friction,
                                                          cp.n_slices))
        else:
            self.clearance_joint = None

    def beam(self) -> Beam:
        """The Beam of the flexible link (a solid round rod, as ``rod``)."""
        p, cp = self.p, self.c
        return Beam.circular(p.l[cp.flexible], p.d, p.density, cp.E, cp.G, cp.kappa)

    def expand(self, q4) -> np.ndarray:
        """Loop coordinates (n,) with the four joints at q4 (4,) and every other coordinate zero."""
        q = np.zeros(self.loop.n)
        q[self.joints] = q4
        return q

    def initial_position(self, psi11=np.pi / 2) -> np.ndarray:
        """q (n,) of the rigid linkage's start (``RSRRR.initial_position``), undeformed, journal centred."""
        return self.expand(self.rigid.initial_position(psi11))

    def strain_energy(self, q) -> float:
        """The sdes' strain energy (J)."""
        return sum(chain.strain_energy(qc) for chain, qc in zip(self.loop.chains, self.loop.split(q)))

    def structural_power(self, qd) -> float:
        """Power (W, <= 0) of the sdes' dampers, -sum d qd^2."""
        qd = np.asarray(qd, float)
        d = np.concatenate([chain.d for chain in self.loop.chains])
        return -float(d @ (qd * qd))

    # --- the clearance contact --------------------------------------------------------------------------
    def bearing_pose(self, q, qd):
        """(r_B, u_B, v_B, omega_B) (3,) each: the bearing's centre (m), axis, velocity (m/s) and angular
        velocity (rad/s) in the journal's axis frame."""
        g = self.gap
        x, y = q[g[:2]]
        r_B, v_B = np.array([x, y, 0.0]), np.array([qd[g[0]], qd[g[1]], 0.0])
        e_x, e_y, e_z = np.eye(3)
        if len(g) == 2:
            return r_B, e_z, v_B, qd[self.joints[self.c.joint]] * e_z
        a, b = q[g[2:]]
        ca, sa, cb, sb = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
        y_a = np.array([0.0, ca, sa])  # Rx(a) e_y
        u_B = np.array([sb, -sa * cb, ca * cb])  # Rx(a) Ry(b) e_z
        return r_B, u_B, v_B, qd[g[2]] * e_x + qd[g[3]] * y_a + qd[self.joints[self.c.joint]] * u_B

    def penetration(self, q) -> float:
        """The largest penetration (m): the event function of contact detection."""
        r_B, u_B, _, _ = self.bearing_pose(q, np.zeros(self.loop.n))
        if len(self.gap) == 2:
            return self.clearance_joint.penetration(np.zeros(2), r_B[:2])
        return self.clearance_joint.penetration(np.zeros(3), np.array([0.0, 0.0, 1.0]), r_B, u_B)

    def contact(self, q, qd, deltad0) -> JointContact:
        """The clearance contact at (q, qd) with the impact rate deltad0 (m/s) of the current contact."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        r_B, u_B, v_B, omega_B = self.bearing_pose(q, qd)
        law = self.clearance_joint.law
        Q = np.zeros(self.loop.n)
        if len(self.gap) == 2:
            k = self.clearance_joint.contact(np.zeros(2), np.zeros(2), 0.0, r_B[:2], v_B[:2], omega_B[2], deltad0)
            Q[self.gap], Q[self.joints[self.c.joint]] = k.F_B, k.M_B
            delta, deltad, F_n = np.array([k.delta]), np.array([k.deltad]), np.array([k.F_n])
            F_el, E_el, F = law.elastic(delta), float(law.energy(k.delta)), float(np.hypot(*k.F_B))
        else:
            zero, e_z = np.zeros(3), np.array([0.0, 0.0, 1.0])
            k = self.clearance_joint.contact(zero, e_z, zero, zero, r_B, u_B, v_B, omega_B, deltad0)
            a = q[self.gap[2]]
            Q[self.gap] = k.F_B[0], k.F_B[1], k.M_B[0], k.M_B @ np.array([0.0, np.cos(a), np.sin(a)])
            Q[self.joints[self.c.joint]] = k.M_B @ u_B
            delta, deltad, F_n, F_el = k.delta, k.deltad, k.F_n, k.F_el
            _, w = self.clearance_joint.slices()
            E_el, F = float(w @ law.energy(delta)) / self.clearance_joint.L, float(np.linalg.norm(k.F_B))
        normal = float(F_n @ deltad)  # the normal forces' power is -sum F_n deltad
        i = int(np.argmax(delta))
        return JointContact(Q, float(np.hypot(r_B[0], r_B[1])), float(delta[i]), float(deltad[i]), F, E_el,
                            -float((F_n - F_el) @ deltad), float(Q @ qd) + normal)
