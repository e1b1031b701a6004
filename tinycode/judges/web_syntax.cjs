'use strict';
// Parses CSS with postcss and HTML with html-validate, the parsers a web project
// already has, for the mistakes that break a file: tinycode's judge for CSS and HTML,
// beside tree-sitter (a file is broken when either says so; see the language records).
//
//   node web_syntax.cjs PACKAGE FILE   prints FILE's errors on stderr as
//                                      "FILE:LINE:COLUMN: error: MESSAGE" and exits 1
//                                      (0 when there are none)
//   node web_syntax.cjs PACKAGE        serves texts: one JSON request per line on stdin
//                                      {"id", "filename", "source": base64}, one answer
//                                      per line {"id", "status", "stderr"}
//
// PACKAGE is the folder of the installed `postcss` or `html-validate` package, found
// by tinycode; its package.json says which.

const fs = require('node:fs');
const path = require('node:path');
const { run } = require('./judge_protocol.cjs');

const PACKAGE = process.argv[2];
const NAME = JSON.parse(fs.readFileSync(path.join(PACKAGE, 'package.json'), 'utf8')).name;

// html-validate's rules for markup that is broken, not merely unidiomatic: an end tag
// that closes the wrong element or none, an attribute left open or given twice, content
// in a void element. Left out: "Stray end tag" (real pages have those, `</p>` after a
// block that closed it, and browsers read them) and an element still open where the
// text ends (a template's part, closed in another file).
const HTML_RULES = { 'close-attr': 'error', 'close-order': 'error', 'no-dup-attr': 'error', 'void-content': 'error' };

function cssChecker() {
  const postcss = require(PACKAGE);
  return (filename, text) => {
    try {
      postcss.parse(text, { from: undefined });
      return '';
    } catch (error) {
      if (!error || error.name !== 'CssSyntaxError') throw error;
      return `${filename}:${error.line || 1}:${error.column || 1}: error: ${error.reason}\n`;
    }
  };
}

function htmlChecker() {
  const { HtmlValidate } = require(PACKAGE);
  // No configuration file is looked for: the rules are these, whatever the folder holds.
  const validator = new HtmlValidate({ root: true, rules: HTML_RULES });
  return (filename, text) => {
    const report = validator.validateStringSync(text, filename);
    return report.results.flatMap((result) => result.messages)
      .filter((m) => m.severity === 2 && !/^(Stray end tag|Unclosed element)/.test(m.message))
      .map((m) => `${filename}:${m.line}:${m.column}: error: ${m.message.replace(/\s+/g, ' ')}\n`)
      .join('');
  };
}

const check = NAME === 'postcss' ? cssChecker() : NAME === 'html-validate' ? htmlChecker() : null;
if (check === null) {
  process.stderr.write(`tinycode: ${PACKAGE} is neither postcss nor html-validate\n`);
  process.exit(2);
}

run(check, process.argv[3]);
