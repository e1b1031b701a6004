"""C and C++ judged as their project compiles them: compile_commands.json,
compile_flags.txt, the repository's folders; what a project may not make the judge
do; and a file whose types stay unknown, which is never reported broken for that."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from tinycode import judges
from tinycode.judges import precompiled, registry
from tinycode.check import check
from tinycode.engine.candidates import suggest
from tinycode.cli import main
from tinycode.judges import project

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None,
                               reason="gcc and g++ not installed")
pytestmark = needs_gcc
UNKNOWN = "types unknown: checked by the parser only"

# A source of a project like llama.cpp's: its types and macros come from headers.
GGML_LIKE = """#include "ggml.h"
#include "ggml-impl.h"
#include <string.h>

struct pair { int a; int b; };

static const struct pair pairs[] = {
    {1, 2},
    {3, 4},
};

struct ggml_tensor * ggml_dup_tensor_like(struct ggml_context * ctx, const struct ggml_tensor * src) {
    GGML_ASSERT(src != NULL && ctx != NULL);
    struct ggml_tensor * result = ggml_new_tensor(ctx, src->type, GGML_MAX_DIMS, src->ne);
    for (size_t i = 0; i < GGML_MAX_DIMS; i++) {
        result->nb[i] = src->nb[i];
    }
    const int64_t ne2 = src->ne[2];
    (void) ne2;
    memcpy(result->name, src->name, sizeof(result->name));
    return result;
}
"""
GGML_H = """#pragma once
#include <stddef.h>
#include <stdint.h>
#include <assert.h>
#define GGML_MAX_DIMS 4
#define GGML_ASSERT(x) assert(x)
struct ggml_tensor { int type; int64_t ne[GGML_MAX_DIMS]; size_t nb[GGML_MAX_DIMS]; char name[64]; };
struct ggml_context;
struct ggml_tensor * ggml_new_tensor(struct ggml_context * ctx, int type, int n, const int64_t * ne);
"""
# The errors a judge that gave up on the headers used to hide (issue 28).
MISSES = {
    "misspelt for": ("for (size_t", "ofr (size_t"),
    "lost [": ("src->ne[2]", "src->ne 2]"),
    "doubled , in an initialiser": ("{1, 2},", "{1, 2},,"),
    "unterminated #include": ('"ggml-impl.h"', '"ggml-impl.h'),
    "operator first in a macro's argument": ("GGML_ASSERT(src != NULL", "GGML_ASSERT(== src NULL"),
    "extra ) before ;": ("sizeof(result->name));", "sizeof(result->name)));"),
}


@pytest.fixture(autouse=True)
def _fresh_judges():
    judges.configure()
    yield
    judges.configure()


def _project(tmp_path: Path) -> Path:
    """A git repository with the headers in include/ and the source in src/."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "ggml.h").write_text(GGML_H)
    (tmp_path / "include" / "ggml-impl.h").write_text("#pragma once\n#include \"ggml.h\"\n")
    (tmp_path / "src").mkdir()
    source = tmp_path / "src" / "ops.c"
    source.write_text(GGML_LIKE)
    return source


def clean_with_types_unknown(folder: Path, stem: str, text: str, language: str) -> Path:
    """``text`` written as STEM.c or STEM.cpp in ``folder``, checked clean by the parser
    alone (its types unknown); the file's path."""
    path = folder / f"{stem}.{'c' if language == 'c' else 'cpp'}"
    path.write_text(text)
    result = check(text, language, str(path))
    assert result.ok and result.note == UNKNOWN
    return path


