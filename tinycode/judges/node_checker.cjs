'use strict';
// Judges JavaScript texts as `node --check FILE` does, many texts per process.
//
// One request per line on stdin: {"id", "filename": "input.js" | "input.mjs",
// "source": the file's bytes in base64}. One answer per line on stdout: {"id",
// "status": node --check's exit code, "stderr": what it prints there}, or {"id",
// "fallback": true} when this program cannot say what node --check would print.
// Texts are compiled, never run. Started with --experimental-vm-modules, for
// vm.SourceTextModule: node has no other public way to compile an ES module.

const readline = require('node:readline');
const vm = require('node:vm');

// node --check compiles a .js file as the body of the CommonJS wrapper function.
const CJS_PARAMETERS = ['exports', 'require', 'module', '__filename', '__dirname'];
// With require(esm) on, a CommonJS compile error may instead mean an ES module, and
// node --check then passes the file (node's ShouldRetryAsESM in node_contextify.cc):
// these messages say so outright...
const ESM_ONLY = [
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
];
// ...these if the text compiles as a module (a top-level await, `const require`).
const MAYBE_ESM = [
  "Identifier 'module' has already been declared",
  "Identifier 'exports' has already been declared",
  "Identifier 'require' has already been declared",
  "Identifier '__filename' has already been declared",
  "Identifier '__dirname' has already been declared",
  'await is only valid in async functions and the top level bodies of modules',
  'missing ) after argument list',
  'SyntaxError: Unexpected',
];

function compilesAsModule(source, identifier) {
  try {
    new vm.SourceTextModule(source, { identifier });
    return true;
  } catch {
    return false;
  }
}

// Throws what node --check would report; returns when it would pass.
function check(source, filename) {
  try {
    vm.compileFunction(source, CJS_PARAMETERS, { filename });
  } catch (error) {
    if (!process.features.require_module || !(error instanceof SyntaxError)) throw error;
    const message = `${error.name}: ${error.message}`;
    if (ESM_ONLY.some((text) => message.includes(text))) return;
    if (MAYBE_ESM.some((text) => message.includes(text)) && compilesAsModule(source, filename)) return;
    throw error;
  }
}

// What node prints for an uncaught syntax error, up to its stack frames: "FILE:LINE",
// the line, the carets under the token, then "SyntaxError: ...". null when the error
// does not look like that: node --check itself then says what it says.
function report(error, filename) {
  if (!(error instanceof SyntaxError) || typeof error.stack !== 'string') return null;
  if (!/^[^\n]*:\d+\n/.test(error.stack) || !error.stack.startsWith(`${filename}:`)) return null;
  const headline = `${error.name}: ${error.message}`;
  const at = error.stack.lastIndexOf(`\n${headline}`);
  if (at < 0) return null;
  return `${error.stack.slice(0, at + 1 + headline.length)}\n\nNode.js ${process.version}\n`;
}

function answer(request) {
  const { id, filename, source } = request;
  if (typeof source !== 'string' || !(filename === 'input.js' || filename === 'input.mjs')) {
    return { id, fallback: true };
  }
  // node --check reads the file as UTF-8: invalid bytes decode the same way here.
  const text = Buffer.from(source, 'base64').toString('utf8');
  if (filename === 'input.mjs') {
    // A module's compile error carries no "FILE:LINE" and carets: node prints them
    // from what only its own C++ can read. Those are node --check's to report.
    return compilesAsModule(text, filename) ? { id, status: 0, stderr: '' } : { id, fallback: true };
  }
  try {
    check(text, filename);
  } catch (error) {
    const stderr = report(error, filename);
    return stderr === null ? { id, fallback: true } : { id, status: 1, stderr };
  }
  return { id, status: 0, stderr: '' };
}

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on('line', (line) => {
  let reply;
  try {
    reply = answer(JSON.parse(line));
  } catch {
    reply = { id: null, fallback: true };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
lines.on('close', () => process.exit(0));
