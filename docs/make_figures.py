"""Every figure the documentation shows, written as PNG files under docs/figures/.

    python docs/make_figures.py                 # all figures (about 15 s on a 2-core machine)
    python docs/make_figures.py --fmus dist     # the default experiments through the built FMUs in FMPy
    python docs/make_figures.py --only models   # one group: models, validation, theory, mechanism-files

Needs matplotlib (the project's "plot" extra: pip install -e ".[plot]").

models/<Model>.png             the model's drawing (docs/models.md)
models/<Model>_experiment.png  its default experiment: the inputs its FMU documents, held over each
                               communication step, and the outputs the FMU's documentation plots.
                               Without --fmus the FMU's slave class (fmu_src/<Model>.py, the code the
                               pythonfmu FMU runs) is stepped in this process; with --fmus DIR the FMU
                               DIR/<Model>.fmu runs in FMPy (build_fmu.run_default_experiment). Both give
                               the same numbers (within the integrator's tolerance).
validation/*.png               seed results reproduced by the library (docs/validation.md)
theory/*.png                   luz and tar, the bristle laws' steady sliding (docs/theory.md)
mechanism_files/catalogue.png  the catalogue of mechanism files (docs/mechanism-files.md)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "figures"
METADATA = {"Software": None}  # no matplotlib version in the files: a rebuild changes only what changed

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import patches  # noqa: E402

import build_fmu  # noqa: E402

MODELS = ("SliderCrank", "OffsetSliderCrank", "DupontTwoMass", "SingleMassFriction", "TwoMassFriction",
          "SteeringSystem", "SingleTrackVehicle", "RSRRRLinkage", "BristleOscillator", "SpeedController")


def save(fig, path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=80, metadata=METADATA)
    plt.close(fig)
    print(f"  {path.relative_to(ROOT)}")


FLAG_COLOURS = (("0.8", "grey"), ("#9ecae1", "blue"), ("#fdae6b", "orange"), ("#a1d99b", "green"))


def shade(ax, t, flag, colour="0.85"):
    """Bands (grey by default) where the Boolean series flag is true."""
    flag = np.asarray(flag, bool)
    edges = np.flatnonzero(np.diff(np.concatenate(([0], flag.astype(int), [0]))))
    for a, b in zip(edges[::2], edges[1::2]):
        ax.axvspan(t[a], t[min(b, len(t) - 1)], color=colour, alpha=0.6, lw=0)


# ======================================================================================================
# Default experiments
# ======================================================================================================

def slave_class(name):
    return build_fmu.slave_class(build_fmu.SOURCES / f"{name}.py")


def run_slave(cls) -> dict:
    """The default experiment of the FMU's slave class, stepped here as a host steps the FMU: inputs set
    at each communication point and held over the step. {name: array} of time, inputs and outputs."""
    e = cls.experiment
    slave = cls(instance_name="docs", resources=None)
    slave.setup_experiment(0.0, e.stop_time, None)
    slave.enter_initialization_mode()
    inputs = dict(e.inputs or {})
    for name, fn in inputs.items():
        slave.values[name] = float(fn(0.0))
    slave.exit_initialization_mode()
    if slave.error:
        raise RuntimeError(f"{cls.__name__}: {slave.error}")
    names = list(inputs) + list(e.outputs)
    n = int(round(e.stop_time / e.step_size))
    rows = [[0.0] + [float(slave.values[k]) for k in names]]
    for k in range(n):
        t = round(k * e.step_size, 12)
        for name, fn in inputs.items():
            slave.values[name] = float(fn(t))
        if not slave.do_step(t, e.step_size):
            raise RuntimeError(f"{cls.__name__}: {slave.error}")
        rows.append([round((k + 1) * e.step_size, 12)] + [float(slave.values[k]) for k in names])
    data = np.array(rows)
    return {"time": data[:, 0], **{name: data[:, j + 1] for j, name in enumerate(names)}}


def run_fmu(cls, fmus: Path) -> dict:
    """The default experiment of DIR/<Model>.fmu in FMPy (its documented inputs), as run_slave's dict."""
    e = cls.experiment
    res = build_fmu.run_default_experiment(fmus / f"{cls.__name__}.fmu", cls)
    out = {"time": res["time"].astype(float)}
    for name, fn in (e.inputs or {}).items():
        out[name] = np.array([float(fn(round(t, 12))) for t in out["time"]])
    out.update({name: res[name].astype(float) for name in e.outputs})
    return out


