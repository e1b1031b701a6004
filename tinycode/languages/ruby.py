"""Ruby: ruby -c judges it where installed."""

from __future__ import annotations

from .base import LanguageSpec, wheel

LANGUAGE = LanguageSpec("ruby", wheel("tree_sitter_ruby"), (".rb", ".rake", ".gemspec"),
                        filenames=("Gemfile", "Rakefile"), aliases=("rb",), interpreters=("ruby",),
                        words=("ruby",), judges=("ruby",), edit_family="end", heredoc_marks=("<<",))
