/**
 * vitest's file order for a run with no recorded durations (a fresh clone): the integration
 * files first, the unit files after them. vitest's own order without durations is the largest
 * file first, which starts a 100 s integration file after hundreds of unit files and can leave
 * it running alone at the end while the other worker idles; unit files last fill in instead.
 * Once every file has a recorded duration, vitest's order (longest first) stands as it is.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const INTEGRATION = /[\\/]test[\\/]integration[\\/]/;

/** `files` with the integration ones moved to the front, each part in the order given. */
export function integrationFirst<T extends { moduleId: string }>(files: readonly T[]): T[] {
  return [
    ...files.filter((f) => INTEGRATION.test(f.moduleId)),
    ...files.filter((f) => !INTEGRATION.test(f.moduleId)),
  ];
}

export default class IntegrationFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const known = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`);
    return sorted.every(known) ? sorted : integrationFirst(sorted);
  }
}
