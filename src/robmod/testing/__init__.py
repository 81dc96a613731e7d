"""Helpers for tests and benchmarks: peers built from a robmod description (test oracles).

Nothing here is a runtime dependency of robmod: Pinocchio and the Robotics
Toolbox are imported only when these functions are called.
"""
