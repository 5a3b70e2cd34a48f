export * from "./database.ts";
export * from "./ledger/index.ts";
export * from "./migrate.ts";
export * from "./settings.ts";
export * from "./store.ts";
export * from "./world/writer.ts";
