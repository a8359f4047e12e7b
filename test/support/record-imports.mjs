/**
 * `node --import ./record-imports.mjs …`: appends the URL of every module the process resolves
 * (ES imports, and CommonJS packages reached through them or through createRequire) to the
 * file named by RECORD_IMPORTS_TO, one a line. For tests of what a code path loads.
 */
import { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import Module from 'node:module';

const out = process.env.RECORD_IMPORTS_TO;
if (out) {
  register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { out } });
  // require() of CommonJS does not pass through the ES hooks in Node 20.
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    const r = load.call(this, request, parent, isMain);
    try {
      appendFileSync(out, `${Module._resolveFilename(request, parent, isMain)}\n`);
    } catch {
      /* a builtin */
    }
    return r;
  };
}
