// A key's limit and spend as both schemas show them in api_keys' columns (PostgreSQL's api_key_totals
// view merges the spend from the key's credit shards), read into core's KeySpend (the rules of a key's
// limit are core's: packages/core/src/billing/key-spend.ts).
import type { KeySpend } from "@social/core";

/** The limit and spend columns of a key row; `Int` is how the database hands out a BIGINT. */
export interface KeySpendRowOf<Int> {
  credit_limit: Int | null;
  limit_per: string | null;
  expires_at: Int | null;
  spent_total: Int;
  spent_today: Int;
  spent_day: Int | null;
}

const nullable = (value: number | string | null) => (value === null ? null : Number(value));

export function keySpendOf(row: KeySpendRowOf<number | string>): KeySpend {
  const credits = nullable(row.credit_limit);
  return {
    limit: credits === null ? null : { credits, per: row.limit_per === "day" ? "day" : "total" },
    total: Number(row.spent_total),
    today: Number(row.spent_today),
    day: nullable(row.spent_day),
  };
}
