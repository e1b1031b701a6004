"""Maintainer scripts (bench, corrupt, fuzz, load): run as ``python tools/NAME.py``.

A package only so that tests can ``from tools import bench`` with the repository on
``sys.path``; nothing here is installed with tinycode.
"""
