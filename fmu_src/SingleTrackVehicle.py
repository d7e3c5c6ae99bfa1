"""FMU: a single-track (bicycle) vehicle with linear tyres, the partner of the SteeringSystem FMU."""

from friction_joints.fmi.slave import Experiment, SystemSlave, Var
from friction_joints.vehicle import SingleTrackVehicle as Model
from friction_joints.vehicle import VehicleParameters

_DEFAULTS = VehicleParameters()
_PARAMETERS = (("m", "kg", "vehicle mass"), ("I_z", "kg.m2", "yaw moment of inertia"),
               ("a", "m", "centre of mass to front axle"), ("b", "m", "centre of mass to rear axle"),
               ("C_f", "N/rad", "front axle cornering stiffness"), ("C_r", "N/rad", "rear axle cornering stiffness"),
               ("t_p", "m", "pneumatic trail"), ("t_c", "m", "caster trail"), ("h", "m", "height of the centre of mass"),
               ("T", "m", "front track width"), ("u", "m/s", "forward speed (constant)"),
               ("sigma", "m", "tyre relaxation length (0: none)"))


class SingleTrackVehicle(SystemSlave):
    author = "friction-joints"
    description = ("Single-track vehicle with linear tyres at constant speed: yaw rate, lateral acceleration, "
                   "front-wheel aligning moments and loads from the road-wheel steer angles")
    equations = ("m (v<sub>y</sub>' + u r) = F<sub>yf</sub> + F<sub>yr</sub>; I<sub>z</sub> r' = a F<sub>yf</sub> - b "
                 "F<sub>yr</sub>; F<sub>yf</sub> = C<sub>f</sub> (delta - (v<sub>y</sub> + a r)/u), F<sub>yr</sub> = "
                 "-C<sub>r</sub> (v<sub>y</sub> - b r)/u, delta = (delta<sub>left</sub> + delta<sub>right</sub>)/2, "
                 "with sigma &gt; 0 lagging as F<sub>y</sub>' = (u/sigma)(C alpha - F<sub>y</sub>); "
                 "M<sub>z</sub> = -(t<sub>p</sub> + t<sub>c</sub>) F<sub>yf</sub>/2 per front wheel; F<sub>z</sub> = "
                 "m g b/(2L) -/+ m a<sub>y</sub> h b/(L T) (left/right).")
    inputs = ("delta_left", "delta_right")
    experiment = Experiment(3.0, 0.01, ("r", "a_y", "M_z_left", "F_z_left"),
                            {"delta_left": lambda t: 0.02 if t >= 0.5 else 0.0,
                             "delta_right": lambda t: 0.02 if t >= 0.5 else 0.0},
                            "road-wheel steer step of 0.02 rad at 0.5 s, 80 km/h")
    variables = (
        (Var("delta_left", "input", "rad", "left road-wheel steer angle", 0.0, display="deg"),
         Var("delta_right", "input", "rad", "right road-wheel steer angle", 0.0, display="deg"))
        + tuple(Var(name, "parameter", unit, text, getattr(_DEFAULTS, name), 0.0) for name, unit, text in _PARAMETERS)
        + (Var("rtol", "parameter", "1", "relative tolerance of the internal integrator", 1e-8, 1e-12, 1e-2),
           Var("v_y", "output", "m/s", "lateral velocity of the centre of mass"),
           Var("r", "output", "rad/s", "yaw rate"),
           Var("psi", "output", "rad", "yaw angle", display="deg"),
           Var("a_y", "output", "m/s2", "lateral acceleration"),
           Var("F_yf", "output", "N", "front axle lateral force"),
           Var("F_yr", "output", "N", "rear axle lateral force"),
           Var("M_z_left", "output", "N.m", "aligning moment on the left front wheel about its king-pin"),
           Var("M_z_right", "output", "N.m", "aligning moment on the right front wheel about its king-pin"),
           Var("F_z_left", "output", "N", "vertical load of the left front wheel"),
           Var("F_z_right", "output", "N", "vertical load of the right front wheel"))
    )

    def build(self, p):
        params = VehicleParameters(**{name: p[name] for name, _, _ in _PARAMETERS})
        return lambda inputs: Model(params, inputs), lambda s: s.initial_state(), p["rtol"]

    def publish(self, rec):
        return {name: rec[name] for name in ("v_y", "r", "psi", "a_y", "F_yf", "F_yr", "M_z_left", "M_z_right",
                                              "F_z_left", "F_z_right")}
