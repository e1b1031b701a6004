'use strict';
// Parses TypeScript texts with the `typescript` package's own parser: syntactic
// diagnostics only (no type checking, no other files read), and JSDoc's types where
// code has them. tinycode's judge for TypeScript and TSX.
//
//   node ts_syntax.cjs TYPESCRIPT_JS FILE   prints FILE's syntax errors on stderr as
//                                           tsc does and exits 1 (0 when there are none)
//   node ts_syntax.cjs TYPESCRIPT_JS        serves texts: one JSON request per line on
//                                           stdin {"id", "filename", "source": base64},
//                                           one answer per line {"id", "status", "stderr"}
//
// TYPESCRIPT_JS is the package's lib/typescript.js, found by tinycode. A .tsx name
// reads JSX.

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

const ts = require(process.argv[2]);

// JSDoc's own types, which the parser reads anywhere and tsc's checker rejects
// outside documentation comments (`string | null!`): [code, message].
const JSDOC_ONLY = new Map([
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

function check(filename, text) {
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

if (process.argv.length > 3) {
  const file = process.argv[3];
  const stderr = check(path.basename(file), fs.readFileSync(file, 'utf8'));
  process.stderr.write(stderr);
  process.exitCode = stderr ? 1 : 0;
} else {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => {
    let reply;
    try {
      const { id, filename, source } = JSON.parse(line);
      if (typeof filename !== 'string' || typeof source !== 'string') {
        reply = { id, fallback: true };
      } else {
        const stderr = check(filename, Buffer.from(source, 'base64').toString('utf8'));
        reply = { id, status: stderr ? 1 : 0, stderr };
      }
    } catch {
      reply = { id: null, fallback: true };
    }
    process.stdout.write(`${JSON.stringify(reply)}\n`);
  });
  lines.on('close', () => process.exit(0));
}
