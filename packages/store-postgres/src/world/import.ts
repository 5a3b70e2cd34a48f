// Imports into a PostgreSQL world (core's WorldImport port): each batch is one transaction that reads the
// stored copies (and the stored tweets that name the batch's users by username alone), COPYs what
// planImport decided into temporary tables and upserts it from there, and writes the search vector of
// every tweet whose terms changed: the batch's own, those of a replaced user whose username, verified or
// protected flag changed, and the replies to a user added or renamed; and the mentions index rows and
// mention names of every tweet it writes; the posts it adds wait as arrivals for the monitors' matcher
// while any monitor is active.
// Batches take the world's write lock (./settle.ts), so two imports never decide on the same stored copy
// at once; the last settles the world's meta.
import {
  type BatchCounts,
  foldUsername,
  type ImportBatch,
  type ImportedWorld,
  searchDocument,
  type Tweet,
  type UserLookup,
  type WorldImport,
} from "@social/core";
import {
  arrivedTweetIds,
  type ImportPlan,
  type ImportTweetColumns,
  namesOfBatch,
  planImport,
  type StoredTweet,
  TWEET_COLUMNS,
  tweetFromRow,
  tweetMentionNames,
  tweetMentions,
  USER_COLUMNS,
  type UserRow,
  userLookupFromRow,
  usersOfBatch,
} from "@social/store-common";
import type { SQL, TransactionSQL } from "bun";
import { searchVector } from "../search/lexemes.ts";
import { copyRows } from "./copy.ts";
import { readFollowPosition, writeFollowPosition } from "./follow-position.ts";
import { asciiFold, type TweetRow } from "./rows.ts";
import { settleWorld, WORLD_WRITE_LOCK } from "./settle.ts";

const USER_COPY = ["id", "username", "username_key", "status", "doc"] as const;
/** A tweet row's columns as planned, then its search vector. */
const TWEET_ROW_COPY: readonly (keyof ImportTweetColumns)[] = [
  "id",
  "author_id",
  "created_ms",
  "conversation_id",
  "lang",
  "text",
  "possibly_sensitive",
  "like_count",
  "retweet_count",
  "reply_count",
  "quote_count",
  "bookmark_count",
  "is_quote_status",
  "is_reply",
  "has_media",
  "has_links",
  "reply_to_id",
  "quoted_id",
  "retweeted_id",
  "extra",
  "author_protected",
  "versions",
];
const TWEET_COPY = [...TWEET_ROW_COPY, "search_vector"];

function excluded(columns: readonly string[]): string {
  return columns
    .filter((column) => column !== "id")
    .map((column) => `${column} = excluded.${column}`)
    .join(", ");
}

export class PostgresWorldImport implements WorldImport {
  readonly #sql: SQL;

  constructor(sql: SQL) {
    this.#sql = sql;
  }

  async lookUp(userIds: readonly string[], usernames: readonly string[]) {
    const sql = this.#sql;
    const [found, holders] = await Promise.all([
      sql<
        { id: string }[]
      >`SELECT id::text AS id FROM users WHERE id = ANY(${sql.array([...userIds], "TEXT")}::bigint[])`,
      sql<{ id: string; username: string }[]>`
        SELECT id::text AS id, username FROM users
        WHERE username_key = ANY(${sql.array(usernames.map(asciiFold), "TEXT")})`,
    ]);
    return {
      users: new Set(found.map(({ id }) => id)),
      usernames: new Map(holders.map(({ id, username }) => [foldUsername(username), id])),
    };
  }

  async write(batch: ImportBatch): Promise<BatchCounts> {
    return this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${WORLD_WRITE_LOCK})`;
      const ids = batch.tweets.map(({ tweet }) => tweet.id);
      const rows = await tx<(TweetRow & { versions: number })[]>`
        SELECT ${tx.unsafe(TWEET_COLUMNS)}, t.versions FROM tweets t
        WHERE t.id = ANY(${tx.array(ids, "TEXT")}::bigint[] || ARRAY(SELECT tweet_id FROM tweet_mention_names
                         WHERE username_key = ANY(${tx.array(namesOfBatch(batch), "TEXT")})))`;
      const storedTweets = new Map<string, StoredTweet>();
      for (const row of rows) storedTweets.set(row.id, { tweet: tweetFromRow(row), versions: row.versions });
      const own = new Set(ids);
      const mentioning = [...storedTweets.values()].flatMap(({ tweet }) => (own.has(tweet.id) ? [] : [tweet]));
      const storedUsers = await readUsers(tx, usersOfBatch(batch, mentioning));
      const plan = planImport(batch, storedUsers, storedTweets);
      const dependents = await readDependents(tx, plan, storedUsers);
      const terms = (tweet: Tweet) => searchVector(searchDocument(tweet, searchContext(tweet, plan)));

      await upsert(
        tx,
        "users",
        USER_COPY,
        plan.users.map(({ row }) => [row.id, row.username, asciiFold(row.username), row.status, row.doc]),
      );
      await upsert(
        tx,
        "tweets",
        TWEET_COPY,
        plan.tweets.map(({ tweet, row }) => [...TWEET_ROW_COPY.map((column) => row[column]), terms(tweet)]),
      );
      await replaceMentions(tx, plan);
      if (dependents.length > 0) {
        await tx`CREATE TEMP TABLE import_retag (id BIGINT, author_protected BOOLEAN, search_vector TSVECTOR) ON COMMIT DROP`;
        await copyRows(
          tx,
          "import_retag",
          ["id", "author_protected", "search_vector"],
          dependents.map((tweet) => [tweet.id, plan.userAfter(tweet.author_id)?.protected ?? false, terms(tweet)]),
        );
        await tx`UPDATE tweets t SET author_protected = r.author_protected, search_vector = r.search_vector
                 FROM import_retag r WHERE t.id = r.id`;
      }
      for (const [id, verified] of plan.reverified) {
        await tx`UPDATE follows SET follower_verified = ${verified} WHERE follower_id = ${id}::bigint`;
        await tx`UPDATE follows SET followee_verified = ${verified} WHERE followee_id = ${id}::bigint`;
      }
      await writeArrivals(tx, plan);
      if (batch.position !== undefined) await writeFollowPosition(tx, batch.position);
      return plan.counts;
    });
  }

  async followPosition(path: string) {
    return readFollowPosition(this.#sql, path);
  }

  async finish(): Promise<ImportedWorld> {
    return this.#sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${WORLD_WRITE_LOCK})`;
      return settleWorld(tx);
    });
  }
}

