// WORLD: where a process's social world comes from when the database has none yet. `generated` (the
// default) builds the fixture world, as every start always did; `empty` starts a world with no users or
// tweets, for an operator who imports their own (`bun run admin import`). Every process that serves
// the API (the HTTP server, the MCP stdio server) starts this way, so either may be the first.
import { DEFAULT_WORLD } from "@social/fixtures";
import type { Backend } from "./backend.ts";

export const WORLD_SOURCES = ["generated", "empty"] as const;
export type WorldSource = (typeof WORLD_SOURCES)[number];

/** Gives the database a world when it has none; `onBuild` is told before a generated world is built. */
export async function prepareWorld(backend: Backend, source: WorldSource, onBuild?: () => void): Promise<void> {
  if (await backend.hasWorld()) return;
  if (source === "empty") {
    await backend.worldImport().finish();
    return;
  }
  onBuild?.();
  await backend.buildWorld(DEFAULT_WORLD);
}
