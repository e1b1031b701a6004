"""The ReAct agent: prompt, turn parser and loop, and the tools it acts with (a small
contract, one guard every call goes through, the tools that read and edit the working
copy)."""

from __future__ import annotations

from ..trace import Step
from .loop import AgentOutcome, run_agent
from .toolkit import Observation, Tool, ToolGuard
from .workspace import WorkingCopy, build_tools

__all__ = ["AgentOutcome", "Observation", "Step", "Tool", "ToolGuard", "WorkingCopy", "build_tools",
           "run_agent"]
