"""An independent Karnopp-style reference of two stacked blocks, for the tests only.

Written without the project's hybrid integrator, Gauss solver or luz/tar code: plain solve_ivp
per phase, and at every switching instant the consistent phase is found by enumerating every
combination of stuck / forward / backward for the frictions at zero relative velocity (Karnopp
1985: a friction at zero relative velocity sticks when the force it must carry stays within its
static level, else it slips in the direction of the relative acceleration). Viscous parts C v are
included. Returns the switching instants and a dense trajectory.
"""

from itertools import product

import numpy as np
from scipy.integrate import solve_ivp


def _phase_accelerations(p, F1, F2, v, phase):
    """(a1, a2, lam12, lam20) of a phase: phase[c] is 'S' (stuck) or +1 / -1 (slip direction)."""
    M1, M2 = p["M1"], p["M2"]
    kin = [-(p["C12"] * v[0] + p["FT012"] * phase[0]) if phase[0] != "S" else None,
           -(p["C20"] * v[1] + p["FT020"] * phase[1]) if phase[1] != "S" else None]
    if phase == ("S", "S"):
        return 0.0, 0.0, -F1, -(F1 + F2)
    if phase[0] == "S":  # blocks move together
        a = (F1 + F2 + kin[1]) / (M1 + M2)
        return a, a, M1 * a - F1, kin[1]
    if phase[1] == "S":  # block 2 held by the base
        a1 = (F1 + kin[0]) / M1
        return a1, 0.0, kin[0], -(F2 - kin[0])
    return (F1 + kin[0]) / M1, (F2 - kin[0] + kin[1]) / M2, kin[0], kin[1]


def _choose(p, F1, F2, v, breaking=()):
    """The unique consistent phase at relative velocities v (exact zeros mark the candidates);
    ``breaking``: frictions whose static limit has just been reached (they cannot stick)."""
    options = [([] if c in breaking else ["S"]) + [1, -1] if v[c] == 0 else [int(np.sign(v[c]))]
               for c in range(2)]
    static = (p["FT012S"], p["FT020S"])
    good = []
    for phase in product(*options):
        a1, a2, l12, l20 = _phase_accelerations(p, F1, F2, v, phase)
        rel, lam = (a1 - a2, a2), (l12, l20)
        ok = True
        for c in range(2):
            if phase[c] == "S":
                ok &= abs(lam[c]) <= static[c] + 1e-12
            elif v[c] == 0:
                ok &= phase[c] * rel[c] > 0
        if ok:
            good.append(phase)
    if len(good) != 1:  # several at the exact static limit: prefer sticking (Karnopp)
        good = sorted(good, key=lambda ph: -sum(x == "S" for x in ph))
    return good[0]


def simulate_blocks(p, F, t_end, rtol=1e-12, atol=1e-14, max_step=0.01):
    """p: dict M1, M2, C12, C20, FT012, FT020, FT012S, FT020S; F: (F1(t), F2(t)). Returns
    (switch times [(t, phase)], list of dense solutions)."""
    t, y = 0.0, np.zeros(4)  # z1, z2, zd1, zd2
    switches, pieces, breaking = [], [], ()
    while t < t_end:
        v = np.array([y[2] - y[3], y[3]])
        phase = _choose(p, F[0](t), F[1](t), v, breaking)
        if phase[1] == "S":  # stuck relative velocities exactly zero
            y[3] = 0.0
        if phase[0] == "S":
            y[2] = y[3]
        switches.append((t, phase))

        def rhs(tt, yy, phase=phase):
            a1, a2, _, _ = _phase_accelerations(p, F[0](tt), F[1](tt), (yy[2] - yy[3], yy[3]), phase)
            return [yy[2], yy[3], a1, a2]

        events = []
        for c in range(2):
            if phase[c] == "S":
                def ev(tt, yy, c=c, phase=phase):
                    lam = _phase_accelerations(p, F[0](tt), F[1](tt), (yy[2] - yy[3], yy[3]), phase)[2 + c]
                    return abs(lam) - (p["FT012S"], p["FT020S"])[c]
                ev.direction = 1
            else:
                def ev(tt, yy, c=c, phase=phase):
                    return phase[c] * (yy[2] - yy[3] if c == 0 else yy[3])
                ev.direction = -1
            ev.terminal = True
            events.append(ev)
        # max_step: in total stiction the state stands still and the steps would grow past a breakaway
        sol = solve_ivp(rhs, (t, t_end), y, method="DOP853", rtol=rtol, atol=atol, events=events,
                        dense_output=True, max_step=max_step)
        pieces.append(sol)
        t, y = float(sol.t[-1]), sol.y[:, -1].copy()
        fired = [c for c in range(2) if len(sol.t_events[c])]
        breaking = tuple(c for c in fired if phase[c] == "S")
        for c in fired:  # the located zero: set the relative velocity exactly
            if phase[c] != "S":
                if c == 0:
                    y[2] = y[3]
                else:
                    y[3] = 0.0
        if sol.status == 0:
            break
    return switches, pieces


def positions(pieces, times):
    """z1, z2 at the given times from the dense pieces."""
    out = []
    for tt in times:
        for sol in pieces:
            if sol.t[0] <= tt <= sol.t[-1]:
                out.append(sol.sol(tt)[:2])
                break
    return np.array(out)
