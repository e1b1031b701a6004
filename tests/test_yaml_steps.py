"""Several mistakes in one YAML file: PyYAML stops at its first, and tree-sitter-yaml's
recovery from a mistake loses its place for the lines after it."""

from __future__ import annotations

import pytest

from tinycode import repair
from tinycode.check import check
from tinycode.engine.candidates import suggest
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
    # Line 12 either loses its dangling ':' or becomes a key with a nested key: the
    # model's choice. The tab is spaces again.
    cut = "    - hook: googlecloudsdk.command_lib.accesscontextmanager.policies\n"
    nested = "    - hook:\n        googlecloudsdk.command_lib.accesscontextmanager.policies:\n"
    full = "    - hook: googlecloudsdk.command_lib.accesscontextmanager.policies:GetDefaultPolicy\n"
    assert result.source in (POLICY.replace(full, cut), POLICY.replace(full, nested))


SUBNETS = """private_cloud:
  name: private cloud
  collection: vmwareengine.projects.locations.privateClouds
  attributes:
  - *location
  - &private_cloud
    parameter_name: privateCloudsId
    attribute_name: private-cloud
    help: VMware Engine private cloud.
subnet:
  name: subnet
  collection: vmwareengine.projects.locations.privateClouds.subnets
  attributes:
  - *location
  - *private_cloud
  - parameter_name: subnetsId
    attribute_name: subnet
    help: VMware Engine subnet.
"""


@pytest.mark.parametrize("joined, first", [
    ("subnet: name: subnet", "subnet:"),  # a key with no value of its own: the pair nests under it
    ("    attribute_name: subnet help: VMware Engine subnet.", "    attribute_name: subnet"),  # beside it
])
def test_a_line_of_two_pairs_is_split_before_the_second(joined, first):
    lines = SUBNETS.split("\n")
    at = next(n for n, line in enumerate(lines) if joined.startswith(line) and line.strip())
    original = lines[at] + "\n" + lines[at + 1]
    broken = SUBNETS.replace(original, joined)
    assert not check(broken, "yaml").ok
    found = [c.source_after for c in suggest(broken, "yaml", limit=5)]
    assert SUBNETS in found and broken.replace(joined, original) == SUBNETS


def test_tree_sitter_s_objections_to_lines_yaml_s_judge_read_do_not_count_against_a_step():
    # Joined lines on line 10, a tab on line 17: once line 10 is split PyYAML reads on to
    # line 17, and the split is a step of the same worth as any other that gets it there.
    broken = SUBNETS.replace("subnet:\n  name: subnet", "subnet: name: subnet").replace(
        "    attribute_name: subnet", "\tattribute_name: subnet")
    found = suggest(broken, "yaml", limit=5)
    split = [c for c in found if "subnet:\n  name: subnet\n" in c.source_after]
    assert split and split[0].problems_after == min(c.problems_after for c in found)
