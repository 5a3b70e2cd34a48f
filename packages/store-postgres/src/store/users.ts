// Users: lookups by id and by username, and the timelines of their tweets.

import type { Page, PageRequest, TimelineKind, Tweet, UserLookup } from "@social/core";
import { type StoredId, USER_COLUMNS, type UserRow, userLookupFromRow } from "@social/store-common";
import type { SQL } from "bun";
import { asciiFold } from "../world/rows.ts";
import {
  byIds,
  existingId,
  itemsByIds,
  rangedTweetPage,
  statement,
  textArray,
  tweetsNewestFirstWithin,
} from "./reads.ts";

function statements(sql: SQL) {
  return {
    users: byIds<UserRow & { id: string }>(sql, (id) => `SELECT u.id, ${USER_COLUMNS} FROM users u WHERE u.id ${id}`),
    userExists: statement<object, [StoredId]>(sql, "SELECT 1 FROM users WHERE id = $1::bigint"),
    userByUsername: statement<UserRow, [key: string]>(
      sql,
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.username_key = $1`,
    ),
    usersByUsernames: statement<UserRow & { key: string }, [keys: string]>(
      sql,
      `SELECT u.username_key AS key, ${USER_COLUMNS} FROM users u WHERE u.username_key = ANY($1::text[])`,
    ),
    timeline: {
      tweets: tweetsNewestFirstWithin(sql, "t.author_id = $1::bigint AND NOT t.is_reply"),
      originals: tweetsNewestFirstWithin(sql, "t.author_id = $1::bigint AND NOT t.is_reply AND t.retweeted_id IS NULL"),
      replies: tweetsNewestFirstWithin(sql, "t.author_id = $1::bigint"),
      media: tweetsNewestFirstWithin(sql, "t.author_id = $1::bigint AND t.has_media"),
      mentions: tweetsNewestFirstWithin(
        sql,
        "m.user_id = $1::bigint",
        "tweet_mentions m JOIN tweets t ON t.id = m.tweet_id",
        "m.tweet_id",
      ),
    },
  };
}

export class UserReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL) {
    this.#q = statements(sql);
  }

  byIds(ids: readonly string[]): Promise<UserLookup[]> {
    return itemsByIds(this.#q.users, ids, userLookupFromRow);
  }

  async byUsername(username: string): Promise<UserLookup | undefined> {
    const row = await this.#q.userByUsername.get(asciiFold(username));
    return row === undefined ? undefined : userLookupFromRow(row);
  }

  /** One statement for every name: a batch of a hundred is one round trip, not a hundred. */
  async byUsernames(usernames: readonly string[]): Promise<UserLookup[]> {
    if (usernames.length === 0) return [];
    const keys = usernames.map(asciiFold);
    // PostgreSQL's text holds no NUL, and no username has one.
    const askable = keys.filter((key) => !key.includes("\u0000"));
    const rows = new Map(
      (await this.#q.usersByUsernames.all(textArray(askable))).map((row) => [row.key, userLookupFromRow(row)]),
    );
    return keys.flatMap((key) => rows.get(key) ?? []);
  }

  /** The stored id of the user `id`, if there is one: the parent of the reads below a user. */
  existingId(id: string): Promise<StoredId | undefined> {
    return existingId(this.#q.userExists, id);
  }

  async timeline(userId: string, kind: TimelineKind, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const id = await this.existingId(userId);
    return id === undefined ? undefined : rangedTweetPage(this.#q.timeline[kind], id, page);
  }
}
