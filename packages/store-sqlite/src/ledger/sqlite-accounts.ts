// The Accounts port on bun:sqlite: the account, key, grant and usage functions of this folder, and
// the stored secrets, behind the interface the dashboard and the operator CLI use.
import type { Database } from "bun:sqlite";
import type {
  AccountDetails,
  Accounts,
  DailyUsage,
  Grant,
  KeyChanges,
  KeyInfo,
  KeyOptions,
  LoggedRefusal,
  NewKey,
  RequestLogPage,
  RequestLogQuery,
  RequestUsage,
  UsageGroup,
  UsageQuery,
} from "@social/core";
import { persistentSecret } from "../settings.ts";
import {
  accountGrants,
  createAccount,
  findOrCreateAccountBySubject,
  getAccount,
  grantCredits,
  lastTopUp,
  setLowBalanceWarning,
} from "./accounts.ts";
import { createKey, keyInfo, listKeys, revokeKey, updateKey } from "./keys.ts";
import { countRefused, requestLogPage } from "./request-history.ts";
import { dailyUsage, recentRequests, usageSummary } from "./usage.ts";

export class SqliteAccounts implements Accounts {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async account(accountId: string): Promise<AccountDetails | undefined> {
    return getAccount(this.#db, accountId);
  }

  async openAccount(
    name: string,
    credits?: number,
    keyOptions?: KeyOptions,
  ): Promise<{ account: AccountDetails; key: NewKey }> {
    const db = this.#db;
    // One transaction: a failure leaves neither an account without its key nor a key without its account.
    return db
      .transaction(() => {
        const account = createAccount(db, name, credits);
        return { account, key: createKey(db, account.id, name, keyOptions) };
      })
      .immediate();
  }

  async accountForIdentity(issuer: string, subject: string, name: string): Promise<AccountDetails> {
    return findOrCreateAccountBySubject(this.#db, issuer, subject, name).account;
  }

  async grantCredits(accountId: string, credits: number, reason?: string): Promise<number> {
    return grantCredits(this.#db, accountId, credits, reason);
  }

  async createKey(accountId: string, name: string, options?: KeyOptions): Promise<NewKey> {
    return createKey(this.#db, accountId, name, options);
  }

  async key(keyId: string): Promise<KeyInfo | undefined> {
    return keyInfo(this.#db, keyId);
  }

  async listKeys(accountId?: string): Promise<KeyInfo[]> {
    return listKeys(this.#db, accountId);
  }

  async updateKey(keyId: string, changes: KeyChanges): Promise<KeyInfo> {
    return updateKey(this.#db, keyId, changes);
  }

  async revokeKey(reference: string): Promise<KeyInfo> {
    return revokeKey(this.#db, reference);
  }

  async dailyUsage(accountId: string, days: number): Promise<DailyUsage[]> {
    return dailyUsage(this.#db, accountId, days);
  }

  async usageSummary(accountId: string, query: UsageQuery): Promise<UsageGroup[]> {
    return usageSummary(this.#db, accountId, query);
  }

  async recentRequests(accountId: string, limit: number): Promise<RequestUsage[]> {
    return recentRequests(this.#db, accountId, limit);
  }

  async requestLog(accountId: string, query: RequestLogQuery): Promise<RequestLogPage> {
    return requestLogPage(this.#db, accountId, query);
  }

  async countRefused(accountId: string, refusal: LoggedRefusal, since: number, atMost: number): Promise<number> {
    return countRefused(this.#db, accountId, refusal, since, atMost);
  }

  async grants(accountId: string, limit: number): Promise<Grant[]> {
    return accountGrants(this.#db, accountId, limit);
  }

  async lastTopUp(accountId: string): Promise<Grant | undefined> {
    return lastTopUp(this.#db, accountId);
  }

  async setLowBalanceWarning(accountId: string, credits: number | null): Promise<void> {
    setLowBalanceWarning(this.#db, accountId, credits);
  }

  async secret(name: string): Promise<string> {
    return persistentSecret(this.#db, name);
  }
}
