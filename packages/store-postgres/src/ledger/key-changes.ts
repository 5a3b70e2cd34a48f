// How a PostgreSQL process hears that cached key checks (store-common's KeyCache) must go: a trigger
// (./schema.ts) notifies `key_changes` with the account id when one of its keys is revoked or its
// balance rises (grants, refunds), whichever process or tool wrote it.
import type { KeyCache } from "@social/store-common";
import type { SQL } from "bun";

/** The channel the triggers of ./schema.ts notify. */
const KEY_CHANGES_CHANNEL = "key_changes";

/**
 * Subscribes `cache` to the database's notifications. Until the subscription is acknowledged nothing is
 * cached, and every (re)subscription starts the cache over, since changes may have been missed.
 */
export async function listenForKeyChanges(sql: SQL, cache: KeyCache): Promise<void> {
  await sql.listen(
    KEY_CHANGES_CHANNEL,
    (accountId) => cache.changed(accountId),
    () => cache.startOver(),
  );
}
