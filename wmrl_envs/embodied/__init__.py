"""Embodied tasks: ``WMRL/LIBERO-Long-v0`` (LIBERO's libero_10 on robosuite + MuJoCo).

Importing this package does not import the simulator; ``gym.make`` and the first ``reset`` do.
"""
