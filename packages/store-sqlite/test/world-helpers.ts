// The default world twice over for the store tests: built into a database, and kept as the generator's
// records (@social/conformance's world truth), from which each test computes the unpaginated truth the
// store's pages must add up to.
import type { Database } from "bun:sqlite";
import { defaultWorldTruth, type WorldTruth } from "@social/conformance";
import type { CommunityTweetSort, Page, PageRequest, Tweet, User, UserLookup } from "@social/core";
import { DEFAULT_WORLD } from "@social/fixtures";
import { openDatabase } from "../src/database.ts";
import { SqliteStore } from "../src/store/sqlite-store.ts";
import { buildWorld } from "../src/world/build.ts";
import { communityRelevance } from "../src/world/writer.ts";

export { collectWorld, isVisible, searchDocumentIn, type WorldTruth } from "@social/conformance";

export interface BuiltWorld {
  db: Database;
  store: SqliteStore;
  truth: WorldTruth;
}

/** The default world in a fresh in-memory database, with its records. */
export function buildDefaultWorld(): BuiltWorld {
  const db = openDatabase(":memory:");
  buildWorld(db, DEFAULT_WORLD);
  return { db, store: new SqliteStore(db), truth: defaultWorldTruth() };
}

/** Every item of a paginated read, page by page; checks that only the last page is short. */
export async function walk<T>(
  read: (page: PageRequest) => Promise<Page<T> | undefined>,
  size: number,
): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let page: PageRequest = { size };
  for (let pages = 1; ; pages++) {
    const result = await read(page);
    if (result === undefined) throw new Error("walk: the parent is missing");
    items.push(...result.items);
    if (result.next === undefined) return { items, pages };
    if (result.items.length !== size) throw new Error(`walk: page ${pages} has ${result.items.length} of ${size}`);
    page = { size, after: result.next };
  }
}

export const byIdDesc = (a: { id: string }, b: { id: string }) => Number(b.id) - Number(a.id);
export const byIdAsc = (a: { id: string }, b: { id: string }) => Number(a.id) - Number(b.id);

/** Newest first, ties by the larger id first: the order of every relation read. */
export function newestFirst<T>(items: readonly T[], createdAt: (item: T) => string, id: (item: T) => string): T[] {
  return [...items].sort(
    (a, b) => Date.parse(createdAt(b)) - Date.parse(createdAt(a)) || Number(id(b)) - Number(id(a)),
  );
}

export function plainUser(lookup: UserLookup): User {
  const { status: _status, ...user } = lookup;
  return user;
}

/**
 * How the store orders a community's tweets for each sort, as comparisons of the generated tweets;
 * `truth` is read when comparing, so the orders can be listed before the world is built.
 */
export function communityTweetOrders(
  truth: () => WorldTruth,
): Record<CommunityTweetSort, (a: Tweet, b: Tweet) => number> {
  return {
    recency: byIdDesc,
    likes: (a, b) => b.like_count - a.like_count || byIdDesc(a, b),
    relevance: (a, b) => {
      const clockMs = Date.parse(truth().clock);
      return communityRelevance(b, clockMs) - communityRelevance(a, clockMs) || byIdDesc(a, b);
    },
  };
}
