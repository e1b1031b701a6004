'use strict';
// Parses TypeScript texts with the `typescript` package's own parser, and runs the
// checker's grammar rules where the package has a native compiler; never its type
// errors (they are about a project not here) and no other file is read. tinycode's
// judge for TypeScript and TSX.
//
//   node ts_syntax.cjs TYPESCRIPT FILE   prints FILE's syntax errors on stderr as
//                                        tsc does and exits 1 (0 when there are none)
//   node ts_syntax.cjs TYPESCRIPT        serves texts: one JSON request per line on
//                                        stdin {"id", "filename", "source": base64},
//                                        one answer per line {"id", "status", "stderr"}
//
// TYPESCRIPT, found by tinycode, is the package's lib/typescript.js (up to 6.x: its
// JavaScript parser, syntactic diagnostics and JSDoc's types in code) or its
// dist/api/sync/api.js (7.x on: the native compiler kept running, in a folder of its
// own that holds only the text). A .tsx name reads JSX.

const path = require('node:path');
const { run } = require('./judge_protocol.cjs');

const LIBRARY = process.argv[2];
const ts = LIBRARY.endsWith('typescript.js') ? require(LIBRARY) : null;

// JSDoc's own types, which the parser reads anywhere and tsc's checker rejects
// outside documentation comments (`string | null!`): [code, message].
const JSDOC_ONLY = ts === null ? new Map() : new Map([
  [ts.SyntaxKind.JSDocNonNullableType, [17019, "'!' at the end of a type is not valid TypeScript syntax."]],
  [ts.SyntaxKind.JSDocNullableType, [17020, "'?' at the end of a type is not valid TypeScript syntax."]],
  [ts.SyntaxKind.JSDocAllType, [8020, 'JSDoc types can only be used inside documentation comments.']],
  [ts.SyntaxKind.JSDocUnknownType, [8020, 'JSDoc types can only be used inside documentation comments.']],
  [ts.SyntaxKind.JSDocOptionalType, [8020, 'JSDoc types can only be used inside documentation comments.']],
  [ts.SyntaxKind.JSDocFunctionType, [8020, 'JSDoc types can only be used inside documentation comments.']],
  [ts.SyntaxKind.JSDocVariadicType, [8020, 'JSDoc types can only be used inside documentation comments.']],
].filter(([kind]) => kind !== undefined));

function jsdocTypesInCode(file) {
  const found = [];
  const visit = (node) => {  // forEachChild never enters documentation comments
    const rule = JSDOC_ONLY.get(node.kind);
    if (rule) found.push({ start: node.getStart(file), code: rule[0], messageText: rule[1] });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function checkWithParser(filename, text) {
  const kind = filename.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const file = ts.createSourceFile(filename, text, ts.ScriptTarget.Latest, true, kind);
  // parseDiagnostics is what Program.getSyntacticDiagnostics returns for a file.
  const found = (file.parseDiagnostics || []).concat(jsdocTypesInCode(file));
  found.sort((a, b) => (a.start || 0) - (b.start || 0));
  return found.map((d) => {
    const at = file.getLineAndCharacterOfPosition(d.start || 0);
    const message = ts.flattenDiagnosticMessageText(d.messageText, ' ');
    return `${filename}(${at.line + 1},${at.character + 1}): error TS${d.code}: ${message}\n`;
  }).join('');
}

// The checker's grammar errors and JSDoc's types in code; its other errors (TS2xxx
// and on) are about types, names and modules, which need the project.
const GRAMMAR_CODES = new Set([8020, 17019, 17020]);
const isGrammar = (code) => code < 2000 || GRAMMAR_CODES.has(code);

// Options under which code that compiles somewhere is not a grammar error here: any
// module syntax, decorators of either kind, the newest target.
const NATIVE_OPTIONS = {
  noEmit: true, noResolve: true, types: [], jsx: 'preserve', target: 'esnext', module: 'preserve',
  experimentalDecorators: true, allowJs: false, skipLibCheck: true,
};

async function nativeChecker(apiPath) {
  const { pathToFileURL } = require('node:url');
  const { API } = await import(pathToFileURL(apiPath).href);
  // The compiler sees a folder that exists only here; everything else it reads
  // (its own lib files) comes from disk.
  const root = '/tinycode-input';
  const files = new Map();
  const inRoot = (name) => name === root || name.startsWith(`${root}/`);
  const fsCallbacks = {
    readFile: (name) => (files.has(name) ? files.get(name) : (inRoot(name) ? null : undefined)),
    fileExists: (name) => (files.has(name) ? true : (inRoot(name) ? false : undefined)),
    directoryExists: (name) => (inRoot(name) ? [...files.keys()].some((f) => f.startsWith(`${name}/`)) : undefined),
    getAccessibleEntries: (name) => {
      if (!inRoot(name)) return undefined;
      const entries = { files: [], directories: [] };
      for (const file of files.keys()) {
        if (path.posix.dirname(file) === name) entries.files.push(path.posix.basename(file));
        else if (file.startsWith(`${name}/`)) {
          const sub = file.slice(name.length + 1).split('/')[0];
          if (!entries.directories.includes(sub)) entries.directories.push(sub);
        }
      }
      return entries;
    },
    realpath: (name) => (inRoot(name) ? name : undefined),
  };
  const api = new API({ fs: fsCallbacks, cwd: root });
  const opened = new Set();
  return (filename, text) => {
    // One project per file name (.ts, .tsx), each holding that one file.
    const name = path.basename(filename);
    const folder = `${root}/${name.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
    const config = `${folder}/tsconfig.json`;
    const file = `${folder}/${name}`;
    files.set(file, text);
    let params;
    if (!opened.has(config)) {
      files.set(config, JSON.stringify({ compilerOptions: NATIVE_OPTIONS, files: [name] }));
      opened.add(config);
      params = { openProjects: [config] };
    } else {
      params = { fileChanges: { changed: [file] } };
    }
    const snapshot = api.updateSnapshot(params);
    try {
      const program = snapshot.getProject(config).program;
      const found = program.getSyntacticDiagnostics(file).concat(
        program.getSemanticDiagnostics(file).filter((d) => isGrammar(d.code)));
      found.sort((a, b) => a.pos - b.pos);
      return found.map((d) => {
        const at = lineAndColumn(text, d.pos);
        return `${name}(${at[0]},${at[1]}): error TS${d.code}: ${d.text.replace(/\s+/g, ' ')}\n`;
      }).join('');
    } finally {
      snapshot.dispose();
    }
  };
}

function lineAndColumn(text, offset) {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1;
    start = at + 1;
  }
  return [line, offset - start + 1];
}

async function main() {
  const check = ts !== null ? checkWithParser : await nativeChecker(LIBRARY);
  run(check, process.argv[3]);
}

main().catch((error) => {
  process.stderr.write(`tinycode: typescript could not start: ${error && error.message}\n`);
  process.exit(2);
});