def experiment_figure(name, fmus: Path | None):
    cls = slave_class(name)
    e = cls.experiment
    res = run_fmu(cls, fmus) if fmus else run_slave(cls)
    units = {v.name: v.unit for v in cls.variables}
    kinds = {v.name: v.kind for v in cls.variables}
    t = res["time"]
    inputs = [n for n in (e.inputs or {}) if np.ptp(res[n]) > 0]  # the inputs that vary
    flags = [n for n in e.outputs if kinds[n] == "Boolean"]
    panels = ([("inputs", inputs)] if inputs else []) + [(n, [n]) for n in e.outputs if n not in flags]
    fig, axes = plt.subplots(len(panels), 1, sharex=True, figsize=(7, 1.45 * len(panels) + 0.6))
    axes = np.atleast_1d(axes)
    for ax, (label, names) in zip(axes, panels):
        for flag, (colour, _) in zip(flags, FLAG_COLOURS):
            shade(ax, t, res[flag], colour)
        for n in names:
            ax.plot(t, res[n], lw=1.2, label=f"{n} ({units[n]})" if units[n] else n)
        if label == "inputs":
            ax.legend(fontsize=7, loc="upper right")
            ax.set_ylabel("inputs", fontsize=8)
        else:
            ax.set_ylabel(f"{label} ({units[label]})" if units[label] else label, fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[-1].set_xlabel("t (s)", fontsize=8)
    shaded = ("\n" + ", ".join(f"{word}: {flag}" for flag, (_, word) in zip(flags, FLAG_COLOURS)) + " true"
              if flags else "")
    fig.suptitle(f"{name}: {e.inputs_text}{shaded}", fontsize=8)
    fig.tight_layout()
    save(fig, OUT / "models" / f"{name}_experiment.png")


# ======================================================================================================
# Drawings of the models
# ======================================================================================================

def spring(ax, a, b, turns=6, width=0.08, **kw):
    """A zigzag spring from point a to b (data units)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    d = b - a
    length = np.hypot(*d)
    u, n = d / length, np.array([-d[1], d[0]]) / length
    s = np.linspace(0.15, 0.85, 2 * turns + 1)
    offsets = np.where(np.arange(len(s)) % 2, 1, -1) * width
    offsets[0] = offsets[-1] = 0
    pts = [a, a + 0.15 * d] + [a + si * d + oi * n for si, oi in zip(s, offsets)] + [a + 0.85 * d, b]
    pts = np.array(pts)
    ax.plot(pts[:, 0], pts[:, 1], color=kw.get("color", "k"), lw=kw.get("lw", 1.2))


def belt(ax):
    """A belt (the moving friction surface) under y = 0, moving at v_belt."""
    ax.add_patch(patches.FancyBboxPatch((0.2, -0.12), 2.8, 0.12, boxstyle="round,pad=0.0,rounding_size=0.06",
                                        fc="0.8", ec="k"))
    arrow(ax, (2.3, -0.25), (2.8, -0.25), "v_belt", colour="C2", offset=(0, -0.17))


def mass_on_belt(ax, wall, lift, mass, stiffness):
    """A block (label mass) at x = 1.3 on the belt, lifted by lift, held by a spring (label stiffness)
    from a wall (or a moving point) at x = wall."""
    belt(ax)
    block(ax, 1.3, lift, 0.6, 0.45, mass, "C0")
    ax.plot([wall, wall], [0.05, 0.55], color="k", lw=2)
    spring(ax, (wall, 0.3), (1.3, 0.3), width=0.06)
    ax.text((wall + 1.3) / 2, 0.42, stiffness, ha="center", fontsize=9)


def arrow(ax, a, b, text="", colour="C3", offset=(0, 0.05), **kw):
    ax.annotate("", xy=b, xytext=a, arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.5))
    if text:
        mid = (np.asarray(a, float) + np.asarray(b, float)) / 2 + np.asarray(offset)
        ax.text(*mid, text, color=colour, ha="center", va="bottom", fontsize=kw.get("fontsize", 9))


def ground(ax, x0, x1, y, hatch=True):
    ax.plot([x0, x1], [y, y], color="k", lw=1.5)
    if hatch:
        for x in np.arange(x0, x1, 0.08):
            ax.plot([x, x - 0.05], [y, y - 0.05], color="0.4", lw=0.8)


def block(ax, x, y, w, h, text, colour="C0"):
    ax.add_patch(patches.Rectangle((x, y), w, h, fc=colour, alpha=0.35, ec="k"))
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=9)


def blank(ax, xlim, ylim):
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")


def drawing_from_file(name, values=None):
    """The catalogue's mechanism file of a shipped planar FMU, drawn in the configuration its parameter
    values (default: the file's) give."""
    from friction_joints.mechanisms.drawing import draw
    from friction_joints.mechanisms.files import read_file

    spec = read_file(ROOT / "examples" / "mechanisms" / f"{name}.toml")
    built = spec.build(values)
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    draw(ax, built.mechanism, built.q0, spec.body_names, spec.joint_names)
    return fig, ax


def draw_slider_crank():
    fig, ax = drawing_from_file("SliderCrank", {"th1_start": 0.9})
    arrow(ax, (0.9, 0.35), (1.2, 0.35), "g", colour="C2")
    ax.set_title("SliderCrank (seed 000 Example 2, Fig. 7), drawn at th1 = 0.9 rad (it starts hanging at 0):\n"
                 "crank OA, rod AB, massless slider B on the x axis; gravity +x; drive torque tau on the crank;\n"
                 "friction in O, A, B and the guide", fontsize=8)
    return fig


def draw_offset_slider_crank():
    fig, ax = drawing_from_file("OffsetSliderCrank", {"th1_start": 0.7})
    ax.set_title("OffsetSliderCrank (seed 000 Example 1, Fig. 5), drawn at th1 = 0.7 rad (it starts at 0): crank,\n"
                 "rod, and link 3 hanging from B, kept vertical, its lower end sliding on the x axis; gravity -y;\n"
                 "friction in every joint", fontsize=8)
    return fig


def draw_dupont():
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ground(ax, 0.2, 0.4, 0.0)
    ax.plot([0.3, 0.3], [0.0, 1.3], color="0.4", lw=2)  # m2's guide along y
    block(ax, 0.45, 0.45, 1.6, 0.5, "", "C1")
    ax.text(1.25, 0.98, "m2 (moves along y on a frictionless guide)", ha="center", fontsize=8)
    ax.plot([0.55, 1.95], [0.62, 0.62], color="k", lw=1)  # the slot
    ax.plot([0.55, 1.95], [0.78, 0.78], color="k", lw=1)
    block(ax, 1.05, 0.62, 0.35, 0.16, "m1", "C0")
    ax.text(1.25, 0.52, "slot: friction mu |f_n|", ha="center", fontsize=8)
    arrow(ax, (1.4, 0.70), (1.8, 0.70), "F1", offset=(0.08, 0.01))
    arrow(ax, (1.25, 0.20), (1.25, 0.45), "F2", offset=(0.1, -0.05))
    arrow(ax, (2.3, 0.3), (2.6, 0.3), "x", colour="k")
    arrow(ax, (2.3, 0.3), (2.3, 0.6), "y", colour="k", offset=(0.06, 0.0))
    blank(ax, (0.1, 2.8), (-0.1, 1.15))
    ax.set_title("DupontTwoMass (seed 000 Sect. 3, Fig. 4): m1 in a slot of m2, no gravity; the normal force "
                 "\nf_n = m1 F2 / (m1 + m2) comes out of the reaction equations", fontsize=8)
    return fig


def draw_single_mass():
    fig, ax = plt.subplots(figsize=(6, 2.8))
    mass_on_belt(ax, 0.1, 0.0, "M", "K")
    arrow(ax, (1.9, 0.22), (2.5, 0.22), "F", offset=(0, 0.02))
    ax.text(1.6, -0.07, "C tar(v, FT0/C); at v = 0 up to FT0S", ha="center", va="top", fontsize=8,
            bbox=dict(fc="w", ec="none", alpha=0.8))
    arrow(ax, (1.3, 0.6), (1.8, 0.6), "z", colour="k")
    blank(ax, (0.0, 3.1), (-0.45, 0.75))
    ax.set_title("SingleMassFriction (seed 001 Sect. 2, Fig. 3): a mass on a surface moving at v_belt, "
                 "\nspring K to the ground, extended Coulomb friction with exact stick-slip", fontsize=8)
    return fig


def draw_two_mass():
    fig, ax = plt.subplots(figsize=(6, 3.0))
    ground(ax, 0.2, 3.0, 0.0)
    block(ax, 0.6, 0.0, 1.8, 0.4, "M2", "C1")
    block(ax, 1.1, 0.4, 0.8, 0.35, "M1", "C0")
    arrow(ax, (1.9, 0.57), (2.5, 0.57), "F1", offset=(0.1, 0.0))
    arrow(ax, (2.4, 0.2), (2.9, 0.2), "F2", offset=(0.1, 0.0))
    ax.text(1.5, 0.36, "friction 12: C12, FT012, FT012S", ha="center", va="top", fontsize=7)
    ax.text(1.5, -0.05, "friction 20: C20, FT020, FT020S", ha="center", va="top", fontsize=7)
    arrow(ax, (0.3, 0.6), (0.7, 0.6), "z1, z2", colour="k")
    blank(ax, (0.1, 3.1), (-0.25, 0.9))
    ax.set_title("TwoMassFriction (seed 001 Sect. 4, Fig. 5): block 1 on block 2 on a fixed base; "
                 "\nthe static frictions of stuck contacts by the Gauss principle", fontsize=8)
    return fig


def draw_bristle():
    fig, ax = plt.subplots(figsize=(6, 3.0))
    mass_on_belt(ax, 0.35, 0.04, "m", "k")
    for x in np.linspace(1.35, 1.85, 9):  # the bristles
        ax.plot([x, x + 0.03], [0.0, 0.04], color="k", lw=0.8)
    arrow(ax, (0.35, 0.62), (0.7, 0.62), "x_d", colour="C3", offset=(0, 0.01))
    arrow(ax, (1.6, 0.85), (1.6, 0.5), "F_n", offset=(0.12, 0.0))
    ax.text(2.05, 0.08, "bristle deflection z:\nDahl, LuGre, elasto-plastic, Gonthier", fontsize=7, va="bottom")
    blank(ax, (0.1, 3.1), (-0.45, 0.95))
    ax.set_title("BristleOscillator (seed 003): a mass on a belt, spring k to the moving point x_d,\n"
                 "pressed by F_n; bristle friction F = N (sigma0 z + sigma1 zdot) + sigma2 v", fontsize=8)
    return fig


def draw_steering():
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    ax.add_patch(patches.Circle((0.0, 1.75), 0.28, fill=False, lw=2))  # steering wheel and column
    ax.text(0.36, 1.8, "steering wheel J_sw\ninput tau_sw", fontsize=7)
    spring(ax, (0.0, 1.47), (0.0, 0.9), width=0.05)
    ax.text(0.1, 1.15, "column k_c, c_c", fontsize=7)
    ax.add_patch(patches.Circle((0.0, 0.75), 0.11, fc="C1", alpha=0.6, ec="k"))
    ax.text(0.16, 0.76, "pinion J_p, r_p; bearing friction T_p;\nmesh k_g with freeplay +-b", fontsize=7)
    ax.add_patch(patches.Rectangle((-0.8, 0.52), 1.6, 0.12, fc="C0", alpha=0.45, ec="k"))  # rack
    ax.text(0.0, 0.44, "rack m_r; housing friction F_r", fontsize=7, ha="center", va="top")
    for s in (-1, 1):  # end stops
        ax.plot([s * 0.95, s * 0.95], [0.46, 0.70], color="C3", lw=3)
    ax.text(0.0, 0.27, "end stops at +-rack_travel (k_stop, c_stop)", color="C3", fontsize=7, ha="center",
            va="top")
    for s, side in ((-1, "left"), (1, "right")):  # tie rods, steering arms, wheels on king-pins
        arm, kingpin = np.array([s * 1.45, 0.58]), np.array([s * 1.75, 0.85])
        spring(ax, (s * 0.8, 0.58), arm, width=0.04, turns=4)
        ax.plot(*np.array([arm, kingpin]).T, color="k", lw=2.5)
        ax.add_patch(patches.Rectangle((kingpin[0] - 0.09, kingpin[1] - 0.45), 0.18, 0.9, fc="0.3", alpha=0.7))
        ax.plot(*kingpin, "o", mfc="w", mec="k", ms=7, zorder=5)
        ax.text(kingpin[0], 0.32, f"{side} wheel J_w, c_w;\nking-pin friction\nmu_k r_k (|F_z| + |F_t|);\n"
                                  f"inputs M_z_{side}, F_z_{side}", ha="center", va="top", fontsize=6.5)
    ax.text(-1.12, 0.5, "tie rod\nk_t, c_t", fontsize=7, ha="center", va="top")
    ax.text(1.12, 0.5, "tie rod, then\nsteering arm l_a", fontsize=7, ha="center", va="top")
    blank(ax, (-2.3, 2.3), (-0.25, 2.1))
    ax.set_title("SteeringSystem (seed 001's application): rack-and-pinion steering with exact stick-slip in the\n"
                 "pinion bearings, the rack housing and both king-pins (king-pin friction follows the wheel load)",
                 fontsize=8)
    return fig


def draw_vehicle():
    fig, ax = plt.subplots(figsize=(6, 3.0))
    ax.plot([-1.5, 1.2], [0, 0], color="k", lw=3)
    for x, steer, label in ((1.2, 0.35, "front axle: C_f, steered\nby delta_left, delta_right"),
                            (-1.5, 0.0, "rear axle: C_r")):
        c, s = np.cos(steer), np.sin(steer)
        ax.plot([x - 0.3 * c, x + 0.3 * c], [-0.3 * s, 0.3 * s], color="0.3", lw=7, solid_capstyle="butt")
        ax.text(x, -0.45, label, ha="center", va="top", fontsize=7)
    ax.plot(0, 0, "o", color="C3", zorder=5)
    ax.text(-0.1, -0.2, "centre of mass: m, I_z", fontsize=7, ha="center", va="top")
    for x0, x1, text in ((0, 1.2, "a"), (-1.5, 0, "b")):
        ax.annotate("", xy=(x1, -0.95), xytext=(x0, -0.95), arrowprops=dict(arrowstyle="<->"))
        ax.text((x0 + x1) / 2, -1.05, text, ha="center", va="top", fontsize=8)
    arrow(ax, (0, 0.05), (0.7, 0.05), "u", colour="C2", offset=(0.1, 0.0))
    arrow(ax, (0, 0), (0, 0.55), "v_y", colour="C2", offset=(0.15, -0.05))
    ax.add_patch(patches.Arc((0, 0), 0.6, 0.6, theta1=120, theta2=240, color="C0", lw=1.5))
    ax.text(-0.42, 0.2, "r", color="C0", fontsize=9)
    ax.text(1.55, 0.3, "to the steering:\nM_z_left, M_z_right,\nF_z_left, F_z_right", fontsize=7)
    blank(ax, (-2.0, 2.5), (-1.25, 0.8))
    ax.set_title("SingleTrackVehicle: a bicycle model with linear tyres at constant speed u; it returns\n"
                 "the aligning moments and front wheel loads the steering's king-pin friction needs", fontsize=8)
    return fig


def draw_rsrrr():
    """The linkage at psi(1,1) = pi/2, where every link lies in the yz plane: drawn in that plane."""
    from friction_joints.spatial.rsrrr import RSRRR

    mech = RSRRR()
    q = mech.initial_position()
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ends = ([(mech.p.l[0], 0, 0)], [(0, 0, mech.p.l[1]), (mech.p.l[2], 0, 0), (mech.p.l[3], 0, 0)])
    labels = (["(1,1)"], ["(2,1)", "(2,2)", "(2,3)"])
    for chain, qc, tips, names, colour in zip(mech.loop.chains, mech.loop.split(q), ends, labels, ("C0", "C1")):
        T, M = chain.frames(qc)
        for p, (tip, name) in enumerate(zip(tips, names)):
            a, b = M[p][:3, 3], (T[p] @ np.append(tip, 1.0))[:3]
            axis = M[p][:3, 2]  # the joint axis (global)
            ax.plot([a[2], b[2]], [a[1], b[1]], color=colour, lw=5, solid_capstyle="round")
            if abs(axis[0]) > 0.5:  # normal to the drawing: a circle with a dot
                ax.plot(a[2], a[1], "o", mfc="w", mec="k", ms=10)
                ax.plot(a[2], a[1], ".", color="k")
            else:  # in the plane: a short line along the axis
                ax.plot([a[2] - 0.03 * axis[2], a[2] + 0.03 * axis[2]], [a[1] - 0.03 * axis[1], a[1] + 0.03 * axis[1]],
                        color="k", lw=3)
            ax.annotate(f"joint {name}", (a[2], a[1]), textcoords="offset points", xytext=(6, -10), fontsize=7)
    S = mech.loop.points(q)[0][:3]
    ax.plot(S[2], S[1], "o", color="C3", ms=8)
    ax.annotate("S: spherical joint, cut", (S[2], S[1]), textcoords="offset points", xytext=(8, 4), fontsize=7,
                color="C3")
    arrow(ax, (0.33, 0.05), (0.33, -0.05), "g", colour="C2", offset=(0.02, -0.02))
    ax.set_xlabel("z (m)", fontsize=8)
    ax.set_ylabel("y (m)", fontsize=8)
    ax.set_aspect("equal")
    ax.margins(0.15)
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=7)
    ax.set_title("RSRRRLinkage (seed 002, Figs 1 and 9) at psi(1,1) = pi/2, all links in the yz plane: the "
                 "driving\nlink (1,1) (blue) and the chain (2,1)-(2,3) (orange), cut at S; joint axes: bars in "
                 "the plane,\ncircles normal to it; gravity -y", fontsize=8)
    return fig


def draw_speed_controller():
    fig, ax = plt.subplots(figsize=(6.5, 2.6))
    ax.text(0.0, 0.5, "w_ref", ha="center", va="center", fontsize=9)
    arrow(ax, (0.25, 0.5), (0.75, 0.5), colour="k")
    ax.add_patch(patches.Circle((0.85, 0.5), 0.1, fill=False))
    ax.text(0.85, 0.5, "+ -", ha="center", va="center", fontsize=7)
    arrow(ax, (0.95, 0.5), (1.4, 0.5), colour="k")
    block(ax, 1.4, 0.3, 0.9, 0.4, "PI: k_p, T_i\n(anti-windup)", "C0")
    arrow(ax, (2.3, 0.5), (2.7, 0.5), colour="k")
    block(ax, 2.7, 0.3, 0.8, 0.4, "limit\n+-tau_max", "C1")
    arrow(ax, (3.5, 0.5), (4.0, 0.5), colour="k")
    block(ax, 4.0, 0.3, 1.1, 0.4, "crank FMU\n(SliderCrank)", "0.7")
    ax.text(3.75, 0.58, "tau", fontsize=8, ha="center")
    ax.plot([5.1, 5.4, 5.4, 0.85, 0.85], [0.5, 0.5, -0.1, -0.1, 0.4], color="k", lw=1.2)
    arrow(ax, (0.85, 0.2), (0.85, 0.4), colour="k")
    ax.text(3.0, -0.05, "w (measured speed, the crank's u)", fontsize=8, ha="center", va="bottom")
    blank(ax, (-0.3, 5.6), (-0.3, 0.9))
    ax.set_title("SpeedController: a discrete PI speed controller with torque limit; with the SliderCrank FMU "
                 "\nit is the demo pair (make demo, dist/SpeedControl.ssp)", fontsize=8)
    return fig


DRAWINGS = {
    "SliderCrank": draw_slider_crank, "OffsetSliderCrank": draw_offset_slider_crank, "DupontTwoMass": draw_dupont,
    "SingleMassFriction": draw_single_mass, "TwoMassFriction": draw_two_mass, "SteeringSystem": draw_steering,
    "SingleTrackVehicle": draw_vehicle, "RSRRRLinkage": draw_rsrrr, "BristleOscillator": draw_bristle,
    "SpeedController": draw_speed_controller,
}


def models(fmus: Path | None):
    for name in MODELS:
        fig = DRAWINGS[name]()
        fig.tight_layout()
        save(fig, OUT / "models" / f"{name}.png")
        experiment_figure(name, fmus)


# ======================================================================================================
# Validation: seed results reproduced
# ======================================================================================================

def dupont_fig4c():
    """Seed 000 Fig. 4c: the run, the events, and the times the paper reads from its figure."""
    from friction_joints.hybrid import Sine
    from friction_joints.simulation import simulate
    from friction_joints.mechanisms import dupont_two_mass

    mech = dupont_two_mass()
    res = simulate(mech, [Sine(7.0, 2.4), Sine(50.0, 0.8, np.pi / 2)], 10.0, [0.0, 0.0], [0.0, 0.0], dt_out=0.005)
    t, stuck = res.t, res["stuck"]
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 5.2))
    F1, F2 = res["tau"][:, 0], res["tau"][:, 1]
    axes[0].plot(t, F1, label="F1 (N)")
    axes[0].plot(t, 0.5 * 10 * np.abs(F2) / 40, "--", label="mu_s f_n (N)")
    axes[0].plot(t, -0.5 * 10 * np.abs(F2) / 40, "--", color="C1")
    axes[1].plot(t, res["u"][:, 1], label="xd (m/s)")
    axes[2].plot(t, res["f_mu"][:, 0], label="friction on m1 (N)")
    for ax in axes:
        shade(ax, t, stuck)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
        ax.tick_params(labelsize=7)
    for tr in res.event_times("reversal"):
        axes[1].axvline(tr, color="C2", lw=0.8)
    for a, b in ((0.0, 0.5), (4.1, 4.4), (8.0, 8.3)):
        axes[1].plot([a, b], [0.55, 0.55], color="C3", lw=3)
    axes[1].plot([1.7, 3.7, 5.7, 7.1, 9.5], [0.62] * 5, "v", color="C3", ms=5)
    axes[1].set_ylim(-0.45, 0.8)
    axes[1].text(0.1, 0.7, "red: the paper's reading (stiction bars, reversals); green: reversals computed",
                 fontsize=7, color="C3")
    axes[2].set_xlabel("t (s); grey: m1 stuck", fontsize=8)
    fig.suptitle("Seed 000 Fig. 4c reproduced: Dupont two-mass, F1 = 7 sin 2.4t N, F2 = 50 cos 0.8t N", fontsize=9)
    fig.tight_layout()
    save(fig, OUT / "validation" / "dupont_fig4c.png")


