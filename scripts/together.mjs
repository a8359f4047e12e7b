// Runs npm scripts side by side and fails when any of them fails, naming it: `npm test`'s
// build, ESLint and Prettier's check are independent, and on two cores running them together
// takes about as long as the slowest of them instead of their sum.
// Usage: node scripts/together.mjs build lint:eslint format:check
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const npm = process.env.npm_execpath;
const results = await Promise.all(
  names.map(
    (name) =>
      new Promise((done) => {
        const [cmd, args] = npm
          ? [process.execPath, [npm, 'run', '--silent', name]]
          : ['npm', ['run', '--silent', name]];
        const child = spawn(cmd, args, { stdio: 'inherit' });
        child.on('error', (e) => done({ name, code: `${e.message}` }));
        child.on('exit', (code, signal) => done({ name, code: signal ?? code }));
      }),
  ),
);
const failed = results.filter((r) => r.code !== 0);
for (const r of failed) process.stderr.write(`npm run ${r.name} failed (${r.code})\n`);
process.exit(failed.length > 0 ? 1 : 0);
