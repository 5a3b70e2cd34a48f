export * from "./database.ts";