def slider_crank_fig8():
    """Seed 000 Fig. 8 analogue: Example 2 driven by 4 sin 3t N.m from the hanging equilibrium."""
    from friction_joints.hybrid import Sine
    from friction_joints.simulation import simulate
    from friction_joints.mechanisms import slider_crank

    mech = slider_crank()
    res = simulate(mech, [Sine(4.0, 3.0)], 10.0, mech.assemble([0.0]), [0.0], dt_out=0.01)
    t, stuck = res.t, res["stuck"]
    f_O = np.hypot(res["f"][:, 0], res["f"][:, 1])
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(7, 5))
    for ax, (label, y) in zip(axes, (("tau (N.m)", res["tau"][:, 0]), ("u = dth1/dt (rad/s)", res["u"][:, 0]),
                                     ("|f_O| (N)", f_O))):
        shade(ax, t, stuck)
        ax.plot(t, y)
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
        ax.tick_params(labelsize=7)
    axes[-1].set_xlabel("t (s); grey: stiction (the reaction is indeterminate there: not plotted)", fontsize=8)
    fig.suptitle("Seed 000 Example 2 (Fig. 8 scenario): both cases at u = 0, reversal and stiction", fontsize=9)
    fig.tight_layout()
    save(fig, OUT / "validation" / "slider_crank_fig8.png")


