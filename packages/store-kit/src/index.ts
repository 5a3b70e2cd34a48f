export * from "./keys.ts";
export * from "./owner-turns.ts";
export * from "./pages.ts";
export * from "./rows.ts";
export * from "./search-cursor.ts";
export * from "./search-tokens.ts";
export * from "./threads.ts";
export * from "./world.ts";
