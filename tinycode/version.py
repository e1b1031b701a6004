"""The version of tinycode: written once here, read by the package, the build and the
User-Agent. A leaf module: it imports nothing, so anything may import it."""

__version__ = "0.1.0"