def rsrrr_speed():
    """Seed 002 Sect. 5: the driving speed oscillates about 9 rad/s; friction slows the start-up."""
    from friction_joints.engine import run
    from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters
    from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load

    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(7, 4.2))
    for friction, style in ((False, "--"), (True, "-")):
        system = RSRRRSystem(RSRRR(RSRRRParameters(friction=friction)), [paper_drive(), 0.0], paper_load())
        r = run(system, system.initial_state(), 3.5, dt_out=0.01, rtol=1e-7, atol=1e-9)
        label = "with friction" if friction else "ideal joints"
        axes[0].plot(r.t, r["qd"][:, 0], style, label=label)
        axes[1].plot(r.t, np.unwrap(r["q"][:, 0]), style, label=label)
    axes[0].axhline(9.0, color="0.5", lw=0.8)
    axes[0].set_ylabel("psid(1,1) (rad/s)", fontsize=8)
    axes[1].set_ylabel("psi(1,1) (rad)", fontsize=8)
    axes[1].set_xlabel("t (s)", fontsize=8)
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax.tick_params(labelsize=7)
    fig.suptitle("Seed 002 Sect. 5: drive ramped to 10 N.m over 2 s, governed load; the driving speed "
                 "settles about 9 rad/s", fontsize=9)
    fig.tight_layout()
    save(fig, OUT / "validation" / "rsrrr_speed.png")


