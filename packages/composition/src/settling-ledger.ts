// The ledger as a serving process holds it, its writes in flight counted so that closing the database
// waits for them: a refund made as the process stops (an answer that could not be written) would
// otherwise be lost with the connection.
import type { Ledger } from "@social/core";

export interface SettlingLedger {
  /** The ledger's methods, each debit and refund counted while in flight. */
  ledger: Ledger;
  /** Resolves once no write is in flight, those started meanwhile included; a failed write is its caller's. */
  settled(): Promise<void>;
}

export function settlingLedger(inner: Ledger): SettlingLedger {
  const writes = new Set<Promise<unknown>>();
  const counted = <T>(write: Promise<T>): Promise<T> => {
    writes.add(write);
    const forget = () => writes.delete(write);
    write.then(forget, forget);
    return write;
  };
  return {
    ledger: {
      checkKey: (keyHash) => inner.checkKey(keyHash),
      balance: (accountId) => inner.balance(accountId),
      debit: (accountId, usage) => counted(inner.debit(accountId, usage)),
      refund: (accountId, requestId) => counted(inner.refund(accountId, requestId)),
    },
    async settled() {
      while (writes.size > 0) await Promise.allSettled([...writes]);
    },
  };
}
