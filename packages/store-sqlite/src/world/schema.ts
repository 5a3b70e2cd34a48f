import type { Migration } from "../migrate.ts";

export const worldMigrations: readonly Migration[] = [];