def validation():
    dupont_fig4c()
    slider_crank_fig8()
    rsrrr_speed()


# ======================================================================================================
# Theory
# ======================================================================================================

def luz_tar():
    from friction_joints.lumped.projections import luz, tar

    x = np.linspace(-3, 3, 601)
    fig, axes = plt.subplots(1, 2, figsize=(7, 2.8))
    axes[0].plot(x, luz(x, 1.0))
    axes[0].set_title("luz(x, a), a = 1: dead zone [-a, a]", fontsize=8)
    xs = x[x != 0]
    for part in (xs[xs < 0], xs[xs > 0]):
        axes[1].plot(part, tar(part, 1.0), color="C1")
    axes[1].plot([0, 0], [-1, 1], color="C1", lw=2.5)
    axes[1].set_title("tar(x, a) = x + a sgh(x): the set [-a, a] at x = 0", fontsize=8)
    for ax in axes:
        ax.axhline(0, color="0.5", lw=0.6)
        ax.axvline(0, color="0.5", lw=0.6)
        ax.grid(alpha=0.3)
        ax.set_xlabel("x", fontsize=8)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    save(fig, OUT / "theory" / "luz_tar.png")


def stribeck():
    """Steady sliding of the four bristle laws (mu_c 0.3, mu_s 0.4, v_s 1 mm/s, delta 2), per unit load."""
    v = np.logspace(-5, -1, 300)
    mu_c, mu_s, v_s, delta = 0.3, 0.4, 1e-3, 2.0
    fig, ax = plt.subplots(figsize=(6, 2.8))
    ax.semilogx(v, np.full_like(v, mu_c), label="Dahl: mu_c")
    ax.semilogx(v, mu_c + (mu_s - mu_c) * np.exp(-np.abs(v / v_s) ** delta),
                label="LuGre, elasto-plastic, Gonthier: mu(v)")
    ax.set_xlabel("slip speed v (m/s)", fontsize=8)
    ax.set_ylabel("F / N", fontsize=8)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    ax.tick_params(labelsize=7)
    ax.set_title("Steady sliding: mu(v) = mu_c + (mu_s - mu_c) exp(-|v / v_s|^delta), sigma2 = 0", fontsize=8)
    fig.tight_layout()
    save(fig, OUT / "theory" / "steady_sliding.png")


