"""Several mistakes in one YAML file: PyYAML stops at its first, and tree-sitter-yaml's
recovery from a mistake loses its place for the lines after it."""

from __future__ import annotations

import pytest

from tinycode import repair
from tinycode.check import check
from tinycode.config import Settings

from fake_llm import FakeLLM

yaml = pytest.importorskip("yaml")

POLICY = """policy:
  name: policy
  collection: accesscontextmanager.accessPolicies
  attributes:
  - &policy
    parameter_name: accessPoliciesId
    attribute_name: policy
    help: |
      The ID of the access policy.
    property: access_context_manager/policy
    fallthroughs:
    - hook: googlecloudsdk.command_lib.accesscontextmanager.policies:GetDefaultPolicy
      hint: automatically, if the current account belongs to an organization with
        exactly one access policy.
level:
  name: level
  collection: accesscontextmanager.accessPolicies.accessLevels
  attributes:
  - *policy
  - parameter_name: accessLevelsId
    attribute_name: level
    help: |
      The ID of the access level.
perimeter:
  name: perimeter
  collection: accesscontextmanager.accessPolicies.servicePerimeters
  attributes:
  - *policy
  - parameter_name: servicePerimetersId
    attribute_name: perimeter
    help: |
      The ID of the service perimeter.
"""


def test_a_step_the_judge_reads_past_is_kept_whatever_tree_sitter_says_before_its_next_error():
    # The value cut short on line 12 is one mistake, the tab on line 30 another. With
    # line 12 repaired PyYAML reads on to line 30, while tree-sitter now objects to a
    # line between them that PyYAML has read as correct.
    broken = POLICY.replace("policies:GetDefaultPolicy", "policies:").replace(
        "    attribute_name: perimeter", "\tattribute_name: perimeter")
    first = check(broken, "yaml").problems
    assert first[0].line == 12 and first[0].source == "PyYAML"
    result = repair(broken, "yaml", llm=FakeLLM(scorer=lambda prompt, text: 0.0), settings=Settings(agent="off"))
    assert result.status == "fixed"
    assert result.source == POLICY.replace("policies:GetDefaultPolicy", "policies")
