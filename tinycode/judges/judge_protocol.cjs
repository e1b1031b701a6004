'use strict';
// How each of tinycode's own node judge programs runs (judges/warm.py speaks the other
// end): given FILE, it judges that file, prints the errors on stderr and exits 1 (0 when
// there are none); without one, it serves texts, one JSON request per line on stdin
// {"id", "filename", "source": base64}, one answer per line {"id", "status", "stderr"}.
// `check(filename, text)` returns the errors as the program prints them ('' for none).

const fs = require('node:fs');
const path = require('node:path');
const readline = require('node:readline');

function run(check, file) {
  if (file !== undefined) {
    const stderr = check(path.basename(file), fs.readFileSync(file, 'utf8'));
    process.stderr.write(stderr);
    process.exit(stderr ? 1 : 0);  // a compiler process the check started would keep node running
  }
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

module.exports = { run };