def broken_lines(folder: Path, stem: str, text: str, language: str, old: str, new: str) -> list[int]:
    """The lines reported in ``text`` with ``old`` made ``new``, checked where the clean
    ``text`` (its types unknown) was."""
    path = clean_with_types_unknown(folder, stem, text, language)
    return [p.line for p in check(text.replace(old, new), language, str(path)).problems]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_clean_file_whose_headers_are_missing_is_not_reported_broken(tmp_path, language):
    alone = clean_with_types_unknown(tmp_path, "ops", GGML_LIKE, language)
    assert main(["check", "-q", "--", str(alone)]) == 0


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_header_using_size_t_and_project_types_without_includes_is_not_reported_broken(tmp_path, language):
    header = tmp_path / ("buffer.h" if language == "c" else "buffer.hpp")
    header.write_text("typedef struct {\n    size_t length;\n    arena_t *arena;\n    uint8_t *bytes;\n} buffer_t;\n\n"
                      "buffer_t *buffer_new(arena_t *arena, size_t length);\n"
                      "static inline size_t buffer_length(const buffer_t *b) { return (size_t) b->length; }\n")
    result = check(header.read_text(), language, str(header))
    assert result.ok and result.note == UNKNOWN


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("miss", sorted(MISSES))
def test_errors_are_still_seen_where_the_headers_are_missing(tmp_path, language, miss):
    old, new = MISSES[miss]
    broken = GGML_LIKE.replace(old, new)
    assert broken != GGML_LIKE
    path = tmp_path / ("ops.c" if language == "c" else "ops.cpp")
    path.write_text(broken)
    assert not check(broken, language, str(path)).ok
    assert main(["check", "-q", "--", str(path)]) == 1


def test_the_repository_include_folder_is_found_and_the_compiler_then_decides(tmp_path):
    source = _project(tmp_path)
    found = project.flags_for(source)
    assert found.source == "folders" and str(tmp_path / "include") in found.flags
    result = check(GGML_LIKE, "c", str(source))
    assert result.ok and result.note == ""  # every type known: gcc's verdict, nothing doubted
    # With the types known, an error tree-sitter does not see is the compiler's to report.
    hidden = GGML_LIKE.replace("(void) ne2;", "(void) ne2 int;")
    assert not check(hidden, "c", str(source)).ok


def test_compile_commands_json_gives_the_include_folders_and_macros(tmp_path):
    source = _project(tmp_path)
    headers = tmp_path / "include"
    moved = tmp_path / "third_party" / "ggml"
    moved.parent.mkdir()
    headers.rename(moved)  # only the build knows where they are now
    uses_macro = GGML_LIKE.replace("#include <string.h>\n", "#include <string.h>\n#ifndef GGML_USE_CPU\n"
                                   "#error built without GGML_USE_CPU\n#endif\n")
    source.write_text(uses_macro)
    build = tmp_path / "build"
    build.mkdir()
    entry = {"directory": str(build), "file": "../src/ops.c",
             "command": "/usr/bin/cc -I../third_party/ggml -DGGML_USE_CPU -std=gnu11 -O2 -o ops.o -c ../src/ops.c"}
    (build / "compile_commands.json").write_text(json.dumps([entry]))
    found = project.flags_for(source)
    assert "compile_commands.json" in found.source
    assert ("-I", str(moved)) == found.flags[found.flags.index("-I"):found.flags.index("-I") + 2]
    assert "-DGGML_USE_CPU" not in found.flags and ("-D", "GGML_USE_CPU") == \
        found.flags[found.flags.index("-D"):found.flags.index("-D") + 2]
    assert "-std=gnu11" in found.flags and "-O2" not in found.flags and "-o" not in found.flags
    verdict = judges.verdict(uses_macro, "c")  # no location: the headers and the macro unknown
    assert verdict is not None and verdict.note == UNKNOWN
    with judges.located(str(source)):
        verdict = judges.verdict(uses_macro, "c")
    assert verdict is not None and verdict.diagnostics == () and verdict.note == ""


def test_compile_flags_txt_is_read_relative_to_its_folder(tmp_path):
    source = _project(tmp_path)
    (tmp_path / "include").rename(tmp_path / "headers")
    (tmp_path / "compile_flags.txt").write_text("-xc\n-Iheaders\n-DGGML_USE_CPU=1\n")
    found = project.flags_for(source)
    assert "compile_flags.txt" in found.source
    assert found.flags[2:] == ("-I", str(tmp_path / "headers"), "-D", "GGML_USE_CPU=1")
    result = check(GGML_LIKE, "c", str(source))
    assert result.ok and result.note == ""


