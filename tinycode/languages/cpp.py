"""C++: g++ or clang++ -fsyntax-only judges it, with the file's project's flags."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec(
    "cpp", wheel("tree_sitter_cpp"), (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ino"),
    aliases=("c++", "cxx"), comment="//", words=("cpp",), relatives=("c",),
    # A C++ compiler reads the standard library's headers on every run (about a second
    # here), several times a C compiler's or node's work.
    judges=("g++", "clang++", "c++"), judge_cost=16, dialect=("-x", "c++", "-std=gnu++20"),
    judge_input="input.cpp", project=True,
)
