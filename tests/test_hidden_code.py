"""A repair never hides code: an edit that turns code into a comment or a string is no repair."""

from __future__ import annotations

import shutil

import pytest

from tinycode.check import check
from tinycode.engine import candidates
from tinycode.engine.candidates import suggest
from tinycode.engine.guard import hides_code
from scripted import first_suggested

PHP_QUEUE = """<?php
class Queue {
  public function add($task) {
    $task setUrl('/a");
    $this->items[] = $task;
    $this->count = $this->count + 1;
    $this->log->info($this->count);
    return $this;
  }

  public function size() {
    return $this->count;
  }
}
"""
RAKE = """module Rake
  def self.clean
    true
  end
end

CLEAN = ::Rake::FileList["**/*~", "**/core"]
CLEAN.clear_exclude.exclude { |fn|
  fn.pathmap("%f").downcase == "core" File.directory?(fn)
}

task :clean do
  Rake::Cleaner.cleanup_files(CLEAN)
end
"""
HIDING = [
    # A string closed early: the rest of the line became a comment.
    ("ruby", 'def f(ref)\n  wellformed_error("undefined entity: #{ref})\n  x = 1\nend\n',
     'def f(ref)\n  wellformed_error("undefined entity") #{ref})\n  x = 1\nend\n'),
    # A "*/" taken away far above the error: the code below it became the comment.
    ("c", "/* a */\nint x = f(2);\n/* b */\nint b = 1\n", "/* a *\nint x = f(2);\n/* b */\nint b = 1;\n"),
    # A comment opened before a stray closer far below it: the code between is hidden.
    ("c", "int a = f(1 2);\nint b = g(3);\nint c = h(4);\nint d = 5; */\n",
     "int a = f(1 /* 2);\nint b = g(3);\nint c = h(4);\nint d = 5; */\n"),
    # Code between two comment lines made a comment.
    ("cpp", "// compute\np->q = *r + (s) t;\n// done\n", "// compute\n// p->q = *r + (s) t;\n// done\n"),
    # A comment's closer made an opener: the declaration below it, broken, became the comment.
    ("c", "/* Types.  */\ntypedef int (*__ftw_func_t,) (const char *__filename,\n"
          "    const struct stat *__status, int __flag);\n/* More.  */\nint x;\n",
     "/* Types.  /*\ntypedef int (*__ftw_func_t,) (const char *__filename,\n"
     "    const struct stat *__status, int __flag);\n/* More.  */\nint x;\n"),
    # The same where the broken declaration reads as mostly words: its keywords are no prose.
    ("c", "/* Return status.  */\nextern int aio_return (struct# aiocb *__aiocbp) __THROW;\n\n/* More.  */\nint x;\n",
     "/* Return status.  /*\nextern int aio_return (struct# aiocb *__aiocbp) __THROW;\n\n/* More.  */\nint x;\n"),
    # A declaration made the body of a macro named after its first word.
    ("c", "#include <stddef.h>\nextern Void release(struct item *it)  __THROW;\nint x;\n",
     "#include <stddef.h>\n#define extern Void release(struct item *it)  __THROW;\nint x;\n"),
    # A comment opened in the middle of a call.
    ("python", "x = foo(a b) + g(c)\n", "x = foo(a) # b) + g(c)\n"),
    ("javascript", "const a = f(x y) + g(z);\nconst b = 2;\n", "const a = f(x) // y) + g(z);\nconst b = 2;\n"),
    # Two quotes, each harmless alone, that together make the lines between a string.
    ("javascript", "const s = `hello ${x};\nconst y = f(a, b);\nconst z = 3;\n",
     "const s = `hello ${x};\nconst y = f(a, b);\nconst z = 3`;\n"),
    # The same over a string the input never closed: its parser had read no code there.
    ("php", PHP_QUEUE, PHP_QUEUE.replace("$task setUrl", "`task setUrl").replace("count;", "count`;")),
    # PHP's opening tag split: the whole file is text it outputs, which php -l accepts.
    ("php", PHP_QUEUE, PHP_QUEUE.replace("<?php", "<\n?php")),
    # An attribute's value closed with the other quote: the tags after it became its text.
    ("html", '<p><span id="nav"><a class="s" href="#idxA\'>A</a></span></p>\n<p>"x"</p>\n',
     '<p><span id=\'nav"><a class="s" href="#idxA\'>A</a></span></p>\n<p>"x"</p>\n'),
    # A quote made the other kind, or taken away, in a line of strings: the code between
    # two of them became one.
    ("javascript", "x = f(\"a\", b, 'c');\n", "x = f(\"a', b, 'c');\n"),
    ("javascript", 'x = "abc" + y + "def";\n', 'x = "abc + y + "def";\n'),
    # A closing quote taken away where the line has an odd count of it: the name it let out
    # of the string was code.
    ("php", "<?php\nfwrite($out, str_repeat('  ', $depth) . '- ' . $name . \"\\n');\nf();\n",
     "<?php\nfwrite($out, str_repeat('  ', $depth) . '-  . $name . \"\\n');\nf();\n"),
    # A division joined to the comment above it is code, however like a path it looks.
    ("c", "int f(int a, int b) {\n    // ratio\n    a/b;\n    return a b;\n}\n",
     "int f(int a, int b) {\n    // ratio a/b;\n    return a b;\n}\n"),
    # A line of closers joined to the comment above it is code: a block's end.
    ("cpp", "struct A {\n  int x;\n  // the last\n};\nint y = 1 1;\n",
     "struct A {\n  int x;\n  // the last };\nint y = 1 1;\n"),
    # A conditional directive made another: the broken include is no longer compiled.
    ("c", "#ifndef STRUCT_ONLY\n# include <X11/Xfuncproto..h>\n#endif\nint x;\n",
     "#ifdef STRUCT_ONLY\n# include <X11/Xfuncproto..h>\n#endif\nint x;\n"),
    ("cpp", "#if HAVE_A\nint a = 1;\n#else\nint a = 2 3;\n#endif\n", "#if HAVE_A\nint a = 1;\n#if\nint a = 2 3;\n#endif\n"),
    # A line made a conditional directive: the lines below it are compiled only if a macro is defined.
    ("c", "#include <X11/Xfuncproto.h>\n_XFUNCPROTOBEGIN\nint f(int x);\n_XFUNCPROTOEND\n",
     "#include <X11/Xfuncproto.h>\n_XFUNCPROTOBEGIN\nint f(int x);\n#ifdef _XFUNCPROTOEND\n"),
    # ... even a word of the language (C's 'if') that a '#' makes one; or a line '#if 0' added.
    ("c", "int f(int x) {\n  if (x)\n    return 1;\n  return 0 0;\n}\n",
     "int f(int x) {\n#if (x)\n    return 1;\n  return 0 0;\n}\n"),
    ("c", "int a;\nint b = 1 1;\n", "int a;\n#if 0\nint b = 1 1;\n"),
    # A line of code joined to an '#else': the compiler reads none of it.
    ("cpp", "#ifdef A\nint a;\n#else\nint b = 2 3;\n#endif\n", "#ifdef A\nint a;\n#else int b = 2 3;\n#endif\n"),
    # ... nor a token put after an '#ifdef' name.
    ("c", "#ifdef A\nint a;\n#endif\nint f(int x,, int y);\n", "#ifdef A,\nint a;\n#endif\nint f(int x,, int y);\n"),
    # ... or the null directive ('#' alone), which leaves the conditional it closed open.
    ("c", "#ifndef H\n#define H\nint f(void)\n#endif /* H */\n", "#ifndef H\n#define H\nint f(void)\n# /* H */\n"),
    # A here-document's '<<' typed at a line's end: the next line's command is its delimiter.
    ("bash", "echo start\nrun_tests\ntest_done\n", "echo start <<\nrun_tests\ntest_done\n"),
    # ... or a here-document opened whose delimiter is a keyword, or that no line below ends.
    ("bash", "if [ -n \"$a\" ]; then\n  cat notes\n-fi\necho b\n", "if [ -n \"$a\" ]; then\n  cat notes\n<<-fi\necho b\n"),
    ("bash", "echo start\nrun_tests\ntest_done\n", "echo start <<END\nrun_tests\ntest_done\n"),
    # ... in Ruby, on a line's 'end' (a document down to the next line that is 'end');
    # in PHP with its '<<<'.
    ("ruby", RAKE.replace("  end\nend\n", "  end\nend\nend\n", 1), RAKE.replace("  end\nend\n", "  end\nend\n<<end\n", 1)),
    ("php", "<?php\nfunction f() {\n  return 1;\n}\n$x = f() 2;\necho $x;\nEND;\n",
     "<?php\nfunction f() {\n  return 1;\n}\n$x = <<<END\n$x = f() 2;\necho $x;\nEND;\n"),
    # A value's quote made the other kind far from the one closed with the wrong quote:
    # the attributes between become one value.
    ("html", '<table class="nav" width="100%" cellspacing="3" cellpadding="2" border="0\' summary="Footer">\n'
     '<tr><td>x</td></tr>\n</table>\n',
     '<table class=\'nav" width="100%" cellspacing="3" cellpadding="2" border="0\' summary="Footer">\n'
     '<tr><td>x</td></tr>\n</table>\n'),
    # A line joined onto a macro's complete definition: the macro's body, no longer an enumerator.
    ("c", "enum {\n  A = 1,\n#define A A\n  B == 2,\n#define B B\n};\n",
     "enum {\n  A = 1,\n#define A A  B == 2,\n#define B B\n};\n"),
]
NOTE_JS = """function f(config) {
  if (!config) {
    return
  }

  // The default is not to save, to avoid races
  // it might still be useful in some cases, which then need to set --save
  const save = config.isDefault('save')
  return save
}
"""
REPAIRS = [
    # a comment's line split inside a quoted span joined back: its rest was the comment's
    ("typescript", "let c = 1\n// `\n${c} === undefined` +\n// done\nlet d = 2\n",
     "let c = 1\n// `${c} === undefined` +\n// done\nlet d = 2\n"),
    # a program's opening quote put back: the string ends at the quote the input left open
    ("bash", "awk\nBEGIN { n = 0 }\n{ n++ }\nEND { print n }\n' file\necho 'x'\n",
     "awk '\nBEGIN { n = 0 }\n{ n++ }\nEND { print n }\n' file\necho 'x'\n"),
    ("c", "#define MAX\n  100\nint x;\n", "#define MAX  100\nint x;\n"),  # a definition's body joined back to it
    ("python", 'print("hello)\nfoo()\n', 'print("hello")\nfoo()\n'),  # a string closed where it ends
    ("python", 'msg = "Value: %d, %s (x)\nfoo()\n', 'msg = "Value: %d, %s (x)"\nfoo()\n'),
    ("python", "x = 1  this is a comment\ny = 2\n", "x = 1  # this is a comment\ny = 2\n"),  # prose
    ("c", "int a;\n  stray words here\nint b;\n", "int a;\n  // stray words here\nint b;\n"),
    ("c", "int a; /* x */ */\nint b;\n", "int a; /* x */\nint b;\n"),  # a doubled closer taken away
    ("javascript", 'const a = "abc + f(x, y);\n', 'const a = "abc" + f(x, y);\n'),
    ("python", "x = foo(a, b # c)\ny = 1\n", "x = foo(a, b) # c)\ny = 1\n"),
    ("toml", 'include = {"tests", "tools"]\n', 'include = ["tests", "tools"]\n'),  # quotes stay quotes
    ("rust", "    / Very important: this file is `error-index.html`, not `index.html`!\n    x: 1,\n",
     "    // Very important: this file is `error-index.html`, not `index.html`!\n    x: 1,\n"),
    ("javascript", "const s = `hello ${x};\nconst y = f(a, b);\n", "const s = `hello ${x}`;\nconst y = f(a, b);\n"),
    ("php", PHP_QUEUE, PHP_QUEUE.replace("$task setUrl('/a\")", "$task->setUrl('/a')")),
    # A comment's opener split over two lines, its closer left as code: joined back.
    ("c", "int f(\n    int *\t/\n    * count */,\n    char *\t/* name */\n);\n",
     "int f(\n    int *\t/* count */,\n    char *\t/* name */\n);\n"),
    # A line's comment marker mistyped among comment lines.
    ("cpp", "// See the licence.\n/< /http://www.gnu.org/licenses/>.\n// More.\nint x;\n",
     "// See the licence.\n// /http://www.gnu.org/licenses/>.\n// More.\nint x;\n"),
    # A directive misspelt, made the one it was meant to be.
    ("c", "#ifdef A\nint a;\n#esle\nint b;\n#endif\n", "#ifdef A\nint a;\n#else\nint b;\n#endif\n"),
    ("cpp", "ifndef A\nint a;\n#endif\n", "#ifndef A\nint a;\n#endif\n"),  # its '#' lost
    ("c", "#ifdef A\nint a;\n#\n", "#ifdef A\nint a;\n#endif\n"),  # a remnant made '#endif'
    # A directive split after its '#' joined back; a macro's body repaired.
    ("c", "#\ninclude <features.h>\nint x;\n", "#include <features.h>\nint x;\n"),
    ("c", "#define MAX(a, b) ((a) > (b) ? (a) : (b)\nint x;\n", "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint x;\n"),
    # A line comment that lost one '/': tree-sitter reads the rest of the line as one
    # regular expression, whose words are prose.
    ("javascript", NOTE_JS.replace("  // it might", "  / it might"), NOTE_JS),
    # A value closed with the other quote, an attribute's '=' lost: the strings after
    # the edit, between quotes the line had, are the author's.
    ("html", '<body link="#00F" vlink="#804\' alink="#00F">\n<p>x</p>\n</body>\n',
     '<body link="#00F" vlink="#804" alink="#00F">\n<p>x</p>\n</body>\n'),
    ("html", '<table>\n<tr><th width "100%" align="center">Manual</th></tr>\n</table>\n',
     '<table>\n<tr><th width="100%" align="center">Manual</th></tr>\n</table>\n'),
    # A comment's line split inside its markup (RDoc's '+name+'): words, which Ruby
    # would read as a sum.
    ("ruby", "class A\n  # Creates a password in +\n  realm+ with +user+ and +password+\n  def f\n  end\nend\n",
     "class A\n  # Creates a password in +realm+ with +user+ and +password+\n  def f\n  end\nend\n"),
    # A file's first line, over a licence's comments, that lost a '/' of its marker.
    ("cpp", "/ -*- C++ -*-\n\n// Copyright (C) 2005 Free Software Foundation, Inc.\n//\nint x;\n",
     "// -*- C++ -*-\n\n// Copyright (C) 2005 Free Software Foundation, Inc.\n//\nint x;\n"),
    # A comment's line split inside its marks: the rest, marks alone, was no code.
    ("cpp", "// -*- C\n++ -*-\n\n// Copyright (C) 2005 Free Software Foundation, Inc.\nint x;\n",
     "// -*- C++ -*-\n\n// Copyright (C) 2005 Free Software Foundation, Inc.\nint x;\n"),
    ("cpp", "// -*- C\n++ -*-\n\n// Copyright (C) 2005 Free Software Foundation, Inc.\nint x;\n",
     "// -*- C ++ -*-\n\n// Copyright (C) 2005 Free Software Foundation, Inc.\nint x;\n"),
    # A comment's line split inside its address: the rest, joined back, was no code.
    ("cpp", "// If not, see\n// <http://www.gnu\n.org/licenses/>.\n\nint x;\n",
     "// If not, see\n// <http://www.gnu.org/licenses/>.\n\nint x;\n"),
    # A comment's closer with a blank typed into it, made whole: its '/' is the closer's.
    ("typescript", "/* Licence of the file,\n   all rights reserved.\n***** /\n\nlet x = 1;\nexport const y = x / 2;\n",
     "/* Licence of the file,\n   all rights reserved.\n*****/\n\nlet x = 1;\nexport const y = x / 2;\n"),
    # A docstring closed after its prose: words, not code.
    ("python", 'def f():\n    """Return the sum\n    of two numbers, x and y,\n    and more.\n    return 1\n',
     'def f():\n    """Return the sum\n    of two numbers, x and y,\n    and more."""\n    return 1\n'),
    # A here-document's lost '<<' put back before its delimiter.
    ("bash", "cat EOF\nhello\nEOF\n", "cat <<EOF\nhello\nEOF\n"),
    # Ruby's '<<' put back as the operator it is between two values: no document.
    ("ruby", "items = []\nitems item\nputs items\n", "items = []\nitems << item\nputs items\n"),
    # A regular expression's opening '/' put back: it ends at the line's lone '/'.
    ("ruby", "if ^(\\d+)/ =~ header['status']\n  x = $1\nend\n", "if /^(\\d+)/ =~ header['status']\n  x = $1\nend\n"),
    # A quote typed into a template literal taken away: the mark it let out was no code.
    ("javascript", "const t = `(${src[n]})\\\\`.` +\n  `(${src[m]})`;\n",
     "const t = `(${src[n]})\\\\.` +\n  `(${src[m]})`;\n"),
    # A macro's body split after the bracket it opens: joined back, the rest is its body again.
    ("c", "#define MIN 4\n#define TOTAL (\nMIN +   \\\n    2 * MIN)\n\nint a[TOTAL];\n",
     "#define MIN 4\n#define TOTAL (MIN +   \\\n    2 * MIN)\n\nint a[TOTAL];\n"),
]


