// The Accounts port's contract, run against every adapter: accounts and their grants, keys and the cap
// on active keys, usage summaries, the request log, stored secrets, and what stays true when two
// processes (two ports with connections of their own) create keys, sign in or read secrets at the same
// moment. Each topic is a module of ./accounts/.
import { afterEach, beforeEach, describe, test } from "bun:test";
import { keysConformance } from "./accounts/keys.ts";
import { openingConformance } from "./accounts/opening.ts";
import { requestLogConformance } from "./accounts/request-log.ts";
import { secretsConformance } from "./accounts/secrets.ts";
import type { AccountsFixture, AccountsTest } from "./accounts/suite.ts";
import { usageConformance } from "./accounts/usage.ts";

export type { AccountsFixture } from "./accounts/suite.ts";

export function accountsConformance(adapter: string, open: () => Promise<AccountsFixture>): void {
  describe(`Accounts on ${adapter}`, () => {
    let fixture: AccountsFixture;

    beforeEach(async () => {
      fixture = await open();
    });

    afterEach(() => fixture.close());

    const accountsTest: AccountsTest = (name, body, timeoutMs) =>
      test(name, () => body({ fixture, accounts: fixture.accounts }), timeoutMs);

    openingConformance(accountsTest);
    keysConformance(accountsTest);
    usageConformance(accountsTest);
    requestLogConformance(accountsTest);
    secretsConformance(accountsTest);
  });
}
