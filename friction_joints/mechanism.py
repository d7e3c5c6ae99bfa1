"""``python -m friction_joints.mechanism FILE.toml``: check a mechanism file, print its summary and
draw it in its initial configuration; ``--simulate [INPUTS.csv]`` also runs it and plots the result.

    python -m friction_joints.mechanism FILE.toml [--out DIR] [--simulate [INPUTS.csv]]
                                         [--stop-time T] [--step H] [--set NAME=VALUE ...]

--set takes the parameters of the file's FMU: the file's own, rtol, and friction_model (0, the default:
the exact Coulomb stick-slip model; 1-4 the bristle laws Dahl, LuGre, elasto-plastic, Gonthier in every
joint, ``planar.BristleSystem`` on the compiled engine's RODAS) with the bristle parameters sigma0, sigma1,
sigma2, v_s, delta, z_ba_ratio (friction.bristle.MODEL_PARAMETERS' values unless set) and those of the
joints' own laws, ``<joint>.<key>.<parameter>``.

Writes DIR/<name>_drawing.png (default DIR: out), and with --simulate DIR/<name>_simulation.png and
.csv (time, q, qd, f_mu, sd, stuck, energies; with bristle friction also z[k], the bristle deflection of
free coordinate k, rad or m, for each k with friction). The inputs CSV has a column ``time`` and one column
per drive (as FMPy's input files and the FMUs' documentation/<Model>_in.csv), interpolated linearly;
without it, the drives follow the file's [experiment] inputs, sampled at every output step and held
over it (as the FMU's default experiment feeds them). Exit 0, 1 if the file has problems
(printed, each with its key and line) or the simulation fails, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

from friction_joints.errors import FrictionJointsError
from friction_joints.friction.bristle import LAWS, MODEL_PARAMETERS
from friction_joints.mechanisms.files import MechanismFile, read_file

RTOL = 1e-8  # the FMUs' default tolerance


def summary(spec: MechanismFile, built) -> str:
    """The text the command prints: bodies, joints, coordinates, degrees of freedom, partition,
    drives and the assembly residuals."""
    mech = built.mechanism
    model, minimal = mech.model, mech.minimal
    lines = [f"{spec.name}: {spec.description}" if spec.description else spec.name, "", "bodies:"]
    lines += [f"  {b.name:<12} m = {b.m:g} kg, J = {b.J:g} kg.m2" for b in model.bodies]
    lines.append("joints (first-named body receives the reaction f):")
    own = {}
    for law in spec.joint_laws:
        own.setdefault(law.joint, []).append(law.law)
    for k, (name, kind, joint) in enumerate(zip(spec.joint_names, spec.joint_types, model.joints)):
        laws = [type(law).__name__ if law is not None else "none" for law in joint.friction_laws()]
        bristle = f", bristle: {', '.join(own[k])}" if k in own else ""
        lines.append(f"  {name:<12} {kind:<12} {spec.body_names[joint.body_i]} on {spec.body_names[joint.body_j]}, "
                     f"friction: {', '.join(laws)}{bristle}")
    tree = set(minimal.coords.tree)
    axis_name = ("x", "y", "theta")
    lines.append("joint coordinates q (tree order):")
    for i, (name, t, a) in enumerate(zip(mech.q_names, minimal.coords.tree, minimal.coords.axes), 1):
        role = "independent" if i - 1 in mech.partition else "dependent"
        lines.append(f"  q[{i}] {name:<10} {axis_name[a]:<5} of joint {spec.joint_names[t]} ({role}), "
                     f"q0 = {built.q0[i - 1]:.6g}")
    closing = [spec.joint_names[j] for j in range(len(model.joints)) if j not in tree]
    lines.append(f"degrees of freedom: k = k1 - m2 = {minimal.k1} - {minimal.m2} = {minimal.k} "
                 f"(closing joints: {', '.join(closing) or 'none'})")
    lines.append(f"independent coordinates: {', '.join(mech.q_names[i] for i in mech.partition)}, "
                 f"u0 = {np.array2string(built.u0, precision=6)}")
    lines.append("drives: " + (", ".join(f"{d.name} ({d.kind} on {spec.body_names[d.body]}, {d.unit})"
                                         for d in spec.drives) or "none"))
    lines.append(f"gravity: {model.gravity.tolist()} m/s2")
    lines.append(f"assembly residual |Phi2'(q)|: {built.guess_residual:.3g} at the guess, "
                 f"{built.residual:.3g} assembled")
    lines.append("parameters: " + (", ".join(f"{p.name} = {p.value:g}{' ' + p.unit if p.unit not in ('', '1') else ''}"
                                             for p in spec.parameters) or "none"))
    return "\n".join(lines)


def read_inputs(path: Path, drives) -> dict:
    """{drive name: PiecewiseLinear} from a CSV with columns time and one per drive."""
    from friction_joints.hybrid import PiecewiseLinear

    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    header = [h.strip().strip('"') for h in rows[0]]
    missing = [n for n in ("time", *drives) if n not in header]
    if missing:
        raise ValueError(f"{path}: no column {', '.join(missing)} (columns: {', '.join(header)})")
    table = np.array([[float(v) for v in row] for row in rows[1:] if row], dtype=float)
    t = table[:, header.index("time")]
    return {n: PiecewiseLinear(t, table[:, header.index(n)]) for n in drives}


def held(function, stop_time, step):
    """A function of t sampled at 0, step, ... and held over each step, as an FMU holds its inputs
    over a communication step (a table: the compiled engine runs it)."""
    from friction_joints.hybrid import PiecewiseConstant

    t = np.arange(0.0, stop_time + step / 2, step)
    return PiecewiseConstant(t, [function(ti) for ti in t])


def bristle_laws(spec, built, values: dict):
    """The bristle law of each frictional contact (``planar.contact_laws``) for the FMU's parameters in values:
    the law friction_model (1-4) with sigma0 ... z_ba_ratio (MODEL_PARAMETERS where absent), or the joint's own
    (``MechanismFile.bristle_laws``); None for friction_model 0 (or absent): the exact model. ValueError naming
    the parameter and its allowed range."""
    model = values.get("friction_model", 0.0)
    if model == 0:
        return None
    if model not in LAWS:
        raise ValueError(f"friction_model={model!r} is outside the allowed range [0, 4] (0 exact, 1 Dahl, 2 LuGre, "
                         "3 elasto-plastic, 4 Gonthier)")
    from friction_joints.planar import contact_laws

    options = {name: values.get(name, start) for name, start in MODEL_PARAMETERS.items()}
    return contact_laws(built.mechanism, int(model), own=spec.bristle_laws(built.mechanism, values), **options)


def simulate(spec, built, inputs, stop_time, step, laws=None, rtol=RTOL):
    """simulation.simulate of the file's mechanism from its initial state (rtol 1e-8, as the FMUs), with the
    bristle laws ``laws`` (``bristle_laws``) where given; inputs: {drive name: Signal}, a drive not given
    stays 0."""
    from friction_joints.simulation import simulate as run

    signals = [inputs.get(d.name, 0.0) for d in spec.drives]
    return run(built.mechanism, signals, stop_time, built.q0, built.u0, dt_out=step, rtol=rtol, bristle=laws)


def contact_coordinates(built) -> list:
    """The free coordinates k (1-based, as f_mu[k]) of the frictional contacts, in their order."""
    laws = [law for joint in built.mechanism.model.joints for law in joint.friction_laws()]
    return [k for k, law in enumerate(laws, 1) if law is not None]


def write_results(path: Path, res, spec, built):
    """CSV of the recorded series: time, the drives, q[i], qd[i], f_mu[k], sd[k], z[k] (bristle friction:
    each frictional free coordinate's deflection), stuck, energies."""
    q, qd, f_mu, sd = res["q"], res["qd"], res["f_mu"], res["sd"]
    z = res["z"] if "z" in res.rows[0] else np.zeros((len(res.t), 0))
    names = (["time"] + [d.name for d in spec.drives] + [f"q[{i}]" for i in range(1, q.shape[1] + 1)]
             + [f"qd[{i}]" for i in range(1, q.shape[1] + 1)] + [f"f_mu[{k}]" for k in range(1, f_mu.shape[1] + 1)]
             + [f"sd[{k}]" for k in range(1, sd.shape[1] + 1)]
             + ([f"z[{k}]" for k in contact_coordinates(built)] if z.shape[1] else [])
             + ["stuck", "E_kin", "E_pot", "W_drive", "W_friction"])
    table = np.column_stack([res.t, np.reshape(res["tau"], (len(res.t), -1)), q, qd, f_mu, sd, z,
                             res["stuck"].astype(float), res["E_kin"], res["E_pot"], res["W_drive"], res["W_friction"]])
    with path.open("w") as f:
        f.write(",".join(f'"{n}"' for n in names) + "\n")
        for row in table:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def plot_results(path: Path, res, spec, built):
    """PNG: independent coordinates, their velocities, the friction forces and the drives; stuck
    phases (of the exact model) shaded."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mech, t = built.mechanism, res.t
    fig, axes = plt.subplots(4, 1, sharex=True, figsize=(7, 8))
    for i in mech.partition:
        axes[0].plot(t, res["q"][:, i], label=mech.q_names[i])
        axes[1].plot(t, res["qd"][:, i], label=mech.q_names[i])
    for k in range(res["f_mu"].shape[1]):
        axes[2].plot(t, res["f_mu"][:, k], label=f"f_mu[{k + 1}]")
    for n, d in enumerate(spec.drives):
        axes[3].plot(t, res["tau"][:, n], label=f"{d.name} ({d.unit})")
    stuck = res["stuck"].astype(bool)
    for ax, label in zip(axes, ("q (independent)", "qd (independent)", "friction", "drives")):
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
        ax.fill_between(t, 0, 1, where=stuck, transform=ax.get_xaxis_transform(), color="0.85", step="mid")
        if ax.lines:
            ax.legend(fontsize=7, loc="upper right")
    axes[-1].set_xlabel("t (s)")
    fig.suptitle(f"{spec.name} (stuck phases shaded)" if stuck.any() else spec.name, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m friction_joints.mechanism", description=__doc__.split("\n\n")[0].replace("\n", " "))
    parser.add_argument("file", type=Path, help="mechanism file (TOML)")
    parser.add_argument("--out", type=Path, default=Path("out"), help="folder of the drawing and results (out)")
    parser.add_argument("--simulate", nargs="?", const="", metavar="INPUTS.csv",
                        help="run the mechanism (inputs from the CSV, else from the file's [experiment])")
    parser.add_argument("--stop-time", type=float, help="end of the run, s (default: the file's experiment, or 1)")
    parser.add_argument("--step", type=float, help="output interval, s (default: the file's experiment, or 0.01)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a parameter value")
    args = parser.parse_args(argv)
    try:
        values = {k.strip(): float(v) for k, v in (s.split("=", 1) for s in args.set)}
    except ValueError:
        parser.error(f"--set takes NAME=VALUE with a number, got {args.set}")
    try:
        spec = read_file(args.file)
        own = {p.name for p in spec.parameters}
        unknown = sorted(set(values) - own - {"rtol", "friction_model", *MODEL_PARAMETERS, *spec.law_values()})
        if unknown:
            parser.error(f"--set: no parameter {', '.join(unknown)} in {args.file} (nor friction_model, rtol, "
                         f"{', '.join(MODEL_PARAMETERS)} or a joint law's)")
        built = spec.build({k: v for k, v in values.items() if k in own})
        laws = bristle_laws(spec, built, values)
    except (OSError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    print(summary(spec, built))
    print("friction: " + ("exact Coulomb stick-slip" if laws is None else "bristle laws " + ", ".join(
        f"{type(law).__name__} (f_mu[{k}])" for law, k in zip(laws, contact_coordinates(built)))))
    from friction_joints.mechanisms.drawing import drawing_png

    args.out.mkdir(parents=True, exist_ok=True)
    drawing = args.out / f"{spec.name}_drawing.png"
    drawing.write_bytes(drawing_png(built.mechanism, built.q0, spec.body_names, spec.joint_names,
                                    f"{spec.name} in its initial configuration"))
    print(f"wrote {drawing}")
    if args.simulate is None:
        return 0
    e = spec.experiment
    stop = args.stop_time or float(e.get("stop_time", 1.0))
    step = args.step or float(e.get("step_size", 0.01))
    try:
        inputs = (read_inputs(Path(args.simulate), [d.name for d in spec.drives]) if args.simulate
                  else {n: held(fn, stop, step) for n, fn in spec.experiment_inputs(values).items()})
        res = simulate(spec, built, inputs, stop, step, laws, values.get("rtol", RTOL))
    except (OSError, ValueError, FrictionJointsError) as exc:
        print(f"simulation failed: {exc}", file=sys.stderr)
        return 1
    stem = args.out / f"{spec.name}_simulation"
    write_results(stem.with_suffix(".csv"), res, spec, built)
    plot_results(stem.with_suffix(".png"), res, spec, built)
    print(f"simulated 0 to {stop:g} s: {len(res.events)} events; wrote {stem}.csv and {stem}.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
