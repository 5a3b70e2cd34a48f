// Monitors are matched by the importer: after each batch it commits, the posts the batch added are
// matched against every active monitor and recorded (core's matchArrivals), and once before the first
// batch, for what an earlier run left when it stopped between a commit and its matching. A matching that
// fails (the database out) stops nothing: its posts wait as arrivals and the next batch's matching, or
// the next run, records them.
import type { Backend } from "@social/composition";
import { type ImportBatch, matchArrivals, type PercolatorCache, type WorldImport } from "@social/core";

/** Arrivals matched and recorded per transaction. */
const ARRIVALS_PER_STEP = 500;

/**
 * `operator`'s import port, matching what each batch adds once it has committed; what an earlier run left
 * is matched first. `warn` says why a matching failed.
 */
export async function matchingImport(operator: Backend, warn: (line: string) => void): Promise<WorldImport> {
  const cache: PercolatorCache = {};
  const ports = { monitors: operator.monitors, store: operator.store };
  const match = async () => {
    try {
      await matchArrivals(ports, cache, ARRIVALS_PER_STEP);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      warn(
        `monitors: the new posts could not be matched (${reason}); they wait, and the next batch or run matches them`,
      );
    }
  };
  await match();
  const port = operator.worldImport();
  return {
    lookUp: (userIds, usernames) => port.lookUp(userIds, usernames),
    write: async (batch: ImportBatch) => {
      const counts = await port.write(batch);
      await match();
      return counts;
    },
    followPosition: (path) => port.followPosition(path),
    finish: () => port.finish(),
  };
}
