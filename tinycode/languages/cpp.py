"""C++: g++ or clang++ -fsyntax-only judges it, with the file's project's flags."""

from __future__ import annotations

from .base import LanguageSpec, wheel


def declare_type(name: str, namespace: str, template: bool) -> str:
    """A class (a class template where the text writes ``name<``), in its namespace."""
    declaration = f"template <class...> struct {name} {{}};" if template else f"struct {name} {{}};"
    for part in reversed([p for p in namespace.split("::") if p]):
        declaration = f"namespace {part} {{ {declaration} }}"
    return declaration


LANGUAGE = LanguageSpec(
    "cpp", wheel("tree_sitter_cpp"), (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ino"),
    aliases=("c++", "cxx"), comment="//", block_comment=("/*", "*/"), words=("cpp",), relatives=("c",),
    # A C++ compiler reads the standard library's headers on every run (about a second
    # here), several times a C compiler's or node's work.
    named_keywords=("char", "int", "void", "float", "double", "bool", "auto", "wchar_t", "char8_t", "char16_t",
                    "char32_t"),
    judges=("g++", "clang++", "c++"), judge_cost=16, dialect=("-x", "c++", "-std=gnu++20"),
    judge_input="input.cpp", project=True, declare_type=declare_type, judge_reports_every_error=True,
)
