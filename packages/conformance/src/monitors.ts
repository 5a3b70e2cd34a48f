// The Monitors port's contract, run against every adapter: management by the owning account and its
// limit, the arrivals an import writes and the matches recorded from them, the charge intent and its
// settling by the ledger, and the webhook deliveries claimed under leases, with what stays true when two
// processes (two ports with connections of their own) do any of it at the same moment, and the retention
// that purges old matches. Each topic is a
// module of ./monitors/.
import { afterEach, beforeEach, describe, test } from "bun:test";
import { deliveryConformance } from "./monitors/delivery.ts";
import { managementConformance } from "./monitors/management.ts";
import { matchingConformance } from "./monitors/matching.ts";
import { retentionConformance } from "./monitors/retention.ts";
import { type MonitorsFixture, type MonitorsTest, type Owners, openOwners } from "./monitors/suite.ts";

export type { MonitorsFixture } from "./monitors/suite.ts";

export function monitorsConformance(adapter: string, open: () => Promise<MonitorsFixture>): void {
  describe(`Monitors on ${adapter}`, () => {
    let fixture: MonitorsFixture;
    let owners: Owners;

    beforeEach(async () => {
      fixture = await open();
      owners = await openOwners(fixture.accounts);
    });

    afterEach(() => fixture.close());

    const monitorsTest: MonitorsTest = (name, body, timeoutMs) =>
      test(name, () => body({ fixture, monitors: fixture.monitors, owners }), timeoutMs);

    managementConformance(monitorsTest);
    matchingConformance(monitorsTest);
    deliveryConformance(monitorsTest);
    retentionConformance(monitorsTest);
  });
}
