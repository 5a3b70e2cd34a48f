export * from "./database.ts";
export * from "./ledger/index.ts";
