export * from "./database.ts";
export * from "./ledger/postgres-ledger.ts";
export * from "./migrate.ts";
export * from "./outage.ts";
export * from "./store/postgres-store.ts";
export * from "./world/build.ts";
export * from "./world/writer.ts";
