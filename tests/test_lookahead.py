"""A keyword left out, found from the grammar's own parse table: the words admitted
where the token after the gap was read, and after which that token may stand."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest

from tinycode.check import Problem, check
from tinycode.engine.candidates import suggest
from tinycode.engine import rules
from tinycode.engine.lookahead import admitted_keywords, lost_keyword_edits
from tinycode.languages import get_parser

GO = """package stats

import "testing"

var samples = []int{3, 1, 2}

func TestSum(t *testing.T) {
	total := 0
	for _, s := range samples {
		total += s
	}
	if total != 6 {
		t.Fatalf("sum %d", total)
	}
}
"""
JAVASCRIPT = """'use strict'

function count (items, wanted) {
  let found = 0
  for (let i = 0; i < items.length; i++) {
    if (items[i] === wanted) {
      found++
    }
  }
  return found
}

module.exports = count
"""
PHP = """<?php

namespace App\\Mail;

class Mailer extends Transport
{
    private $queue = [];

    public function send($message)
    {
        $this->queue[] = $message;
        return count($this->queue);
    }
}
"""
JAVA = """package org.example.shapes;

public final class Square
        extends Shape {
    private final double side;

    public Square(double side) {
        this.side = side;
    }

    @Override
    public double area() {
        return side * side;
    }
}
"""


@pytest.mark.parametrize("language, source, old, new", [
    ("go", GO, "func TestSum(t", "TestSum(t"),  # a declaration's first word
    ("javascript", JAVASCRIPT, "  for (let i", "  (let i"),  # a statement's
    ("php", PHP, "class Mailer extends", "Mailer extends"),  # in a file with no other class
    ("java", JAVA, "        extends Shape {", "        Shape {"),  # on a declaration's second line
    ("php", PHP, "    public function send(", "    public send("),  # after a modifier
])
def test_a_keyword_left_out_is_put_back(language, source, old, new):
    broken = source.replace(old, new)
    assert broken != source and not check(broken, language).ok
    found = [c.source_after for c in suggest(broken, language, limit=8)]
    assert source in found


def _leaf(source: str, language: str, text: str):
    tree = get_parser(language).parse(source.encode())
    node = tree.root_node.descendant_for_byte_range(source.index(text), source.index(text) + len(text))
    assert node is not None and node.child_count == 0 and node.text.decode() == text
    return node


def test_only_the_words_after_which_the_next_token_may_stand_are_admitted():
    broken = GO.replace("func TestSum(t", "TestSum(t")
    admitted = admitted_keywords("go", _leaf(broken, "go", "TestSum"))
    assert "func" in admitted and "var" in admitted
    # 'struct' and 'map' may begin a declaration's type, but no name follows either
    assert "struct" not in admitted and "map" not in admitted


def test_the_reported_lines_first_tokens_are_where_words_are_tried():
    broken = GO.replace("func TestSum(t", "TestSum(t")
    problems = check(broken, "go").problems
    edits = list(lost_keyword_edits(broken.split("\n"), tuple(problems), "go"))
    assert edits and all(e.rule == "lost-keyword" for e in edits)
    assert {e.line for e in edits} <= {p.line for p in problems[:3]}
    assert any(e.new_lines == ["func TestSum(t *testing.T) {"] for e in edits)


CS_USINGS = ("using System;\nusing System.Text;\nusing System.Runtime.InteropServices;\nusing System.Collections.Generic;\n\n"
             "namespace Probe\n{\n    class Main\n    {\n        static int Count(List<string> items) { return items.Count; }\n"
             "    }\n}\n")


def test_a_line_where_tree_sitter_only_guesses_a_missing_token_is_still_tried_at_its_start():
    # tree-sitter-c-sharp reads the line as a statement that lacks a '!' before its ';':
    # the token is its guess, the line is where the keyword was lost.
    broken = CS_USINGS.replace("using System.Runtime", "System.Runtime")
    problems = check(broken, "csharp").problems
    assert problems[0].line == 3 and problems[0].kind == "missing"
    edits = list(lost_keyword_edits(broken.split("\n"), tuple(problems), "csharp"))
    assert any(e.new_lines == ["using System.Runtime.InteropServices;"] for e in edits)


def test_the_token_a_compiler_points_at_is_tried_first():
    # gcc: "unknown type name 'node'" at the eighth token of the line.
    source = ("struct node { int n; };\n"
              "extern int count_nodes (const char *name, long limit, node *from);\n")
    column = source.split("\n")[1].index("node *from") + 1
    problem = Problem(2, column, 2, column, "unknown type name 'node'", "node", "compiler")
    edits = list(lost_keyword_edits(source.split("\n"), (problem,), "c"))
    pointed = [e for e in edits if e.column == column - 1]
    assert edits[:len(pointed)] == pointed
    assert any("long limit, struct node *from" in e.new_lines[0] for e in pointed)


def test_a_keyword_the_files_code_never_uses_is_unfounded():
    broken = GO.replace("func TestSum(t", "TestSum(t")
    problems = check(broken, "go").problems
    line = broken.split("\n").index("TestSum(t *testing.T) {") + 1
    edits = {e.new_lines[0].split()[0]: e for e in lost_keyword_edits(broken.split("\n"), tuple(problems), "go")
             if e.line == line}
    assert not edits["var"].unfounded  # the file declares a variable
    assert edits["func"].unfounded  # and has no other function



RUN_RB = """def run(command)
  output = nil
  begin
    output = IO.popen(command, &:read)
    status = $?.exitstatus
    puts "exit #{status}"
  => ex
    warn ex.message
  end
  output
end
"""


def test_the_only_keyword_after_which_the_line_reads_on_is_founded_though_the_file_never_uses_it():
    # Before '=> ex' only 'rescue' lets the line read on: the grammar founds it.
    lines = RUN_RB.split("\n")
    problems = (Problem(7, 3, 7, 3, "syntax error, unexpected =>", "=>"),)
    edits = [e for e in lost_keyword_edits(lines, problems, "ruby") if e.line == 7]
    assert edits[0].new_lines == ["  rescue => ex"] and not edits[0].unfounded
    assert all(e.unfounded for e in edits[1:] if e.new_lines[0].split()[0] in ("return", "yield", "break"))


CART = """#include <iostream>
#include <string>
#include <vector>

struct Item {
    std::string name;
    double price;
};

int main() {
    std::vector<Item> cart{{"tea", 3.5}, {"cake", 4.25}};
    std::cout << cart.size() << std::endl;
    return 0;
}
"""


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not installed")
def test_an_unfounded_guess_takes_no_compiler_run_from_the_alternatives_to_a_repair():
    # 'std' unknown leaves the types unknown: 'enum std:string name;' passes as well as
    # the deletion g++ points at, and the compiler's runs for alternatives are few.
    broken = CART.replace("std::string name;", "std:string name;")
    found = [c.source_after for c in suggest(broken, "cpp", limit=8)]
    assert CART in found
    assert not any("enum std" in s for s in found)


@pytest.mark.skipif(shutil.which("gofmt") is None, reason="gofmt not installed")
def test_the_rules_edits_take_no_more_of_the_judges_runs_than_its_allowance(monkeypatch):
    broken = GO.replace("func TestSum(t", "TestSum(t")
    assert GO in [c.source_after for c in suggest(broken, "go", limit=8)]
    monkeypatch.setitem(rules.RULES, "lost-keyword", replace(rules.RULES["lost-keyword"], judge_runs=0))
    assert GO not in [c.source_after for c in suggest(broken, "go", limit=8)]