@pytest.mark.parametrize("language, before, after", HIDING)
def test_an_edit_that_hides_code_is_no_repair(language, before, after):
    assert hides_code(before, after, language)


@pytest.mark.parametrize("language, before, after", REPAIRS)
def test_closing_what_was_open_or_a_comment_put_back_before_prose_hides_nothing(language, before, after):
    assert hides_code(before, after, language) == ""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc reports the conditional left unterminated")
def test_a_repair_that_hides_code_does_not_end_the_search():
    # Breaking the licence comment's '*/' hides the unterminated '#ifndef' and the split
    # '#include' in one edit: a complete repair to the compiler, which the search must
    # pass over for the two that are repairs.
    source = ("/* Copyright (C) 2002 Free Software Foundation, Inc.\n"
              "   You should have received a copy of the licence; if not, see\n"
              "   <https://www.gnu.org/licenses/>.  */\n\n"
              "#ifndef _IFADDRS_H\n#define _IFADDRS_H\t1\n\n#\ninclude <stddef.h>\n\n"
              "extern size_t count_interfaces (void);\n\n/* The end.  */\n")
    found = suggest(source, "c", limit=5)
    assert found and all(not hides_code(source, c.source_after, "c") for c in found)
    assert any(c.fixes_all for c in found) or found[0].problems_after < len(check(source, "c").problems)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc reports the tag used without 'struct'")
