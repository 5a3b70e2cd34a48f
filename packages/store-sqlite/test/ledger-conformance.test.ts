// The Ledger conformance suite (@social/conformance) on SQLite, the embedded default: on a command's
// connection, and on a server's, whose commits are synced and checkpointed on other threads.
import { ledgerConformance } from "@social/conformance";
import { openSqliteFixture } from "./ledger-fixture.ts";

ledgerConformance("SQLite", openSqliteFixture);
ledgerConformance("SQLite, serving (checkpoints and fsyncs on other threads)", () =>
  openSqliteFixture({ serving: true }),
);
