"""The agent's tools: a small contract, one guard every call goes through, and the
tools that read and edit the working copy."""

from __future__ import annotations

from .base import Observation, Tool, ToolGuard
from .workspace import WorkingCopy, build_tools

__all__ = ["Observation", "Tool", "ToolGuard", "WorkingCopy", "build_tools"]
