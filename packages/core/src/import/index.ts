export * from "./freshness.ts";
export * from "./importer.ts";
export * from "./lines.ts";
export * from "./mention-ids.ts";
export * from "./removal.ts";
export * from "./run-types.ts";
export * from "./usernames.ts";
export * from "./x-objects.ts";
