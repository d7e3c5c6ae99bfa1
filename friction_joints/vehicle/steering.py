"""A rack-and-pinion steering system with dry friction and freeplay, as a lumped model in the
spirit of seed 001 (luz/tar, Karnopp-compatible exact stick-slip; Lozia & Zardecki's steering models
cited there).

Coordinates (SI, positive = steering to the left):
    theta_sw  steering wheel and upper column (rad)     theta_p  pinion and lower column (rad)
    x         rack (m)                                  delta_L, delta_R  road wheels about their
                                                        king-pins (rad)
Equations (every friction element acts on one coordinate against the ground, so the elements stick
and slip independently: no stuck element's holding force depends on another's):

    J_sw thdd_sw = tau_sw - T_c,                        T_c = k_c (th_sw - th_p) + c_c (thd_sw - thd_p)
    J_p  thdd_p  = T_c - r_p F_g + T_fp,                F_g = k_g luz(r_p th_p - x, b)   (freeplay 2 b)
    m_r  xdd     = F_g - F_tL - F_tR + F_fr,            F_ti = k_t (x - l_a delta_i) + c_t (xd - l_a deltad_i)
    J_w  deltadd_i = l_a F_ti + M_z,i - c_w deltad_i + T_fk,i

with luz(x, b) = x + (|x - b| - |x + b|)/2 (seed 001 Sect. 2): zero inside the freeplay, the mesh
stiffness k_g outside. The frictions T_fp (pinion bearings), F_fr (rack in its housing) and T_fk,i
(king-pins) are Coulomb with static and kinetic levels; a king-pin's levels follow its load,
T_k = mu_k r_k (|F_z,i| + |F_ti|) (vertical wheel load plus the tie-rod force it carries). In slip the
friction is -level_kinetic sgn(v); at v = 0 the element sticks (v = 0 exactly, acceleration 0)
while the acting force is within the static level, and breaks away when it leaves it, a located
event (the luz form of seed 001 Sect. 2 per element: acceleration = luz(F_acting, static level)/mass).

Rack end stops (the project's own addition, issue 32, not an equation of the seeds): the rack travels
+-rack_travel freely; beyond, a stiff damped contact (the rack's inner ball joints against the housing
ends with their damping rings) pushes it back,

    F_stop = -s max(0, k_stop pen + c_stop pend),    pen = s x - rack_travel,   s = +1 at the left end stop
    (x = +rack_travel, full left lock), -1 at the right one,

added to the rack's equation (m_r xdd = F_g - F_tL - F_tR + F_stop + F_fr). The contact only pushes: it
pushes while pen > 0 and k_stop pen + c_stop pend > 0. The mode says where the rack is (``Mode.stop``): 0
within the travel (pen <= 0 at both ends), s on stop s (pushing), 2 s released from stop s with pen > 0
still (the rack leaves faster than the stop's spring relaxes, k_stop pen + c_stop pend < 0: no force). Every
change is a located event, so the right-hand side is smooth within a mode: contact (k_stop pen rising
through 0 from within the travel, or k_stop pen + c_stop pend rising through 0 after a release), release
(k_stop pen + c_stop pend falling through 0) and clear (k_stop pen falling through 0 after a release). At
the contact the damper's force c_stop pend appears at once (a Kelvin-Voigt contact). Energy: the stop's
spring holds k_stop luz(x, rack_travel)^2 / 2 (in E_spring, in every mode); the rest of the stop's power,
(F_stop + k_stop luz(x, rack_travel)) xd, is -c_stop pend^2 on the stop and k_stop pen pend < 0 after a
release (the spring's energy the clipped force leaves behind is dissipated), and goes to W_damping: the
stop never adds energy. (That rate takes luz on the branch of the mode, so that it is smooth within the
mode and the steps that end at an event are not spoilt by luz's kink beyond it.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..hybrid.integrator import DrivenSystem, Event
from ..lumped.projections import luz

ELEMENTS = ("pinion", "rack", "kingpin_left", "kingpin_right")
ZERO_VELOCITY = 1e-9  # rad/s or m/s
BREAKAWAY_MARGIN = 1e-9  # N.m or N: an element with no load (static level 0) at rest needs a force to move
# the rack's end stops: s = +1 at x = +rack_travel (full left lock), -1 at x = -rack_travel
STOPS = {1: "left", -1: "right"}
# the end stops' events, each with its stop
EDGE_EVENTS = {f"{kind}_stop_{name}": stop for stop, name in STOPS.items() for kind in ("contact", "release", "clear")}
# an element's change in a mode decision (mode_change): unchanged, sticks, slips
ELEMENT_CHANGES = (None, "stick", "slip")
# the end stops' change in a mode decision (mode_change): none, onto a stop, off it beyond the travel (or, at
# the start, beyond it unpushed), back within the travel
STOP_CHANGES = (None, "contact", "release", "clear")


@dataclass(frozen=True)
class SteeringParameters:
    """Typical passenger-car values, each with its reasoning (sources: Pfeffer & Harrer, Steering
    Handbook, Springer 2017, ch. 3-4 and 7; Lozia & Zardecki, SAE 2002-01-0619):

    J_sw 0.04 kg.m2: steering wheel (0.03) plus upper column; k_c 300 N.m/rad, c_c 0.3 N.m.s/rad:
    column with intermediate shaft and joints (manual steering, no torsion bar); J_p 1e-3 kg.m2:
    pinion and lower column; r_p 7.5 mm/rad: rack travel 47 mm per pinion turn; k_g 5e5 N/m: tooth
    mesh and housing mounts; b 0.05 mm: half the rack-pinion backlash (about +-0.4 deg at the wheel,
    a new gear); m_r 3 kg: rack with inner tie-rod parts; k_t 2e5 N/m, c_t 500 N.s/m: tie rods with
    their joints; l_a 0.15 m: steering arm (overall ratio l_a / r_p = 20); J_w 1.0 kg.m2, c_w 20
    N.m.s/rad: wheel, tyre and knuckle about the steering axis with the tyre's scrub damping at
    speed; frictions (kinetic, static = 1.3 x): pinion bearings T_p 0.1 N.m, rack in its housing
    F_r 40 N, king-pins (strut top mount and ball joint) mu_k r_k = 0.05 x 0.02 m, 3.5 N.m at a 3.5 kN
    wheel load; together about 0.75 N.m kinetic at the steering wheel, the order of the friction a
    driver feels on centre in a manual steering. friction_scale multiplies every level (0: none).

    Rack end stops (the project's addition, see the module docstring): rack_travel 75 mm each way (a
    passenger car's rack travels about +-70 to 80 mm; with r_p 3.2 steering-wheel turns lock to lock, the
    road wheels at about +-29 deg with l_a); k_stop 1e7 N/m: the housing end with its damping ring and
    mounts, 0.05 mm under the 530 N of a 4 N.m driver torque; c_stop 1e4 N.s/m: damps the contact's
    fastest mode (the rack between the stop and the gear and tie rods) at 0.87 of critical,
    c_stop / (2 sqrt((k_stop + k_g + 2 k_t) m_r)); that mode, about 1900 rad/s, is then the fastest of
    the model (the gear's is about 550 rad/s) and bounds the explicit integrator's steps while the rack
    is on a stop only.
    """

    J_sw: float = 0.04
    k_c: float = 300.0
    c_c: float = 0.3
    J_p: float = 1e-3
    r_p: float = 0.0075
    k_g: float = 5e5
    b: float = 5e-5
    m_r: float = 3.0
    k_t: float = 2e5
    c_t: float = 500.0
    l_a: float = 0.15
    J_w: float = 1.0
    c_w: float = 20.0
    T_p: float = 0.1
    F_r: float = 40.0
    mu_k: float = 0.05
    r_k: float = 0.02
    static_factor: float = 1.3
    friction_scale: float = 1.0
    rack_travel: float = 0.075
    k_stop: float = 1e7
    c_stop: float = 1e4

    def __post_init__(self):
        problems = []
        for name in ("J_sw", "k_c", "J_p", "r_p", "k_g", "m_r", "k_t", "l_a", "J_w", "rack_travel", "k_stop"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        for name in ("c_c", "b", "c_t", "c_w", "T_p", "F_r", "mu_k", "r_k", "friction_scale", "c_stop"):
            require(problems, name, getattr(self, name), 0.0)
        require(problems, "static_factor", self.static_factor, 1.0)
        check_parameters(problems)

    @property
    def masses(self) -> np.ndarray:
        """Inertias of the five coordinates (kg.m2 or kg)."""
        return np.array([self.J_sw, self.J_p, self.m_r, self.J_w, self.J_w])


@dataclass(frozen=True)
class Mode:
    """directions: per friction element (ELEMENTS order) +1 / -1 slipping, 0 stuck; stop: where the rack is
    at its end stops, s = +1 the left one, -1 the right one (STOPS): 0 within the travel, s on stop s
    (pushed back), 2 s released from stop s but still beyond the travel (no force)."""

    directions: tuple
    stop: int = 0


class SteeringSystem(DrivenSystem):
    """The steering system as a HybridSystem. inputs: signals (tau_sw, M_z_left, M_z_right, F_z_left,
    F_z_right) in N.m and N. State y = [theta_sw, theta_p, x, delta_L, delta_R, their rates,
    W_driver, W_aligning, W_friction, W_damping]."""

    N = 5
    FRICTION_DOF = (1, 2, 3, 4)  # the coordinate each element of ELEMENTS acts on

    def __init__(self, params: SteeringParameters, inputs):
        super().__init__(inputs, 5, "inputs (tau_sw, M_z_left, M_z_right, F_z_left, F_z_right)")
        self.p = params
        # an element whose friction coefficient is zero never sticks (it keeps direction +1, no events)
        kingpin = params.mu_k * params.r_k
        self.active = tuple(params.friction_scale * level > 0 for level in (params.T_p, params.F_r, kingpin, kingpin))

    def initial_state(self, theta_sw=0.0):
        """At rest with every spring relaxed at the steering-wheel angle theta_sw (rad)."""
        p = self.p
        x = p.r_p * theta_sw
        q = np.array([theta_sw, theta_sw, x, x / p.l_a, x / p.l_a])
        return np.concatenate((q, np.zeros(self.N + 4)))

    # --- forces (Python floats: the right-hand side runs at every stage of every step) -------------
    def forces(self, t, y, stop):
        """(Q: generalised forces without friction (5 floats), kinetic friction levels (4 floats),
        internal forces dict) at (t, y) with the rack at its end stops as ``stop`` says (``Mode.stop``: +-1
        on a stop); the static levels are static_factor times the kinetic ones."""
        p = self.p
        th_sw, th_p, x, dL, dR, w_sw, w_p, v, wL, wR = y[:10].tolist()
        tau_sw, Mz_L, Mz_R, Fz_L, Fz_R = self.input_values(t).tolist()
        T_c = p.k_c * (th_sw - th_p) + p.c_c * (w_sw - w_p)
        F_g = p.k_g * luz(p.r_p * th_p - x, p.b)
        F_tL = p.k_t * (x - p.l_a * dL) + p.c_t * (v - p.l_a * wL)
        F_tR = p.k_t * (x - p.l_a * dR) + p.c_t * (v - p.l_a * wR)
        # the end stop pushes only (clipped at 0: the release event fires where the clip would act)
        F_stop = 0.0 if stop not in STOPS else -stop * max(0.0, p.k_stop * (stop * x - p.rack_travel)
                                                            + p.c_stop * stop * v)
        Q = (tau_sw - T_c, T_c - p.r_p * F_g, F_g - F_tL - F_tR + F_stop,
             p.l_a * F_tL + Mz_L - p.c_w * wL, p.l_a * F_tR + Mz_R - p.c_w * wR)
        s, kingpin = p.friction_scale, p.mu_k * p.r_k
        kinetic = (s * p.T_p, s * p.F_r, s * kingpin * (abs(Fz_L) + abs(F_tL)), s * kingpin * (abs(Fz_R) + abs(F_tR)))
        return Q, kinetic, dict(T_c=T_c, F_g=F_g, F_tL=F_tL, F_tR=F_tR, F_stop=F_stop)

    def stop_contact(self, y) -> int:
        """``Mode.stop`` as a function of the state y alone (s where k_stop pen + c_stop pend > 0 < pen at
        stop s, 2 s where only pen > 0, else 0): the mode of the start, and of a model without the stop
        events (``SteeringBristle``)."""
        for stop in STOPS:
            if self._stop_spring(stop)(0.0, y) > 0.0:
                return stop if self._stop_push(stop)(0.0, y) > 0.0 else 2 * stop
        return 0

    def _stop_spring(self, stop):
        """k_stop pen (N) of the end stop ``stop`` (+1, -1)."""
        p = self.p

        def fn(t, y):
            return p.k_stop * (stop * y[2] - p.rack_travel)
        return fn

    def _stop_push(self, stop):
        """k_stop pen + c_stop pend (N) of the end stop ``stop`` (+1, -1): its force while on it."""
        p = self.p

        def fn(t, y):
            return p.k_stop * (stop * y[2] - p.rack_travel) + p.c_stop * stop * y[7]
        return fn

    def accelerations(self, t, y, mode):
        """(accelerations (5,), friction forces of the elements (4,), internal forces) in ``mode``: the
        friction is kinetic against the sliding direction, or the holding force -Q_i of a stuck element
        (whose acceleration is then exactly zero)."""
        Q, kinetic, internal = self.forces(t, y, mode.stop)
        f = [-Q[dof] if d == 0 else -d * level for dof, d, level in zip(self.FRICTION_DOF, mode.directions, kinetic)]
        return self.accelerations_of(Q, f), np.array(f), internal

    def accelerations_of(self, Q, f):
        """Accelerations (5,) from the generalised forces Q (5 floats) and the element frictions f (4 floats,
        N.m or N, each on its coordinate FRICTION_DOF)."""
        total = list(Q)
        for dof, f_k in zip(self.FRICTION_DOF, f):
            total[dof] += f_k
        return np.array(total) / self.p.masses

    def powers(self, t, y, f, F_stop, stop):
        """[driver, aligning, friction, damping] powers (W) at (t, y) with the element frictions f (4 floats)
        and the end stops' force F_stop (N), the rack at its end stops as ``stop`` says (``Mode.stop``): the
        rates of W_driver, W_aligning, W_friction and W_damping. The stop's power beyond its spring's,
        (F_stop + k_stop luz(x, rack_travel)) xd, is its damping's; luz there is the branch of the mode
        (x - s rack_travel at stop s, 0 within the travel), so that the rate is smooth within a mode."""
        p = self.p
        w_sw, w_p, v, wL, wR = y[5:10].tolist()
        tau_sw, Mz_L, Mz_R, _, _ = self.input_values(t).tolist()
        damping = -(p.c_c * (w_sw - w_p) ** 2 + p.c_t * ((v - p.l_a * wL) ** 2 + (v - p.l_a * wR) ** 2)
                    + p.c_w * (wL**2 + wR**2))
        if stop:
            side = stop if stop in STOPS else stop // 2
            damping += (F_stop + p.k_stop * (float(y[2]) - side * p.rack_travel)) * v
        friction_power = f[0] * w_p + f[1] * v + f[2] * wL + f[3] * wR
        return [tau_sw * w_sw, Mz_L * wL + Mz_R * wR, friction_power, damping]

    def rhs(self, t, y, mode):
        acc, f, internal = self.accelerations(t, y, mode)
        return np.array([*y[5:10].tolist(), *acc, *self.powers(t, y, f, internal["F_stop"], mode.stop)])

    # --- stick-slip ---------------------------------------------------------------------------------
    def events(self, mode):
        events = []
        for k, (name, d) in enumerate(zip(ELEMENTS, mode.directions)):
            if not self.active[k]:
                continue
            dof = 5 + self.FRICTION_DOF[k]
            if d == 0:
                events.append(Event(f"breakaway_{name}", self._breakaway(k, mode.stop), +1, True))
            else:
                events.append(Event(f"stop_{name}", (lambda dof, d: lambda t, y: d * y[dof])(dof, d), -1))
        if mode.stop == 0:  # within the travel: the rack reaches an end stop
            events.extend(Event(f"contact_stop_{name}", self._stop_spring(stop), +1) for stop, name in STOPS.items())
        elif mode.stop in STOPS:  # on a stop: its force falls to zero
            events.append(Event(f"release_stop_{STOPS[mode.stop]}", self._stop_push(mode.stop), -1))
        else:  # released beyond the travel: pushed again, or back within the travel
            stop = mode.stop // 2
            events.append(Event(f"contact_stop_{STOPS[stop]}", self._stop_push(stop), +1))
            events.append(Event(f"clear_stop_{STOPS[stop]}", self._stop_spring(stop), -1))
        return events

    def _breakaway(self, k, stop):
        def fn(t, y):
            Q, kinetic, _ = self.forces(t, y, stop)
            return abs(Q[self.FRICTION_DOF[k]]) - self.p.static_factor * kinetic[k] - BREAKAWAY_MARGIN
        return fn

    def update(self, t, y, mode, event):
        if mode is None:
            stop = self.stop_contact(y)
        elif event in ("contact_stop_left", "contact_stop_right"):
            stop = 1 if event == "contact_stop_left" else -1
        elif event in ("release_stop_left", "release_stop_right"):  # beyond the travel still (else c_stop = 0)
            stop = 2 * mode.stop if self._stop_spring(mode.stop)(t, y) > 0.0 else 0
        elif event in ("clear_stop_left", "clear_stop_right"):
            stop = 0
        else:  # the stop changes only at its own events (its functions depend on the state alone)
            stop = mode.stop
        if event in EDGE_EVENTS and (stop == 0 or mode.stop == 0):  # crossed the edge of the travel, pen = 0:
            y = y.copy()  # exactly on it, so that the next crossing's function starts at 0, not beyond by rounding
            y[2] = EDGE_EVENTS[event] * self.p.rack_travel
        Q, kinetic, _ = self.forces(t, y, stop)
        static = [self.p.static_factor * level for level in kinetic]
        directions = []
        for k, name in enumerate(ELEMENTS):
            dof = self.FRICTION_DOF[k]
            v, Qk = y[5 + dof], Q[dof]
            was = None if mode is None else mode.directions[k]
            if not self.active[k]:
                new = 1
            elif event == f"breakaway_{name}":
                new = int(np.sign(Qk))
            elif abs(v) > ZERO_VELOCITY and event != f"stop_{name}":
                new = int(np.sign(v))
            elif was not in (None, 0) and event != f"stop_{name}" and v * was >= 0.0:
                new = was  # right after a breakaway: the new slip keeps its direction
                # (a slip that has already passed zero, e.g. a second king-pin stopping at the same instant
                # as the first, whose own stop event can no longer fire, is decided below)
            else:  # at v = 0: acceleration luz(Q, static) / mass decides (seed 001 Sect. 2)
                new = int(np.sign(luz(Qk, static[k])))
            directions.append(new)
        new_mode = Mode(tuple(directions), stop)
        y = y.copy()
        for k, d in enumerate(directions):
            if d == 0:
                y[5 + self.FRICTION_DOF[k]] = 0.0  # stuck: exactly at rest, no creep
        return y, new_mode, change_name(mode_change(mode, new_mode))

    def energies(self, y):
        """(kinetic, spring) energy (J); the spring energy includes the end stops' (on or off them)."""
        p = self.p
        th_sw, th_p, x, dL, dR = y[:5]
        kinetic = 0.5 * p.masses @ y[5:10] ** 2
        gap = p.r_p * th_p - x
        spring = 0.5 * (p.k_c * (th_sw - th_p) ** 2 + p.k_g * luz(gap, p.b) ** 2
                        + p.k_t * ((x - p.l_a * dL) ** 2 + (x - p.l_a * dR) ** 2)
                        + p.k_stop * luz(float(x), p.rack_travel) ** 2)
        return kinetic, spring

    # --- compiled engine (friction_joints.vehicle.steering_packing) ---------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "steering", the parameters as arrays by
        ``vehicle.steering_packing``), None for a subclass that changes the equations."""
        if not self._keeps_equations(SteeringSystem, ("rhs", "events", "record", "forces", "accelerations",
                                                      "accelerations_of", "powers", "_breakaway", "energies",
                                                      "record_state", "input_values", "_stop_spring", "_stop_push")):
            return None
        if type(self).FRICTION_DOF != SteeringSystem.FRICTION_DOF:
            return None
        from . import steering_packing

        return steering_packing.compile_system(self)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of a Mode for the compiled kernels."""
        from . import steering_packing

        return steering_packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        """The Mode of the C engine's mode arrays (the inverse of ``encode_mode``)."""
        from . import steering_packing

        return Mode(*steering_packing.decode_mode(fmode, imode))

    def change_kind(self, mode, new, event, change):
        """The kind of the C engine's mode decision from ``mode`` to ``new``, as ``update`` names it: from
        its change report ``change`` (the integers of ``mode_change``); None where the mode stays."""
        return change_name(change)

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import steering_packing

        return steering_packing.decode_record(out)

    def record(self, t, y, mode):
        acc, f, internal = self.accelerations(t, y, mode)
        return dict(q=y[:5].copy(), qd=y[5:10].copy(), qdd=acc, friction=f, stuck=np.array(mode.directions) == 0,
                    **self.record_state(y), **internal)

    def record_state(self, y):
        """The recorded quantities of y beside q and qd: in_freeplay, the energies and the works."""
        E_kin, E_spring = self.energies(y)
        return dict(in_freeplay=abs(self.p.r_p * y[1] - y[2]) < self.p.b, E_kin=E_kin, E_spring=E_spring,
                    W_driver=y[10], W_aligning=y[11], W_friction=y[12], W_damping=y[13])


