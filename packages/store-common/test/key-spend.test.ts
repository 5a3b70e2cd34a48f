// A key's limit and spend as both schemas store them: SQLite hands out its integers as numbers,
// PostgreSQL its BIGINTs as strings, and both read into the same KeySpend.
import { expect, test } from "bun:test";
import { keySpendOf } from "../src/key-spend.ts";

test("reads a PostgreSQL row, its BIGINTs as strings, as SQLite's", () => {
  const postgres = keySpendOf({
    credit_limit: "500",
    limit_per: "day",
    expires_at: null,
    spent_total: "1200",
    spent_today: "40",
    spent_day: "20784",
  });
  const sqlite = keySpendOf({
    credit_limit: 500,
    limit_per: "day",
    expires_at: null,
    spent_total: 1200,
    spent_today: 40,
    spent_day: 20784,
  });
  expect(postgres).toEqual({ limit: { credits: 500, per: "day" }, total: 1200, today: 40, day: 20784 });
  expect(sqlite).toEqual(postgres);
});

test("reads a key without a limit, never charged", () => {
  const row = {
    credit_limit: null,
    limit_per: null,
    expires_at: null,
    spent_total: 0,
    spent_today: 0,
    spent_day: null,
  };
  expect(keySpendOf(row)).toEqual({ limit: null, total: 0, today: 0, day: null });
});

test("reads a limit without its period as a limit in total", () => {
  const row = { credit_limit: 50, limit_per: null, expires_at: null, spent_total: 7, spent_today: 7, spent_day: 1 };
  expect(keySpendOf(row).limit).toEqual({ credits: 50, per: "total" });
});