def theory():
    luz_tar()
    stribeck()


# ======================================================================================================
# Mechanism files
# ======================================================================================================

def catalogue():
    from friction_joints.mechanisms.drawing import draw
    from friction_joints.mechanisms.files import read_file

    names = ("FourBar", "Ackermann", "QuickReturn")  # the other three are the shipped FMUs (models.md)
    fig, axes = plt.subplots(1, 3, figsize=(11, 4))
    for ax, name in zip(axes.flat, names):
        spec = read_file(ROOT / "examples" / "mechanisms" / f"{name}.toml")
        built = spec.build()
        draw(ax, built.mechanism, built.q0, spec.body_names, spec.joint_names)
        ax.set_title(f"{name}.toml", fontsize=9)
        ax.tick_params(labelsize=6)
        ax.xaxis.label.set_size(7)
        ax.yaxis.label.set_size(7)
    fig.suptitle("examples/mechanisms/ beyond the shipped FMUs, each in its initial configuration "
                 "(python -m friction_joints.mechanism FILE draws one)", fontsize=9)
    fig.tight_layout()
    save(fig, OUT / "mechanism_files" / "catalogue.png")


GROUPS = {"models": models, "validation": validation, "theory": theory, "mechanism-files": catalogue}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fmus", type=Path, help="run the default experiments through the FMUs of this folder "
                                                  "in FMPy (default: their slave classes in this process)")
    parser.add_argument("--only", nargs="+", choices=sorted(GROUPS), help="make only these groups")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    for name in args.only or GROUPS:
        print(f"{name}:")
        if name == "models":
            models(args.fmus.resolve() if args.fmus else None)
        else:
            GROUPS[name]()
    print(f"done in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
