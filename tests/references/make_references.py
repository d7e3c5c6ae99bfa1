"""Write the regression references of the project's FMUs into this folder (FMI cross-check layout).

    python tests/references/make_references.py DIST [CASE ...]   (DIST: the folder of the built FMUs)

Writes <Case>_in.csv and <Case>_ref.opt, then records <Case>_ref.csv from a run of the FMU
(python -m friction_joints.fmi.regression --record), for every case: a model, or a variant
<Model>-<variant> of its parameters. Run it only when a change of the results is
understood and intended, and say why in the commit.
"""

import sys
from pathlib import Path

import numpy as np
from fmpy import read_model_description

from friction_joints.fmi.regression import START, input_table, record, write_csv

HERE = Path(__file__).resolve().parent

# model: (stop time s, communication step s, {input: function of t}, checked outputs)
CASES = {
    "DupontTwoMass": (1.5, 0.01, {"F1": lambda t: 7 * np.sin(2.4 * t), "F2": lambda t: 50 * np.cos(0.8 * t)},
                      ["x", "xd", "xdd", "f_n", "f_mu", "stuck", "E_kin", "W_drive", "W_friction"]),
    "SliderCrank": (1.0, 0.02, {"tau": lambda t: 4 * np.sin(3 * t)},
                    ["q[1]", "q[2]", "u", "f[1]", "f[2]", "f_mu[1]", "f_mu[4]", "stuck", "E_kin", "E_pot",
                     "W_drive", "W_friction"]),
    "OffsetSliderCrank": (0.3, 0.01, {"tau": lambda t: 60.0 + 0 * t},
                          ["q[1]", "q[2]", "q[3]", "u", "f[1]", "f_mu[1]", "f_mu[4]", "E_kin", "W_drive",
                           "W_friction"]),
    "SpeedController": (2.0, 0.01, {"w_ref": lambda t: np.where(t >= 0.5, 2.0, 0.0), "w": lambda t: np.sin(3 * t)},
                        ["tau", "integral"]),
    "SingleMassFriction": (3.0, 0.01, {"F": lambda t: 5 * np.sin(2 * t)},
                           ["z", "zd", "zdd", "f_friction", "stuck", "W_drive", "W_friction"]),
    "TwoMassFriction": (5.0, 0.01, {"F1": lambda t: 6 * np.sin(2 * t), "F2": lambda t: 20 * np.cos(1.3 * t)},
                        ["z1", "z2", "zd1", "zd2", "zdd1", "zdd2", "f_12", "f_20", "stuck_12", "stuck_20",
                         "W_drive", "W_friction"]),
    "RSRRRLinkage": (0.5, 0.01, {"tau": lambda t: 10.0 * np.minimum(t / 2.0, 1.0), "tau_res": lambda t: 0 * t},
                     ["psi[1]", "psi[2]", "psi[3]", "psi[4]", "psid[1]", "psid[2]", "f_S[1]", "f_S[2]", "f_S[3]",
                      "f_x[2]", "n_y[3]", "t_f[1]", "t_f[2]", "E_kin", "W_drive", "W_friction"]),
    "SteeringSystem": (2.0, 0.01, {"tau_sw": lambda t: 3.0 * np.sin(np.pi * t), "M_z_left": lambda t: -20 * np.sin(np.pi * t),
                                   "M_z_right": lambda t: -20 * np.sin(np.pi * t), "F_z_left": lambda t: 3500 + 0 * t,
                                   "F_z_right": lambda t: 3500 + 0 * t},
                       ["delta_sw", "x_rack", "delta_left", "T_column", "F_gear", "T_f_pinion", "F_f_rack",
                        "T_f_kingpin_left", "stuck_rack", "stuck_kingpin_left", "in_freeplay", "W_friction"]),
    "SingleTrackVehicle": (2.0, 0.01, {"delta_left": lambda t: 0.02 * np.sin(2 * t), "delta_right": lambda t: 0.02 * np.sin(2 * t)},
                           ["v_y", "r", "a_y", "M_z_left", "F_z_left", "F_z_right"]),
    "BristleOscillator": (3.0, 0.01, {"x_d": lambda t: 0 * t, "v_belt": lambda t: 0.1 + 0 * t,
                                      "F_n": lambda t: 10.0 * (1.0 + 0.3 * np.sin(3.0 * t))},
                          ["x", "v", "a", "z", "F_f", "W_friction"]),
}

# Variant cases <Model>-<variant> (regression.cases): the model's FMU with the start values given, otherwise as
# the CASES entry of the model (its inputs, outputs and times; stop time, outputs and RelTol replaced where given).
# bristle friction (issue 16): cases whose run takes under 10 s
VARIANTS = {
    "BristleOscillator-ElastoPlastic": ({"model": 3}, {"stop": 1.5}),
    "SliderCrank-LuGre": ({"friction_model": 2}, {"stop": 0.4, "rel_tol": 1e-6}),  # at rtol 1e-8: 30 s for 1 s
    "SteeringSystem-LuGre": ({"friction_model": 2}, {"stop": 1.0}),
    # LuGre on every journal surface, from rest: held by the bristles, then breakaway
    "RSRRRLinkage-LuGre": ({"friction_model": 2}, {"stop": 0.2, "outputs": [
        "psi[1]", "psi[3]", "psid[1]", "psid[4]", "f_S[2]", "t_f[1]", "t_f[2]", "E_kin", "W_drive", "W_friction"]}),
}


def write_case(dist, case, model, stop, step, inputs, outputs, start=None, rel_tol=None):
    fmu = Path(dist) / f"{model}.fmu"
    experiment = read_model_description(fmu).defaultExperiment
    if rel_tol is None:  # the FMU's own rtol
        rel_tol = experiment.tolerance if experiment and experiment.tolerance else 1e-8
    starts = "".join(f"{START}{name}, {value}\n" for name, value in (start or {}).items())
    (HERE / f"{case}_ref.opt").write_text(f"StartTime, 0.0\nStopTime, {stop}\nStepSize, {step}\nRelTol, {rel_tol}\n"
                                          + starts)
    write_csv(HERE / f"{case}_in.csv", input_table(stop, step, inputs))
    print(f"wrote {record(fmu, HERE, outputs, case)}")


def main(dist, only=None):
    for model, (stop, step, inputs, outputs) in CASES.items():
        if not only or model in only:
            write_case(dist, model, model, stop, step, inputs, outputs)
    for case, (start, changes) in VARIANTS.items():
        model = case.partition("-")[0]
        if not only or case in only:
            stop, step, inputs, outputs = CASES[model]
            write_case(dist, case, model, changes.get("stop", stop), step, inputs, changes.get("outputs", outputs),
                       start, changes.get("rel_tol"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
