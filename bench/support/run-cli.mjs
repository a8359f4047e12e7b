// Runs the CLI from the main.js named by argv[2] (tsc's dist/cli/main.js or the bundle's) with
// the arguments after it: bench/process-start.ts compares the two builds' start-up.
import { pathToFileURL } from 'node:url';

const { main } = await import(pathToFileURL(process.argv[2]).href);
await main(process.argv.slice(3));