def mode_change(mode, new) -> list:
    """The change of a mode decision from ``mode`` (None at the start) to ``new`` as six integers (the
    change report of the C engine's decide, native/src/steering.c): per element (ELEMENTS order) an index
    of ELEMENT_CHANGES (0 unchanged, 1 it sticks, 2 it slips; at the start every element changes), then
    the end stops' change, an index of STOP_CHANGES, and its stop (+1 left, -1 right; 0 with no change)."""
    old = (None,) * len(ELEMENTS) if mode is None else mode.directions
    change = [0 if d == w else 1 if d == 0 else 2 for d, w in zip(new.directions, old)]
    was, stop = (0 if mode is None else mode.stop), new.stop
    if stop == was:
        return change + [0, 0]
    if stop in STOPS:
        return change + [1, stop]
    if was in STOPS or stop:  # pushed before (or, at the start, beyond the travel unpushed)
        return change + [2, was or stop // 2]
    return change + [3, was // 2]


def change_name(change) -> str | None:
    """The kind string of a mode decision from its change (``mode_change``): the elements that stick or
    slip (``stick_pinion``, ...), then the end stops' change (``contact_stop_left``, ...), joined by '+';
    None for no change."""
    names = [f"{ELEMENT_CHANGES[c]}_{name}" for name, c in zip(ELEMENTS, change[:4]) if c]
    if change[4]:
        names.append(f"{STOP_CHANGES[change[4]]}_stop_{STOPS[change[5]]}")
    return "+".join(names) or None
