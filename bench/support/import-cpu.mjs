// Imports the module named by argv[2] and sends this process's own CPU seconds (user + sys) to
// the parent: what loading it cost. For bench/process-start.ts; an entry that waits for its
// parent's messages (a generator process) has loaded everything by the time the import ends.
import { pathToFileURL } from 'node:url';

await import(pathToFileURL(process.argv[2]).href);
const u = process.cpuUsage();
process.send({ cpuS: (u.user + u.system) / 1e6 });
