"""node-gateway-toolkit: a Jupyter toolkit for a hosted blockchain node gateway."""

from ._version import __version__

__all__ = ["__version__"]
