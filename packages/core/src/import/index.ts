export * from "./freshness.ts";
export * from "./importer.ts";
export * from "./lines.ts";
export * from "./port.ts";
export * from "./removal.ts";
export * from "./x-objects.ts";
