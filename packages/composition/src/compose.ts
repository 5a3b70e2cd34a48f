// How an adapter becomes a Backend: it opens its ports and says what an outage of its database is; every
// port is handed out here through core's answeringOutages, so that every port of every adapter answers
// an outage as service_unavailable without its classes doing anything about it, and closing waits for
// the ledger's writes in flight on every adapter alike.
import { answeringOutages, type OutageTest } from "@social/core";
import type { Backend } from "./backend.ts";
import { settlingLedger } from "./settling-ledger.ts";

/** What an adapter opens: its ports as its classes implement them, and the operations around them. */
export interface AdapterParts extends Omit<Backend, "secret"> {
  /** Whether an error means the database cannot serve now (retry later) rather than a bug. */
  isOutage: OutageTest;
}

export function composeBackend(parts: AdapterParts): Backend {
  const answering = <Port extends object>(port: Port): Port => answeringOutages(port, parts.isOutage);
  const accounts = answering(parts.accounts);
  const settling = settlingLedger(answering(parts.ledger));
  return {
    kind: parts.kind,
    store: answering(parts.store),
    ledger: settling.ledger,
    accounts,
    idempotency: answering(parts.idempotency),
    sessions: answering(parts.sessions),
    monitors: answering(parts.monitors),
    requestLog: answering(parts.requestLog),
    secret: (name) => accounts.secret(name),
    hasWorld: parts.hasWorld,
    buildWorld: parts.buildWorld,
    worldImport: () => answering(parts.worldImport()),
    worldRemoval: () => answering(parts.worldRemoval()),
    close: async () => {
      await settling.settled();
      await parts.close();
    },
  };
}
