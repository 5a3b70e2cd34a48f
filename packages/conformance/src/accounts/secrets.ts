// The server's stored secrets: made once, even when several processes ask at the same moment, and read
// back the same by every process.
import { describe, expect } from "bun:test";
import type { AccountsTest } from "./suite.ts";

/** Secrets: made once, the same for every process. */
export function secretsConformance(accountsTest: AccountsTest): void {
  describe("secrets", () => {
    accountsTest("a secret is made once and then read back, by every process", async ({ accounts, fixture }) => {
      const secret = await accounts.secret("session_secret");
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(await accounts.secret("session_secret")).toBe(secret);
      expect(await fixture.peer.secret("session_secret")).toBe(secret);
      expect(await accounts.secret("pagination_token_secret")).not.toBe(secret);
    });

    accountsTest("processes asking for a new secret at once all get the same one", async ({ accounts, fixture }) => {
      const asked = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? accounts : fixture.peer).secret("raced")),
      );
      expect(new Set(asked).size).toBe(1);
    });
  });
}
