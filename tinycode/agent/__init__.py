"""The ReAct repair agent: prompt, turn parser, loop and step records."""

from __future__ import annotations

from .loop import AgentOutcome, run_agent
from .trace import Step

__all__ = ["AgentOutcome", "Step", "run_agent"]
