// Users: lookups by id and by username, and the timelines of their tweets.
import type { Database } from "bun:sqlite";
import type { Page, PageRequest, TimelineKind, Tweet, UserLookup } from "@social/core";
import { type StoredId, USER_COLUMNS, type UserRow, userLookupFromRow } from "@social/store-common";
import { existingId, itemsByIds, rangedTweetPage, tweetsNewestFirstWithin } from "./reads.ts";

function statements(db: Database) {
  return {
    user: db.query<UserRow, [StoredId]>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`),
    userExists: db.query<object, [StoredId]>("SELECT 1 FROM users WHERE id = ?"),
    userByUsername: db.query<UserRow, [string]>(
      `SELECT ${USER_COLUMNS} FROM users u WHERE u.username = ? COLLATE NOCASE`,
    ),
    timeline: {
      tweets: tweetsNewestFirstWithin(db, "t.author_id = ?1 AND t.is_reply = 0"),
      originals: tweetsNewestFirstWithin(db, "t.author_id = ?1 AND t.is_reply = 0 AND t.retweeted_id IS NULL"),
      replies: tweetsNewestFirstWithin(db, "t.author_id = ?1"),
      media: tweetsNewestFirstWithin(db, "t.author_id = ?1 AND t.has_media = 1"),
      mentions: tweetsNewestFirstWithin(
        db,
        "m.user_id = ?1",
        "tweet_mentions m JOIN tweets t ON t.id = m.tweet_id",
        "m.tweet_id",
      ),
    },
  };
}

export class UserReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database) {
    this.#q = statements(db);
  }

  byIds(ids: readonly string[]): UserLookup[] {
    return itemsByIds(this.#q.user, ids, userLookupFromRow);
  }

  byUsername(username: string): UserLookup | undefined {
    const row = this.#q.userByUsername.get(username);
    return row === null ? undefined : userLookupFromRow(row);
  }

  /** The stored id of the user `id`, if there is one: the parent of the reads below a user. */
  existingId(id: string): StoredId | undefined {
    return existingId(this.#q.userExists, id);
  }

  timeline(userId: string, kind: TimelineKind, page: PageRequest): Page<Tweet> | undefined {
    const id = this.existingId(userId);
    return id === undefined ? undefined : rangedTweetPage(this.#q.timeline[kind], id, page);
  }
}
