/**
 * Runs the suite's longest files first, so that the two workers finish together instead of one running a
 * long process test alone at the end (CI runs from a clean clone, with no timings cached from a previous
 * run to order by). The list holds the process tests that take more than ~20 s on PostgreSQL, longest
 * first; every other file keeps Vitest's own order after them.
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST_FIRST = [
  'test/platform/concurrent-start.test.ts',
  'test/modules/workflows/crash-recovery.test.ts',
  'test/platform/start-and-shutdown.test.ts',
  'test/platform/rolling-deploy.test.ts',
  'test/platform/multi-instance.test.ts',
  'test/platform/terminal-logs.test.ts',
  'test/modules/interactions/crash-recovery.test.ts',
  'test/modules/interactions/send-crash.test.ts',
  'test/platform/multi-instance-sla.test.ts',
];

function rankOf(spec: TestSpecification): number {
  const i = LONGEST_FIRST.findIndex((path) => spec.moduleId.endsWith(path));
  return i === -1 ? LONGEST_FIRST.length : i;
}

export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rankOf(a.spec) - rankOf(b.spec) || a.index - b.index)
      .map((x) => x.spec);
  }
}
