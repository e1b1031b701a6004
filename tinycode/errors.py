"""The one exception hierarchy. The CLI maps each to an exit code in one place."""

from __future__ import annotations


class TinycodeError(Exception):
    """Base of every error tinycode raises on purpose; the message is for the user."""


class UsageError(TinycodeError):
    """The command line or an argument is wrong."""


class InputError(TinycodeError):
    """A file cannot be read as source text (missing, binary, undecodable, ...)."""


class UnknownLanguageError(UsageError):
    """No grammar is known for a file or a ``--lang`` value."""


class ConfigError(UsageError):
    """A configuration key or value is wrong."""


class ModelError(TinycodeError):
    """A model cannot be found, verified, loaded or reached."""


class ModelUnavailable(ModelError):
    """The model could not be loaded at all: every file would fail the same way."""


class ModelCrashed(ModelUnavailable):
    """The process that held the model died (a crash in native code, or killed): the
    model is gone for the rest of the run."""
