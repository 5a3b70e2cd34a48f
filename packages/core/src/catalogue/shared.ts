// What the toolsets' entries share: page sizes, parameter sets, the shapes of their read results and of
// their data in /2 terms.
import * as v from "valibot";
import type { ReadResult } from "../endpoint.ts";
import { notFound } from "../errors.ts";
import type { Tweet, User } from "../model.ts";
import { idParam, nextTokenParam, paramsIssueMessage } from "../params.ts";
import type { IdPage, Page } from "../ports/store.ts";

export const PAGE_SIZE = 20;
/** Most tweets a thread read returns; a longer self-thread comes back with complete=false. */
export const THREAD_MAX_TWEETS = 100;
/** Quotes, retweeters (tweet context) and recent tweets (profile) each hold at most one page. */
export const WORKFLOW_SECTION_SIZE = PAGE_SIZE;

export const fixedPageSize = () => PAGE_SIZE;

export function strict<T extends v.ObjectEntries>(entries: T) {
  return v.strictObject(entries, paramsIssueMessage);
}

export const byId = strict({ id: idParam });
export const byIdPaged = strict({ id: idParam, next_token: nextTokenParam });

export async function pageResult<T>(pending: Promise<Page<T> | undefined>, missing: string): Promise<ReadResult<T[]>> {
  const page = await pending;
  if (!page) throw notFound(missing);
  return { data: page.items, ...(page.next ? { next: page.next } : {}) };
}

export async function idPageResult(pending: Promise<IdPage | undefined>, missing: string): Promise<ReadResult<never>> {
  const page = await pending;
  if (!page) throw notFound(missing);
  return { data: page.ids, count: page.count, ...(page.next ? { next: page.next } : {}) };
}

export async function oneResult<T>(pending: Promise<T | undefined>, missing: string): Promise<ReadResult<T>> {
  const found = await pending;
  if (found === undefined) throw notFound(missing);
  return { data: found };
}

/** The /2 resource of a read whose data is a list of tweets, a list of users, one tweet or one user. */
export const TWEET_LIST = { resource: "tweet", items: (tweets: readonly Tweet[]) => tweets } as const;
export const USER_LIST = { resource: "user", items: (users: readonly User[]) => users } as const;
export const ONE_TWEET = { resource: "tweet", items: (tweet: Tweet) => [tweet] } as const;
export const ONE_USER = { resource: "user", items: (user: User) => [user] } as const;