def test_a_project_cannot_make_the_judge_run_or_load_anything(tmp_path):
    """-B, -wrapper, -fplugin, -specs and @file in a project's compile_commands.json
    would let a cloned repository run its own programs: none is passed on."""
    source = _project(tmp_path)
    marker = tmp_path / "ran"
    evil = tmp_path / "evil"
    evil.mkdir()
    for name in ("cc1", "cc1plus", "as", "collect2"):  # what gcc -B would run
        script = evil / name
        script.write_text(f"#!/bin/sh\ntouch {marker}\n")
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    wrapper = evil / "wrap"
    wrapper.write_text(f"#!/bin/sh\ntouch {marker}\nexec \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    (evil / "x.specs").write_text("*cc1:\n+ -fplugin=/nonexistent.so\n")
    (evil / "args.rsp").write_text(f"-B{evil}/\n")
    hostile = (f"cc -B{evil}/ -wrapper {wrapper} -fplugin={evil}/x.so -fplugin-arg-x-y=1 -specs={evil}/x.specs "
               f"@{evil}/args.rsp --sysroot={evil} -include /dev/zero -Xclang -load -Xclang {evil}/x.so "
               f"-I../include -c ../src/ops.c")
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path / "src"), "file": "ops.c", "command": hostile}]))
    found = project.flags_for(source)
    assert not any(str(evil) in flag or "/dev/zero" in flag for flag in found.flags)
    assert found.flags[2:] == ("-I", str(tmp_path / "include"))
    broken = GGML_LIKE.replace("{1, 2},", "{1, 2},,")
    source.write_text(broken)
    assert main(["check", "-q", "--", str(source)]) == 1
    assert not marker.exists()
    # And gcc itself would have obeyed them: the test's trap is real.
    done = subprocess.run(["gcc", f"-B{evil}/", "-fsyntax-only", "-x", "c", "-"], input=b"int x;\n",
                          capture_output=True, check=False)
    assert marker.exists() or done.returncode != 0


def test_a_project_file_written_by_others_is_not_read(tmp_path):
    source = _project(tmp_path)
    flags = tmp_path / "compile_flags.txt"
    flags.write_text("-DFROM_PROJECT\n")
    assert "compile_flags.txt" in project.flags_for(source).source
    flags.chmod(flags.stat().st_mode | stat.S_IWOTH)  # anyone could have put it there
    assert project.flags_for(source).source == "folders"


