"""Compiles the rules engine's one step of a move (step.py), its playout kernels
(playout.py) and its seeded deal (fairness.py) with mypyc when it can (every move the engine
makes, every deal, bots' rollouts and the random-round benchmark run several times faster);
without a compiler the same modules run as plain Python, so nothing else depends on the build."""

import os

from setuptools import setup

ext_modules = []
if not os.environ.get("DOMINO_NO_MYPYC"):
    try:
        from mypyc.build import mypycify
    except ImportError:
        pass
    else:
        # ``--config-file=`` (empty): compile with mypy's defaults, not pyproject.toml's
        # [tool.mypy], which is for type-checking the project and names plugins (pydantic)
        # that the isolated build environment does not have.
        ext_modules = mypycify(["--config-file=", "services/rules/step.py", "services/rules/playout.py",
                                "services/rules/fairness.py", "services/rules/leading.py",
                                "services/rules/solve.py"],
                               opt_level="3")

setup(ext_modules=ext_modules)
