// Lists: their members' tweets, their members and their subscribers.

import type { Page, PageRequest, Tweet, User } from "@social/core";
import { type StoredId, TWEET_COLUMNS } from "@social/store-common";
import type { SQL } from "bun";
import { type TweetRow, VISIBLE } from "../world/rows.ts";
import {
  existingId,
  statement,
  type TweetWalkParams,
  tweetPage,
  type UserWalk,
  userPage,
  usersNewestFirst,
} from "./reads.ts";

function statements(sql: SQL) {
  return {
    listExists: statement<object, [StoredId]>(sql, "SELECT 1 FROM lists WHERE id = $1::bigint"),
    // Each member's newest tweets from their own index, then the newest of those: a page costs
    // members × page size rows, however many tweets the world holds. PostgreSQL would otherwise walk
    // every tweet newest first and probe the list for each author.
    listTweets: statement<TweetRow, TweetWalkParams>(
      sql,
      `SELECT ${TWEET_COLUMNS} FROM list_members m
       CROSS JOIN LATERAL (SELECT * FROM tweets t WHERE t.author_id = m.user_id AND ${VISIBLE} AND t.id < $2::bigint
                           ORDER BY t.id DESC LIMIT $3) t
       WHERE m.list_id = $1::bigint ORDER BY t.id DESC LIMIT $3`,
    ),
    listMembers: usersNewestFirst(sql, "list_members", "list_id", "user_id"),
    listSubscribers: usersNewestFirst(sql, "list_subscribers", "list_id", "user_id"),
  };
}

export class ListReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL) {
    this.#q = statements(sql);
  }

  async tweets(listId: string, page: PageRequest): Promise<Page<Tweet> | undefined> {
    const id = await existingId(this.#q.listExists, listId);
    return id === undefined ? undefined : tweetPage(this.#q.listTweets, id, page);
  }

  members(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#users(this.#q.listMembers, listId, page);
  }

  subscribers(listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#users(this.#q.listSubscribers, listId, page);
  }

  async #users(walk: UserWalk, listId: string, page: PageRequest): Promise<Page<User> | undefined> {
    const id = await existingId(this.#q.listExists, listId);
    return id === undefined ? undefined : userPage(walk, id, page);
  }
}
