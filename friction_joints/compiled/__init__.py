"""The compiled engine's Python side: each model family packed into the flat arrays of the C engine
(``friction_joints.native``), and the hybrid integrator that runs the C DOP853 between the mode
decisions. The Python engine (``friction_joints.hybrid`` and the model classes) is its reference;
tests compare the two."""
