export * from "./accounts.ts";
export * from "./keys.ts";
export * from "./request-log.ts";
export * from "./sqlite-accounts.ts";
export * from "./sqlite-idempotency.ts";
export * from "./sqlite-ledger.ts";
export * from "./usage.ts";
