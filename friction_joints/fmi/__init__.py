"""The FMI layer, with no physics in it: the common pythonfmu slave of the FMUs (``slave``), its
FMI 3.0 binding for pythonfmu3 (``fmi3``), the variables of the slider-crank FMUs (``crank``), the
guard of pythonfmu's library exit (``exit_guard``), the Python loader put in front of pythonfmu's
Linux binary (``loader_python.c`` with ``loader_fmi2.c`` or ``loader_fmi3.c``, installed by
``loader``), a fixed-step co-simulation master on FMPy (``master``) with its coupling
schemes (``coupling``: Jacobi, Gauss-Seidel, implicit with Aitken or IQN-ILS), the steering and
vehicle FMUs co-simulated (``steering_vehicle``), FMU regression tests against references
(``regression``), and parameter sweeps (``sweep``) and regression runs on a Dask cluster (``cluster``)."""
