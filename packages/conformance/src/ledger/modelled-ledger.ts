// One test's ledger beside the serial model it is checked against (../serial-ledger.ts): every helper
// does the same to the database and to the model, and every debit must come to the model's outcome.
// Its members are arrow functions, so that a test takes the ones it uses by destructuring.
import { expect } from "bun:test";
import type { KeyOptions, Ledger, UsageRecord } from "@social/core";
import { type DebitOutcome, outcomeOf, SerialLedger } from "../serial-ledger.ts";
import type { LedgerFixture } from "./support.ts";

export class ModelledLedger {
  readonly fixture: LedgerFixture;
  readonly ledger: Ledger;
  readonly model = new SerialLedger();

  constructor(fixture: LedgerFixture) {
    this.fixture = fixture;
    this.ledger = fixture.ledger;
  }

  /** After the test: every account's books in the database are the model's; the fixture is closed. */
  async closeChecked(): Promise<void> {
    try {
      for (const accountId of this.model.accountIds()) {
        expect(await this.fixture.books(accountId), accountId).toEqual(this.model.books(accountId));
      }
    } finally {
      await this.fixture.close();
    }
  }

  readonly #createAccount = async (credits: number): Promise<string> => {
    const accountId = await this.fixture.createAccount(credits);
    this.model.openAccount(accountId, credits);
    return accountId;
  };

  readonly createKey = async (accountId: string, options?: KeyOptions) => {
    const key = await this.fixture.createKey(accountId, options);
    this.model.addKey(accountId, key.keyId, options);
    return key;
  };

  readonly setUp = async (credits: number, options?: KeyOptions) => {
    const accountId = await this.#createAccount(credits);
    return { accountId, ...(await this.createKey(accountId, options)) };
  };

  /** One debit through `through` (the fixture's ledger), which must come to what the model gives at `at`. */
  readonly debit = async (
    accountId: string,
    record: UsageRecord,
    { through = this.ledger, at = Date.now }: { through?: Ledger; at?: () => number } = {},
  ): Promise<DebitOutcome> => {
    const outcome = await outcomeOf(through.debit(accountId, record));
    expect(outcome, record.requestId).toEqual(this.model.debit(accountId, record, at()));
    return outcome;
  };

  /** Debits made together through one ledger, which applies them in call order as the model does. */
  readonly debitTogether = async (accountId: string, records: UsageRecord[]): Promise<DebitOutcome[]> => {
    const outcomes = await Promise.all(records.map((record) => outcomeOf(this.ledger.debit(accountId, record))));
    expect(outcomes).toEqual(records.map((record) => this.model.debit(accountId, record, Date.now())));
    return outcomes;
  };

  readonly refund = async (accountId: string, requestId: string): Promise<void> => {
    await this.ledger.refund(accountId, requestId);
    this.model.refund(accountId, requestId);
  };

  readonly grant = async (accountId: string, credits: number): Promise<void> => {
    await this.fixture.grant(accountId, credits);
    this.model.grant(accountId, credits);
  };

  readonly revokeKey = async (keyId: string): Promise<void> => {
    await this.fixture.revokeKey(keyId);
    this.model.revokeKey(keyId);
  };
}

/** A test of the suite, given its ModelledLedger: opened before it, its books checked after. */
export type LedgerTest = (name: string, body: (run: ModelledLedger) => Promise<void>) => void;
