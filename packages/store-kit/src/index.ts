export * from "./keys.ts";
export * from "./pages.ts";
export * from "./rows.ts";
export * from "./world.ts";
