// A process that charges one credit at a time until it is killed, for the test of what a killed
// process leaves behind (credit-shards.test.ts). Says "charging" once its first charge committed.
import { SQL } from "bun";
import { PostgresLedger } from "../src/ledger/postgres-ledger.ts";

const [url, accountId, keyId] = process.argv.slice(2);
if (url === undefined || accountId === undefined || keyId === undefined) {
  throw new Error("usage: charging-process.ts URL ACCOUNT_ID KEY_ID");
}
const ledger = new PostgresLedger(new SQL(url, { max: 4 }));
for (let i = 0; ; i++) {
  // Several in flight at once, so that the kill finds batches being written.
  const results = await Promise.all(
    [0, 1, 2, 3].map((j) =>
      ledger.debit(accountId, { requestId: `child-${i}-${j}`, keyId, endpoint: "/v1/tweets/:id", credits: 1 }),
    ),
  );
  if (i === 0) console.log("charging");
  if (results.some((result) => !result.ok)) break;
}