def test_a_repair_that_hides_code_takes_nothing_from_the_runs_left_for_the_search(monkeypatch):
    # The comment's closer above the error swapped with its '.' makes the line below a
    # comment: complete to gcc, and no repair. The runs kept for alternatives to a
    # complete fix (none here) are counted from a fix that is kept, not from that one.
    monkeypatch.setattr(candidates, "JUDGE_ALTERNATIVES", 0)
    source = ("#include <sys/socket.h>\n\nstruct interface\n  {\n    struct interface *next;\n"
              "    /* It is never the case that both are set at once.  */\n"
              "    struct sockaddr *broadcast; /* Broadcast address.  */\n"
              "    struct sockaddr *destination; /* Destination address.  */\n  };\n")
    broken = source.replace("    struct sockaddr *broadcast;", "    sockaddr *broadcast;")
    assert check(source, "c").ok and not check(broken, "c").ok
    found = suggest(broken, "c", limit=5)
    assert source in [c.source_after for c in found]


def test_a_quote_mended_in_a_run_of_strings_hides_nothing_of_the_runs_later_strings():
    # A table of strings written one after another: the quote of one closed with the
    # other kind turned every string below inside out. Put back, the strings below are
    # each between their own quotes again, not inside one the edit opened above them.
    rows = "".join(f"    '\\x{n:02x}'     #  0x{n:02X} -> SIGN {n}\n" for n in range(160, 200))
    fixed = "decoding_table = (\n" + rows + "    '\\ufffe'   #  0xFF -> UNDEFINED\n)\n"
    broken = fixed.replace("    '\\xa4'     #", "    '\\xa4\"     #")
    assert broken != fixed and not check(broken, "python").ok and check(fixed, "python").ok
    assert hides_code(broken, fixed, "python") == ""


EVAL_SCRIPT = """#!/bin/sh
# Make a function for each of the protocol's commands.
db_define() {
\teval "db_$1 () {
\t\t_command \\"$2 \\$@\\"
\t\tread _RET
\t\told_opts=\\"\\$@\\"
\t\tset -- \\$_RET
\t\tshift
\t\tRET=\\"\\$*\\"
\t\tset -- \\$old_opts
\t\tunset old_opts
\t\treturn \\$_RET
\t}"
}
db_define get GET
db_define set SET
db_define input INPUT
if [ -n "$DEBUG" ]; then
\techo "defined at `date`"
fi
"""


def test_a_backquote_the_file_has_one_too_many_of_taken_out_of_a_string_hides_nothing():
    # Typed into eval's string, the backquote opened a substitution that ran on to the
    # file's end; taken out, the lines after it are the string's text again, as written.
    broken = EVAL_SCRIPT.replace("\t\tread _RET", "\t\tread` _RET")
    assert hides_code(broken, EVAL_SCRIPT, "bash") == ""
    if shutil.which("sh"):
        assert first_suggested(broken, "bash").source_after == EVAL_SCRIPT
