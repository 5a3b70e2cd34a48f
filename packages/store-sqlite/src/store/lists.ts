// Lists: their members' tweets, their members and their subscribers.
import type { Database } from "bun:sqlite";
import type { Page, PageRequest, Tweet, User } from "@social/core";
import type { StoredId } from "@social/store-common";
import { existingId, tweetPage, tweetsNewestFirst, type UserWalk, userPage, usersNewestFirst } from "./reads.ts";

function statements(db: Database) {
  return {
    listExists: db.query<object, [StoredId]>("SELECT 1 FROM lists WHERE id = ?"),
    listTweets: tweetsNewestFirst(db, "m.list_id = ?1", "list_members m JOIN tweets t ON t.author_id = m.user_id"),
    listMembers: usersNewestFirst(db, "list_members", "list_id", "user_id"),
    listSubscribers: usersNewestFirst(db, "list_subscribers", "list_id", "user_id"),
  };
}

export class ListReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database) {
    this.#q = statements(db);
  }

  tweets(listId: string, page: PageRequest): Page<Tweet> | undefined {
    const id = existingId(this.#q.listExists, listId);
    return id === undefined ? undefined : tweetPage(this.#q.listTweets, id, page);
  }

  members(listId: string, page: PageRequest): Page<User> | undefined {
    return this.#users(this.#q.listMembers, listId, page);
  }

  subscribers(listId: string, page: PageRequest): Page<User> | undefined {
    return this.#users(this.#q.listSubscribers, listId, page);
  }

  #users(walk: UserWalk, listId: string, page: PageRequest): Page<User> | undefined {
    const id = existingId(this.#q.listExists, listId);
    return id === undefined ? undefined : userPage(walk, id, page);
  }
}
