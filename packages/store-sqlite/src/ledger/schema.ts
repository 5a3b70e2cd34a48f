import type { Migration } from "../migrate.ts";

export const ledgerMigrations: readonly Migration[] = [];
