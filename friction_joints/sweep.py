"""``python -m friction_joints.sweep``: the command of ``friction_joints.fmi.sweep`` (parameter sweeps of
an FMU on a Dask cluster; the FMI layer's code lives in ``fmi``)."""

import sys

from friction_joints.fmi.sweep import main

if __name__ == "__main__":
    sys.exit(main())