def test_check_says_where_types_were_unknown(tmp_path, capsys):
    alone = tmp_path / "ops.c"
    alone.write_text(GGML_LIKE)
    assert main(["check", "--output-format", "json", "--", str(alone)]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report[0]["ok"] and report[0]["note"] == UNKNOWN


def test_kept_flags_only_name_folders_macros_and_the_standard():
    kept = project.kept(["-Iinc", "-I", "inc2", "-isystem", "/opt/x", "-DA=1", "-UB", "-std=c++17",
                         "-fplugin=x.so", "-wrapper", "w", "-B/x", "-specs=s", "@rsp", "-o", "out.o",
                         "-fms-extensions", "-mavx2", "-include", "/nonexistent.h", "-Xclang", "-load"], "/p")
    assert kept == ("-I", "/p/inc", "-I", "/p/inc2", "-isystem", "/opt/x", "-D", "A=1", "-U", "B",
                    "-std=c++17", "-fms-extensions", "-mavx2")


CPP_HEADER = """#pragma once
#include "llama.h"
#include <string>
#include <vector>

struct common_params {
    int32_t n_threads = 4;
    std::string model;
    std::vector<std::string> files;
};

namespace common {
class sampler : public base {
  public:
    explicit sampler(const common_params & p);
    llama_token sample(llama_context * ctx, int idx);
  private:
    std::vector<llama_token> prev;
};
}
"""


def test_a_cpp_header_named_h_is_judged_as_cpp(tmp_path):
    header = tmp_path / "common.h"
    header.write_text(CPP_HEADER)
    assert main(["check", "-q", "--", str(header)]) == 0
    broken = CPP_HEADER.replace("int idx);", "int idx;")
    header.write_text(broken)
    assert main(["check", "-q", "--", str(header)]) == 1


def test_missing_headers_are_found_before_the_compiler_runs_once():
    includes = "".join(f'#include "part{n}.h"\n' for n in range(8))
    source = includes + "#ifdef _WIN32\n#include <windows.h>\n#endif\nint main(void) { return 0; }\n"
    judges.configure()
    with judges.account():
        found = judges.verdict(source, "c")
        assert judges.calls() == registry.run_cost("c")  # one run, not one a header
    assert found is not None and found.syntax == ()
    missing = [d.message for d in found.other]
    assert missing == [f"part{n}.h: No such file or directory" for n in range(8)]  # windows.h: never read
    broken = source.replace("return 0;", "return 0")
    assert not check(broken, "c").ok


# Macros from headers that are not there confuse gcc and tree-sitter at the same place.
MACRO_HEAVY = """#include "api.h"
#include <glib-object.h>

#ifndef MODULE_SCOPE
#   define MODULE_SCOPE extern
#endif
MODULE_SCOPE int Tcl_AppInit(Tcl_Interp *interp);

G_BEGIN_DECLS
typedef struct _Foo Foo;
G_END_DECLS

GGML_API struct ggml_tensor * ggml_view(struct ggml_context * ctx, int n);
GGML_API int ggml_n(void);
static GGML_INLINE int add_one(int x) { return x + 1; }

int count(struct list *list) {
    int n = 0;
    GGML_ASSERT(n >= 0);
    FOREACH(item, list) {
        n += add_one(item->size);
    }
    return n;
}

int foo_get_count(void) G_GNUC_CONST;
GType foo_get_type (void) G_GNUC_CONST;
"""


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_unknown_macros_beside_declarations_are_not_syntax_errors(tmp_path, language):
    path = clean_with_types_unknown(tmp_path, "macros", MACRO_HEAVY, language)
    for old, new in (("n += add_one(item->size);", "n += add_one(item->size;"),
                     ("GGML_ASSERT(n >= 0);", "GGML_ASSERT(>= n 0);"),
                     ("    int n = 0;", "    int n = 0,,;")):
        assert not check(MACRO_HEAVY.replace(old, new), language, str(path)).ok, new


def test_a_long_declaration_line_in_a_file_whose_types_are_unknown_is_checked_quickly(tmp_path):
    words = " ".join(f"qualifier_{n}" for n in range(60))
    source = '#include "missing.h"\n' + f"static {words} value = {{1, 2,, 3}};\n"
    path = tmp_path / "long.c"
    path.write_text(source)
    import time

    start = time.perf_counter()
    check(source, "c", str(path))
    assert time.perf_counter() - start < 10


@needs_gcc
def test_a_keyword_with_two_letters_swapped_is_no_unknown_type():
    # "unknown type name 'retrun'" in a file that finds all its headers: not a type the
    # compiler was not shown, but 'return' mistyped.
    text = "int main(void) {\n  int x = 1;\n  retrun x;\n}\n"
    result = check(text, "c")
    assert not result.ok and result.problems[0].line == 3 and not result.note
    # A type from a header that is not there still leaves the types unknown.
    assert check('#include "not_here.h"\nint f(void) {\n  size_t x = 1;\n  return x;\n}\n', "c").ok


LINKS = """#include <stddef.h>

struct node_list
  {
    int count;
    struct node *first;	/* Head of the chain.  */
  };

struct node
  {
    char *name;
    struct node *next;
  };

extern int count_nodes (const char *name, size_t limit, struct node *from);
"""


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc judges C")
def test_a_tag_written_without_its_struct_is_an_error_and_is_repaired():
    # gcc says "unknown type name 'node'" where every header was found and the file writes
    # 'struct node' elsewhere: not a type from a header, but a 'struct' left out.
    assert check(LINKS, "c").ok
    broken = LINKS.replace("    struct node *first;", "    node *first;")
    result = check(broken, "c")
    assert [p.line for p in result.problems] == [6] and not result.note
    assert LINKS in [c.source_after for c in suggest(broken, "c", limit=4)]
    # A name the file never writes as a tag may still be a header's type.
    assert check(broken.replace("node *first", "node_t *first"), "c").ok
    # Far along its line, where the compiler points.
    broken = LINKS.replace("size_t limit, struct node", "size_t limit, node")
    assert [p.line for p in check(broken, "c").problems] == [15]
    assert LINKS in [c.source_after for c in suggest(broken, "c", limit=4)]


def test_a_keyword_in_other_case_is_an_error_where_every_header_was_found():
    # g++ says only "'Namespace' does not name a type" and skips the block; tree-sitter
    # reads the line as a declaration
    text = ("#include <cstddef>\n\nnamespace outer\n{\n  namespace inner\n  {\n"
            "    template<typename T>\n    struct base { std::size_t n; };\n  }\n}\n")
    assert check(text, "cpp").ok
    result = check(text.replace("namespace inner", "Namespace inner"), "cpp")
    assert [p.line for p in result.problems] == [5] and not result.note
    # Its letters in another order: g++ says "'vodi' does not name a type".
    result = check(text.replace("struct base", "inline vodi f(); struct base"), "cpp")
    assert [p.line for p in result.problems] == [8]
    # With a header missing, a name in capitals may be that header's macro or type.
    assert check('#include "windows_like.h"\nCONST char *name(void);\n', "c").ok


def test_a_capitalised_word_before_an_operator_is_no_macro_annotation():
    # A comment's line split: its second half, prose, is not a macro's use that an
    # unknown header would explain (``GGML_API int f(void);``).
    text = "#include <stddef.h>\n// Copyright (C) 2004 Some Corp,\nIBM-HRL.\n\nsize_t n(void);\n"
    assert check(text.replace("\nIBM-HRL.", " IBM-HRL."), "c").ok
    assert check(text, "c").problems[0].line == 3
    assert check('#include "missing.h"\nAPI_EXPORT int f(void);\n', "c").ok


def test_past_the_compilers_error_limit_the_parser_still_sees_an_unclosed_string(tmp_path):
    # An unknown type on every line of a long table: the compiler stops at its limit
    # long before the table's end, where a quote was lost.
    table = "".join(f"extern module_t *init_{n}(void);\n" for n in range(70))
    entries = "".join(f'    {{"m{n}", init_{n}}},\n' for n in range(70))
    source = f'#include "modules.h"\n{table}\nstruct entry entries[] = {{\n{entries}    {{0, 0}}\n}};\n'
    assert 60 + 74 in broken_lines(tmp_path, "config", source, "c", '{"m60", init_60}', '{"m60, init_60}')


def test_a_colon_lost_beside_a_macro_the_compiler_knows_is_reported(tmp_path):
    # one ':' where the namespace needs two, in a declaration a macro of the standard
    # library opens (the compiler knows it from <new>, tree-sitter does not)
    source = ('#include <cstddef>\n#include <new>\n#include "lib_config.h"\n'
              "_GLIBCXX_NODISCARD void* allocate(std::size_t, std::align_val_t);\n")
    assert broken_lines(tmp_path, "alloc", source, "cpp", "(std::size_t", "(std:size_t") == [4]


def test_a_quote_lost_in_a_continued_if_is_reported():
    # gcc reads on to the next line's "\\" and says that token is no expression's
    source = "#if 'A' == 193 \\\n    && '\\\\' == 224\n#define LIB_EBCDIC 1\n#endif\nint x;\n"
    assert check(source, "c").ok
    assert [p.line for p in check(source.replace("'A'", "'A"), "c").problems] == [2]


def test_an_error_in_the_body_of_a_function_of_an_unknown_type_is_reported(tmp_path):
    # g++ skips the whole definition once its return type names nothing it knows
    source = ('#include "missing.h"\n\nmy_type_t f(int g2) {\n    int x = g(g2, NULL);\n'
              "    return x;\n}\n")
    assert broken_lines(tmp_path, "body", source, "cpp", "g(g2, NULL)", "g(g2 NULL, NULL)") == [4]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_header_that_a_project_header_cannot_find_does_not_hide_the_file(tmp_path, language):
    # compat.h, beside the file, includes a header that is not there: the compiler stops
    # inside compat.h, before it reads a line of the file after that #include.
    if shutil.which("gcc" if language == "c" else "g++") is None:
        pytest.skip("compiler not installed")
    (tmp_path / "compat.h").write_text("#pragma once\n#include <vendor_runtime.h>\n")
    text = '#include <vendor_api.h>\n#include "compat.h"\n\nint twice(int x) {\n    return 2 * x;\n}\n'
    path = tmp_path / ("twice.c" if language == "c" else "twice.cpp")
    path.write_text(text)
    assert check(text, language, str(path)).ok
    broken = text.replace("return 2 * x;", "return 2 * x")
    assert [p.line for p in check(broken, language, str(path)).problems][:1] == [5]


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_past_the_last_header_the_compiler_could_not_pass_the_parser_still_judges(tmp_path, language):
    # Six project headers, each including one that is not there: the compiler stops
    # inside one more of them on each run and never reaches the file's own lines.
    if shutil.which("gcc" if language == "c" else "g++") is None:
        pytest.skip("compiler not installed")
    includes = ""
    for n in range(6):
        (tmp_path / f"part{n}.h").write_text(f"#pragma once\n#include <vendor_{n}.h>\n")
        includes += f'#include "part{n}.h"\n'
    text = (includes + "\nstatic PyTypeObject Thing_Type = {\n    PyVarObject_HEAD_INIT(NULL, 0)\n"
            '    "thing.Thing",\n    sizeof(Thing),\n#if PY_MAJOR_VERSION < 3\n    0,\n#endif\n    0,\n};\n'
            'static G_THREAD_LOCAL_VAR StateCreator state_global;\nconst char *name = "thing";\n')
    path = tmp_path / ("thing.c" if language == "c" else "thing.cpp")
    path.write_text(text)
    assert check(text, language, str(path)).ok
    broken = text.replace('"thing";', '"thing;')
    assert [p.line for p in check(broken, language, str(path)).problems][:1] == [text.count("\n")]


def test_a_macro_call_and_a_condition_left_open_are_reported(tmp_path):
    # A quote lost inside a macro's argument list: g++ says so without a place, then
    # "expected '}' at end of input" where the call began. A ')' lost after "defined".
    source = ('#include "missing.h"\n#define __N(msgid) (msgid)\n\nstruct container_error : public base_error {\n'
              '  container_error() : base_error(__N("container_error")) { }\n};\n\n'
              "#if !defined(INTERNAL_HEADERS)\n#define LIB_VISIBLE 1\n#endif\n")
    assert 5 in broken_lines(tmp_path, "error", source, "cpp", '__N("container_error")', '__N("container_error)')
    assert broken_lines(tmp_path, "error", source, "cpp", "(INTERNAL_HEADERS)", "(INTERNAL_HEADERS")[:1] == [8]


def test_a_body_gcc_skips_for_a_parameter_of_an_unknown_type_is_read_by_the_parser(tmp_path):
    # gcc reads no body of a function one of whose parameters has a type it does not
    # know; a ')' typed twice there is for tree-sitter to see.
    source = ('#include "missing.h"\n\nstatic Object*\nset_parent(Object* self, Object* arg)\n{\n'
              "    if (arg == NULL || !Check(arg)) {\n        return NULL;\n    }\n    return arg;\n}\n")
    assert broken_lines(tmp_path, "parent", source, "c", "!Check(arg)) {", "!Check(arg))) {") == [6]


def test_an_error_inside_a_macro_is_placed_where_the_macro_is_used(tmp_path):
    # "'__host__' does not name a type" at the #define, once a use: each definition that
    # begins with the macro is one g++ skipped, and a ';' lost in one is still seen.
    uses = "".join(f"DECL int{n} make_int{n}(int x)\n{{\n  int{n} t; t.x = x; return t;\n}}\n\n" for n in range(20))
    source = '#include "runtime_api.h"\n#define DECL static __inline__ __host__ __device__\n\n' + uses + "SILENCE_END\n"
    lines = broken_lines(tmp_path, "vector", source, "cpp", "int10 t; t.x = x; return t;",
                         "int10 t; t.x = x return t;")
    assert lines == [3 + 10 * 5 + 3]


LIBSTDCXX = Path("/usr/include/c++/12")


@needs_gcc
@pytest.mark.skipif(not LIBSTDCXX.is_dir(), reason="libstdc++ 12's headers not installed")
@pytest.mark.parametrize("header,old,new", [
    # A '}' typed twice closes namespace std early. Every header is found: the names g++
    # then cannot see are ones it knows in that namespace ("did you mean
    # 'std::__detail'?"), no unknown types, and its verdict stands.
    ("concepts", "  } // namespace __detail\n\n  template<typename _Tp>\n    concept equality_comparable",
     "  }} // namespace __detail\n\n  template<typename _Tp>\n    concept equality_comparable"),
    # A '}' lost: what follows is read inside the wrong namespace ('std::std'), so names
    # go unknown before "expected '}' at end of input". The file opening more braces than
    # it closes is what no type changes.
    ("set", "  } // namespace pmr", "  // namespace pmr"),
])
def test_a_brace_typed_twice_or_lost_in_a_standard_header_is_reported(header, old, new):
    # (tree-sitter, lost in the headers' macros, sees nothing there)
    path = LIBSTDCXX / header
    source = path.read_text()
    assert old in source and check(source, "cpp", str(path)).ok
    assert not check(source.replace(old, new, 1), "cpp", str(path)).ok


PROGRAM = """#include <stdio.h>
#include <stdlib.h>
#include "settings.h"

int main(void) {
    char *home = getenv("HOME");
    printf("%s\\n", home ? home : "none");
    return EXIT_SUCCESS;
}
"""


@pytest.mark.parametrize("language", ["c", "cpp"])
@pytest.mark.parametrize("typed, meant", [("<stdlib..h>", "<stdlib.h>"), ("<stdlib.>h", "<stdlib.h>"),
                                          ("<stdlb.h>", "<stdlib.h>"), ("<.stdlibh>", "<stdlib.h>"),
                                          ("<stdlibh.>", "<stdlib.h>")])
def test_a_system_header_name_mistyped_is_an_error_and_is_repaired(tmp_path, language, typed, meant):
    # The project's own header ("settings.h") is missing from this copy: no error. A
    # system header one character away from one the compiler has is a name mistyped.
    path = tmp_path / ("main.c" if language == "c" else "main.cpp")
    assert check(PROGRAM, language, str(path)).ok
    broken = PROGRAM.replace("<stdlib.h>", typed)
    problems = check(broken, language, str(path)).problems
    assert [p.line for p in problems] == [2] and meant in problems[0].message
    found = suggest(broken, language)
    assert found[0].fixes_all and found[0].source_after == PROGRAM


STAT = """#include <stdio.h>
#include <sys/stat.h>

int main(void) {
    struct stat info;
    return stat("/", &info) == 0 ? 0 : 1;
}
"""


@pytest.mark.parametrize("typed", ["<sys stat.h>", "<sysstat.h>", "<sys.stat.h>"])
def test_a_header_path_whose_slash_was_mistyped_or_lost_is_an_error_and_is_repaired(tmp_path, typed):
    # Left unnamed, the missing header leaves 'struct stat' unknown, and the repairs
    # that quiet the compiler then are no repairs.
    from tinycode.engine.candidates import suggest

    path = tmp_path / "main.c"
    broken = STAT.replace("<sys/stat.h>", typed)
    problems = check(broken, "c", str(path)).problems
    assert [p.line for p in problems] == [2] and "<sys/stat.h>" in problems[0].message
    found = suggest(broken, "c")
    assert found[0].fixes_all and found[0].source_after == STAT


@pytest.mark.parametrize("include", ["#include <no_such_header_anywhere.h>", '#include "stdlib..h"'])
def test_a_header_the_compiler_has_nothing_near_is_still_a_header_missing_from_the_project(tmp_path, include):
    path = tmp_path / "main.c"
    assert check(PROGRAM.replace("#include <stdlib.h>", include), "c", str(path)).ok


def test_a_change_that_breaks_an_included_header_is_no_repair():
    # ``#define typedef`` parses, and every typedef of <stdio.h> after it fails: errors
    # of the header's, which a repair of the file caused.
    source = "#ifndef X_H\n#define\n#include <stdio.h>\nint f(FILE *out);\n#endif\n"
    with judges.baseline(source, "c"):
        judge, found = judges.problems(source.replace("#define\n", "#define typedef\n"), "c")
        assert found and found[0].line == 3 and "new" in found[0].message
        assert judges.problems(source.replace("#define\n", "#define X_H\n"), "c")[1] == []


@pytest.mark.parametrize("old, new", [("#if defined A || defined B", "#if defined A ||| defined B"),
                                      ("int n = TWICE(1);", "int n = TWICE(1, 2);"),
                                      ("#if defined A || defined B", "#if defined A defined B")])
@pytest.mark.parametrize("header", ["<stddef.h>", '"missing.h"'])
def test_the_preprocessors_objections_are_syntax_errors_whatever_the_types(header, old, new):
    # gcc says "operator '||' has no right operand", "macro passed 2 arguments", "missing
    # binary operator": about the text, whether or not the compiler knows its types
    source = (f"#include {header}\n#if defined A || defined B\nint a;\n#endif\n"
              "#define TWICE(x) ((x) * 2)\nint n = TWICE(1);\nsize_t m;\n")
    assert check(source, "c").ok
    assert not check(source.replace(old, new), "c").ok


def _with_a_library(folder: Path, language: str, header: str, header_text: str, text: str) -> Path:
    """``text`` written as main.c or main.cpp in ``folder``, whose ``compile_flags.txt``
    names its ``lib`` folder, which holds ``header``; the file's path."""
    (folder / "lib").mkdir()
    (folder / "lib" / header).write_text(header_text)
    (folder / "compile_flags.txt").write_text("-Ilib\n")
    path = folder / ("main.c" if language == "c" else "main.cpp")
    path.write_text(text)
    return path


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_a_header_without_an_include_guard_is_read_once_when_precompiled(tmp_path, monkeypatch, language):
    # The precompiled block is read first, then the file: its #include lines must not
    # read a header without a guard of its own a second time ("redefinition of"), which
    # would be a new error in the header at a repair's third run.
    text = "#include <stdio.h>\n#include <point.h>\n\nint main(void) {\n    struct point p = {1, 2};\n    return p.x;\n}\n"
    path = _with_a_library(tmp_path, language, "point.h", "struct point { int x, y; };\n", text)
    texts = [text.replace("\n\n", "\n" * (2 + blank), 1) for blank in range(precompiled.RUNS_BEFORE_BUILD + 2)]
    texts += [t.replace("p.x;", "p.x") for t in texts]
    with judges.located(str(path)):
        monkeypatch.setattr(precompiled, "RUNS_BEFORE_BUILD", 10 ** 6)
        judges.configure()
        plain = [judges.verdict(t, language) for t in texts]
        monkeypatch.setattr(precompiled, "RUNS_BEFORE_BUILD", 1)
        judges.configure()
        assert [judges.verdict(t, language) for t in texts] == plain
        assert list(judges._state.headers._built) and all(judges._state.headers._built.values())
    assert not plain[0].diagnostics and plain[-1].diagnostics
    judges.configure()


@pytest.mark.parametrize("language", ["c", "cpp"])
def test_an_argument_lost_in_a_call_of_a_libraries_macro_is_the_files_error_where_it_calls(tmp_path, language):
    # gcc places the error inside the library's macro and its note names the file's line
    # that used it; once the file's headers are precompiled, no chain of includes leads
    # from that header to the file: the note still does.
    text = "#include <stdio.h>\n#include <twice.h>\n\nint main(void) {\n    return DOUBLE(3);\n}\n"
    path = _with_a_library(tmp_path, language, "twice.h",
                           "#pragma once\nint twice(int x, int k);\n#define DOUBLE(x) twice(x, 2)\n", text)
    assert check(text, language, str(path)).ok
    for blank in range(precompiled.RUNS_BEFORE_BUILD + 1):
        broken = text.replace("DOUBLE(3)", "DOUBLE()").replace("\n\n", "\n" * (2 + blank), 1)
        assert [p.line for p in check(broken, language, str(path)).problems] == [5 + blank]
