// The Sessions port's contract, run against every adapter: sessions until they expire, sign-in attempts
// taken at most once, expired rows of both tables removed whenever a row is stored, and a sign-in
// attempt taken by only one of two processes racing for it.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Sessions } from "@social/core";

export interface SessionsFixture {
  sessions: Sessions;
  /** The same database through connections of its own, as a second process reaches it. */
  peer: Sessions;
  /** An account a session can belong to. */
  accountId: string;
  close(): Promise<void>;
}

const checks = { state: "state-1", nonce: "nonce-1", codeVerifier: "verifier-1" };

export function sessionsConformance(adapter: string, open: () => Promise<SessionsFixture>): void {
  describe(`Sessions on ${adapter}`, () => {
    let fixture: SessionsFixture;
    let sessions: Sessions;
    let record: { accountId: string; csrfToken: string };

    beforeEach(async () => {
      fixture = await open();
      sessions = fixture.sessions;
      record = { accountId: fixture.accountId, csrfToken: "csrf-1" };
    });

    afterEach(() => fixture.close());

    test("a session is found until it expires, and by its id only", async () => {
      await sessions.createSession("s1", record, 2_000, 1_000);
      expect(await sessions.findSession("s1", 1_000)).toEqual(record);
      expect(await sessions.findSession("s1", 1_999)).toEqual(record);
      expect(await fixture.peer.findSession("s1", 1_999)).toEqual(record);
      expect(await sessions.findSession("s1", 2_000)).toBeUndefined();
      expect(await sessions.findSession("s2", 1_000)).toBeUndefined();
    });

    test("a deleted session is gone; deleting an unknown one is no error", async () => {
      await sessions.createSession("s1", record, 2_000, 1_000);
      await sessions.createSession("s2", { ...record, csrfToken: "csrf-2" }, 2_000, 1_000);
      await sessions.deleteSession("s1");
      await sessions.deleteSession("missing");
      expect(await sessions.findSession("s1", 1_000)).toBeUndefined();
      expect(await sessions.findSession("s2", 1_000)).toEqual({ ...record, csrfToken: "csrf-2" });
    });

    test("a session of an unknown account is refused", async () => {
      await expect(
        sessions.createSession("s1", { accountId: "acct_missing", csrfToken: "t" }, 2_000, 1_000),
      ).rejects.toThrow();
      expect(await sessions.findSession("s1", 1_000)).toBeUndefined();
    });

    test("a sign-in attempt is taken once", async () => {
      await sessions.saveSignIn("a1", checks, 2_000, 1_000);
      expect(await sessions.takeSignIn("a1", 1_500)).toEqual(checks);
      expect(await sessions.takeSignIn("a1", 1_500)).toBeUndefined();
      expect(await sessions.takeSignIn("unknown", 1_500)).toBeUndefined();
    });

    test("an expired sign-in attempt is not taken", async () => {
      await sessions.saveSignIn("a1", checks, 2_000, 1_000);
      expect(await sessions.takeSignIn("a1", 2_000)).toBeUndefined();
    });

    test("storing a session removes the expired sessions and sign-in attempts, and only those", async () => {
      await sessions.createSession("old", record, 2_000, 1_000);
      await sessions.createSession("live", record, 9_000, 1_000);
      await sessions.saveSignIn("old-attempt", checks, 2_000, 1_000);
      await sessions.saveSignIn("live-attempt", checks, 9_000, 1_000);
      await sessions.createSession("new", record, 9_000, 2_000);
      // Asked about an earlier time, a row still stored would be found: these are deleted.
      expect(await sessions.findSession("old", 1_000)).toBeUndefined();
      expect(await sessions.takeSignIn("old-attempt", 1_000)).toBeUndefined();
      expect(await sessions.findSession("live", 2_000)).toEqual(record);
      expect(await sessions.findSession("new", 2_000)).toEqual(record);
      expect(await sessions.takeSignIn("live-attempt", 2_000)).toEqual(checks);
    });

    test("storing a sign-in attempt removes the expired sessions and sign-in attempts, and only those", async () => {
      await sessions.createSession("old", record, 2_000, 1_000);
      await sessions.createSession("live", record, 9_000, 1_000);
      await sessions.saveSignIn("old-attempt", checks, 2_000, 1_000);
      await sessions.saveSignIn("live-attempt", checks, 9_000, 1_000);
      await sessions.saveSignIn("new-attempt", checks, 9_000, 2_000);
      expect(await sessions.findSession("old", 1_000)).toBeUndefined();
      expect(await sessions.takeSignIn("old-attempt", 1_000)).toBeUndefined();
      expect(await sessions.findSession("live", 2_000)).toEqual(record);
      expect(await sessions.takeSignIn("live-attempt", 2_000)).toEqual(checks);
      expect(await sessions.takeSignIn("new-attempt", 2_000)).toEqual(checks);
    });

    test("of two processes taking one sign-in attempt at once, one gets it", async () => {
      await sessions.saveSignIn("a1", checks, 2_000, 1_000);
      const taken = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? sessions : fixture.peer).takeSignIn("a1", 1_500)),
      );
      expect(taken.filter((answer) => answer !== undefined)).toEqual([checks]);
    });
  });
}