async function readUsers(tx: TransactionSQL, ids: readonly string[]): Promise<Map<string, UserLookup>> {
  const rows = await tx<(UserRow & { id: string })[]>`
    SELECT u.id::text AS id, ${tx.unsafe(USER_COLUMNS)} FROM users u WHERE u.id = ANY(${tx.array([...ids], "TEXT")}::bigint[])`;
  return new Map(rows.map((row) => [row.id, userLookupFromRow(row)]));
}

/**
 * The stored tweets whose row or terms follow a replaced user (not the batch's own), with every user
 * their terms name read into `users`.
 */
async function readDependents(tx: TransactionSQL, plan: ImportPlan, users: Map<string, UserLookup>): Promise<Tweet[]> {
  const own = new Set(plan.tweets.map(({ tweet }) => tweet.id));
  const rows: TweetRow[] = [];
  if (plan.changedAuthors.length > 0) {
    rows.push(
      ...(await tx<TweetRow[]>`SELECT ${tx.unsafe(TWEET_COLUMNS)} FROM tweets t
        WHERE t.author_id = ANY(${tx.array(plan.changedAuthors, "TEXT")}::bigint[])`),
    );
  }
  if (plan.newUsernames.length > 0) {
    // Replies name their user in the JSON only, which the index tweets_reply_to_user keys them by.
    rows.push(
      ...(await tx<TweetRow[]>`SELECT ${tx.unsafe(TWEET_COLUMNS)} FROM tweets t
        WHERE t.is_reply AND (t.extra::json ->> 'in_reply_to_user_id') = ANY(${tx.array(plan.newUsernames, "TEXT")})`),
    );
  }
  const byId = new Map(rows.filter((row) => !own.has(row.id)).map((row) => [row.id, row]));
  const tweets = [...byId.values()].map(tweetFromRow);
  const named = new Set<string>();
  for (const tweet of tweets) {
    for (const id of [tweet.author_id, tweet.in_reply_to_user_id]) {
      if (id !== undefined && plan.userAfter(id) === undefined) named.add(id);
    }
  }
  for (const [id, user] of await readUsers(tx, [...named])) users.set(id, user);
  return tweets;
}

function searchContext(tweet: Tweet, plan: ImportPlan) {
  const author = plan.userAfter(tweet.author_id);
  const repliedTo = tweet.in_reply_to_user_id === undefined ? undefined : plan.userAfter(tweet.in_reply_to_user_id);
  return {
    author: { username: author?.username ?? "", verified: author?.verified ?? false },
    ...(repliedTo === undefined ? {} : { replyToUsername: repliedTo.username }),
  };
}

/** The mentions index rows and mention names of the tweets written, as the copies written give them. */
async function replaceMentions(tx: TransactionSQL, plan: ImportPlan): Promise<void> {
  if (plan.tweets.length === 0) return;
  const written = tx.array(
    plan.tweets.map(({ tweet }) => tweet.id),
    "TEXT",
  );
  await tx`DELETE FROM tweet_mentions WHERE tweet_id = ANY(${written}::bigint[])`;
  await tx`DELETE FROM tweet_mention_names WHERE tweet_id = ANY(${written}::bigint[])`;
  const rows = plan.tweets.flatMap(({ tweet }) => tweetMentions(tweet).map((row) => [row.tweet_id, row.user_id]));
  if (rows.length > 0) await copyRows(tx, "tweet_mentions", ["tweet_id", "user_id"], rows);
  const names = plan.tweets.flatMap(({ tweet }) =>
    tweetMentionNames(tweet).map((row) => [row.tweet_id, row.username_key]),
  );
  if (names.length > 0) await copyRows(tx, "tweet_mention_names", ["tweet_id", "username_key"], names);
}

/** The posts the batch adds, in its order, as arrivals for the monitors' matcher, while any monitor is active. */
async function writeArrivals(tx: TransactionSQL, plan: ImportPlan): Promise<void> {
  const arrived = arrivedTweetIds(plan);
  if (arrived.length === 0) return;
  await tx`
    INSERT INTO monitor_arrivals (tweet_id)
    SELECT id FROM unnest(${tx.array(arrived, "TEXT")}::bigint[]) WITH ORDINALITY AS a(id, n)
    WHERE EXISTS (SELECT 1 FROM monitors WHERE status = 'active') ORDER BY n`;
}

/** COPYs `rows` into a temporary twin of `table` and upserts them from there by id. */
async function upsert(
  tx: TransactionSQL,
  table: "users" | "tweets",
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  if (rows.length === 0) return;
  const staging = `import_${table}`;
  await tx.unsafe(`CREATE TEMP TABLE ${staging} (LIKE ${table} INCLUDING DEFAULTS) ON COMMIT DROP`);
  await copyRows(tx, staging, columns, rows);
  const list = columns.join(", ");
  await tx.unsafe(
    `INSERT INTO ${table} (${list}) SELECT ${list} FROM ${staging} ON CONFLICT (id) DO UPDATE SET ${excluded(columns)}`,
  );
}
