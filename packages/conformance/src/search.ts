// The search oracle: both adapters' compiled search must select exactly what the core's reference
// matcher accepts, for any query and any tweets: random small worlds, random ASTs and random query
// strings, every page of both sort orders, in the matcher's order (newest first) for recency, and the
// same matches counted per bucket of a time window. Relevancy
// orders by each database's own text score (bm25 on SQLite, ts_rank on PostgreSQL), so there the pages
// must hold each match exactly once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  type CountWindow,
  FILTER_NAMES,
  matches,
  type PageRequest,
  parseQuery,
  type SearchNode,
  type SearchSortOrder,
  SearchSyntaxError,
  type Store,
  searchDocument,
  type Tweet,
  type UserLookup,
} from "@social/core";
import type { WorldRecord } from "@social/fixtures";
import { WORLD_TABLES } from "@social/store-kit";
import { openDatabase, SqliteStore, WorldWriter as SqliteWorldWriter } from "@social/store-sqlite";
import type { SQL } from "bun";
import fc from "fast-check";
import { openPostgres } from "../../src/database.ts";
import { type Condition, compileSearch } from "../../src/search/compile.ts";
import { LexemeFrequencies } from "../../src/search/frequencies.ts";
import { withinHours } from "../../src/search/hours.ts";
import { langLexeme, lexemesOf } from "../../src/search/lexemes.ts";
import { PostgresStore } from "../../src/store/postgres-store.ts";
import { WorldWriter as PostgresWorldWriter } from "../../src/world/writer.ts";
import { type PostgresServer, startPostgres } from "../../testing/pg-server.ts";

const USERNAMES = ["Alice", "bob", "CAROL_1", "dave", "K_9"];
const LANGS = ["en", "EN", "fr", "ja", "zh-tw", "pt-BR", "pt", "und"];
// Written as tweets are: case, diacritics, punctuation, FTS5 syntax and SQL that must stay plain text.
const WORDS = [
  "ai",
  "AI",
  "Bun",
  "Café",
  "cafe",
  "naïve",
  "NAIVE",
  "e\u0301x",
  "x_y",
  "a#b",
  "42",
  "ΣΟΦΙΑΣ",
  "σοφιας",
  "日本",
  "İstanbul",
  "straße",
  "don't",
  "NEAR",
  "AND",
  "OR",
  "NOT",
  "text",
  "author",
  "lang",
  "links",
  "replies",
];
const TAGS = ["#AI", "#ai", "#bun", "#Café", "#日本", "$TSLA", "$aapl", "#ai_ml", "@bob", "@Alice"];
// NUL only in queries: no post holds one, and PostgreSQL's TEXT cannot.
const SYNTAX = ['"', "*", "^", ":", "(", ")", "'", ";", "--", "NEAR(ai bun)", "ai*", "col:ai", "{text}", "a\\b", "!"];
const SEPARATORS = [" ", ", ", "! ", "\n", " - ", " (", ") ", ""];
const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(2025, 0, 1);
const DAYS = 6;

/** A few conversations the tweets share (besides their own), for conversation_id:. */
const CONVERSATIONS = ["1000", "1007", "5"];

interface TweetSeed {
  words: [string, string][];
  author: number;
  lang: string;
  createdMs: number;
  likes: number;
  retweets: number;
  /** The user it replies to, by index, or none. */
  replyTo: number | undefined;
  link: boolean;
  retweet: boolean;
  quote: boolean;
  media: boolean;
  hashtag: boolean;
  mention: boolean;
  /** One of CONVERSATIONS by index, or its own. */
  conversation: number | undefined;
}

const tweetSeed: fc.Arbitrary<TweetSeed> = fc.record({
  words: fc.array(fc.tuple(fc.constantFrom(...WORDS, ...TAGS, ...SYNTAX), fc.constantFrom(...SEPARATORS)), {
    maxLength: 8,
  }),
  author: fc.nat({ max: USERNAMES.length - 1 }),
  lang: fc.constantFrom(...LANGS),
  createdMs: fc.integer({ min: FIRST_DAY, max: FIRST_DAY + DAYS * DAY_MS - 1 }),
  likes: fc.nat({ max: 20 }),
  retweets: fc.nat({ max: 20 }),
  replyTo: fc.option(fc.nat({ max: USERNAMES.length - 1 }), { nil: undefined }),
  link: fc.boolean(),
  retweet: fc.boolean(),
  quote: fc.boolean(),
  media: fc.boolean(),
  hashtag: fc.boolean(),
  mention: fc.boolean(),
  conversation: fc.option(fc.nat({ max: CONVERSATIONS.length - 1 }), { nil: undefined }),
});

/** A seed of `text` alone, with no other trait. */
function textSeed(text: string, index: number): TweetSeed {
  return {
    words: [[text, ""]],
    author: index % USERNAMES.length,
    lang: "en",
    createdMs: FIRST_DAY + index,
    likes: 0,
    retweets: 0,
    replyTo: undefined,
    link: false,
    retweet: false,
    quote: false,
    media: false,
    hashtag: false,
    mention: false,
    conversation: undefined,
  };
}

/**
 * The ids of a test world: small ones, or X-sized ones past 2^53 (`base` added to each), which no
 * JavaScript number holds exactly and which both stores must keep, bind and order exactly.
 */
interface WorldIds {
  base: bigint;
}

const SMALL_IDS: WorldIds = { base: 0n };
const X_SIZED_IDS: WorldIds = { base: 1_800_000_000_000_000_000n };

/** The id `local` of a world with `ids`. */
function idAt(ids: WorldIds, local: number | string): string {
  return String(ids.base + BigInt(local));
}

function localId(ids: WorldIds, id: string): number {
  return Number(BigInt(id) - ids.base);
}

function newestFirst(a: string, b: string): number {
  const [x, y] = [BigInt(a), BigInt(b)];
  return x === y ? 0 : x > y ? -1 : 1;
}

/** `node` with its ids (conversation_id:, since_id:, until_id:) in the world of `ids`. */
function shifted(node: SearchNode, ids: WorldIds): SearchNode {
  switch (node.kind) {
    case "and":
    case "or":
      return { kind: node.kind, children: node.children.map((child) => shifted(child, ids)) };
    case "not":
      return { kind: "not", child: shifted(node.child, ids) };
    case "conversation":
    case "since_id":
    case "until_id":
      return { ...node, id: idAt(ids, node.id) };
    default:
      return node;
  }
}

function user(index: number, ids = SMALL_IDS): UserLookup {
  return {
    id: idAt(ids, 100 + index),
    username: USERNAMES[index] as string,
    name: `User ${index}`,
    description: "",
    created_at: "2020-01-01T00:00:00.000Z",
    // Every other user is verified, for is:verified.
    verified: index % 2 === 0,
    protected: false,
    profile_image_url: "https://example.com/a.png",
    follower_count: 0,
    following_count: 0,
    tweet_count: 0,
    status: "active",
  };
}

/** Ids increase with the seed's position, not with time: the compiler must not rely on either. */
function tweet(seed: TweetSeed, index: number, ids = SMALL_IDS): Tweet {
  const id = idAt(ids, 1000 + index * 7);
  const text = seed.words.map(([word, separator]) => word + separator).join("") + (seed.link ? " https://t.co/x" : "");
  const urls = seed.link
    ? [{ start: 0, end: 1, url: "https://t.co/x", expanded_url: "https://example.com/", display_url: "example.com" }]
    : [];
  const references = [
    ...(seed.retweet ? [{ type: "retweeted" as const, id: idAt(ids, 999) }] : []),
    ...(seed.quote ? [{ type: "quoted" as const, id: idAt(ids, 998) }] : []),
  ];
  return {
    id,
    text,
    author_id: idAt(ids, 100 + seed.author),
    created_at: new Date(seed.createdMs).toISOString(),
    lang: seed.lang,
    conversation_id: seed.conversation === undefined ? id : idAt(ids, CONVERSATIONS[seed.conversation] as string),
    possibly_sensitive: false,
    like_count: seed.likes,
    retweet_count: seed.retweets,
    reply_count: 0,
    quote_count: 0,
    bookmark_count: 0,
    is_quote_status: seed.quote,
    entities: {
      hashtags: seed.hashtag ? [{ start: 0, end: 3, tag: "ai" }] : [],
      urls,
      mentions: seed.mention ? [{ start: 0, end: 4, username: "bob", id: idAt(ids, 101) }] : [],
    },
    ...(seed.replyTo === undefined ? {} : { in_reply_to_user_id: idAt(ids, 100 + seed.replyTo) }),
    ...(references.length > 0 ? { referenced_tweets: references } : {}),
    ...(seed.quote ? { quoted_tweet_id: idAt(ids, 998) } : {}),
    ...(seed.media ? { media: [{ type: "photo" as const, url: "https://example.com/p.jpg" }] } : {}),
  };
}

function worldRecords(tweets: readonly Tweet[], ids: WorldIds): WorldRecord[] {
  return [
    ...USERNAMES.map((_, index): WorldRecord => ({ kind: "user", user: user(index, ids) })),
    ...tweets.map((t): WorldRecord => ({ kind: "tweet", tweet: t })),
  ];
}

const WORLD_META = { seed: "test", clock: new Date(FIRST_DAY + DAYS * DAY_MS).toISOString() };

/** A store holding just `tweets` (and the five users), and whether its writer found ids following time. */
interface LoadedWorld {
  store: Store;
  idsFollowTime: boolean;
  close(): Promise<void>;
}

interface Adapter {
  name: string;
  load(tweets: readonly Tweet[], ids?: WorldIds): Promise<LoadedWorld>;
}

/**
 * The oracle checks answers, not the budget (search-budget tests do): on a machine loaded by the whole
 * suite a search of a few dozen tweets once took PostgreSQL past 100 ms and was refused.
 */
const ORACLE_BUDGET = { budgetMs: 10_000, countBudgetMs: 10_000 };

const sqlite: Adapter = {
  name: "SQLite",
  async load(tweets, ids = SMALL_IDS) {
    const db = openDatabase(":memory:");
    const writer = new SqliteWorldWriter(db);
    writer.begin({ ...WORLD_META, tweets: tweets.length });
    writer.write(worldRecords(tweets, ids));
    writer.end();
    const meta = db.query("SELECT ids_follow_time FROM world_meta").get() as { ids_follow_time: number };
    return {
      // Windows that start at two tweets and shrink at every step make a search cross many windows even
      // in a world of thirty tweets.
      store: new SqliteStore(db, { search: { ...ORACLE_BUDGET, firstWindow: 2, stepMs: 0 } }),
      idsFollowTime: meta.ids_follow_time === 1,
      close: async () => db.close(),
    };
  },
};

/**
 * PostgreSQL: one database on a server of this file's own, its world replaced for every run and analyzed,
 * and a store of its own for each, whose searches decide what the index is asked from that world's
 * lexeme frequencies (src/search/frequencies.ts).
 */
function postgresAdapter(sql: () => SQL): Adapter {
  return {
    name: "PostgreSQL",
    async load(tweets, ids = SMALL_IDS) {
      const db = sql();
      await db.begin(async (tx) => {
        await tx.unsafe(`TRUNCATE ${WORLD_TABLES.join(", ")}`);
        const writer = new PostgresWorldWriter(tx);
        writer.begin({ ...WORLD_META, tweets: tweets.length });
        writer.write(worldRecords(tweets, ids));
        writer.end();
        await writer.finished();
      });
      await db`ANALYZE tweets`;
      const [meta] = await db<{ ids_follow_time: boolean }[]>`SELECT ids_follow_time FROM world_meta`;
      // A walk of two tweets makes most pages gather the rest through the index.
      const store = new PostgresStore(db, { newestWalk: 2, search: ORACLE_BUDGET });
      return { store, idsFollowTime: meta?.ids_follow_time === true, close: async () => {} };
    },
  };
}

/**
 * Five tweets of three words that hold `ai`, twice in the two oldest and once in the others (the same
 * length, so that bm25, which weighs it, scores alike what ts_rank does), then ten without it: bm25
 * scores a word most tweets hold at about 0.
 */
function scoredTweets(): Tweet[] {
  const texts = ["ai ai bun", "cafe ai ai", "ai bun cafe", "bun ai text", "cafe bun ai"];
  texts.push(...Array.from({ length: 10 }, () => "bun cafe text"));
  return texts.map((text, index) => tweet({ ...textSeed(text, index), author: 0 }, index));
}

async function allPages(store: Store, query: SearchNode, sortOrder: SearchSortOrder, size: number) {
  const ids: string[] = [];
  let page: PageRequest = { size };
  for (let pages = 0; pages < 1000; pages++) {
    const result = await store.searchTweets(query, sortOrder, page);
    ids.push(...result.items.map((item) => item.id));
    if (result.next === undefined) return ids;
    expect(result.items.length).toBe(size);
    page = { size, after: result.next };
  }
  throw new Error("pagination does not end");
}

function documentOf(t: Tweet, ids: WorldIds) {
  const userOf = (id: string) => user(localId(ids, id) - 100, ids);
  const author = userOf(t.author_id);
  const repliedTo = t.in_reply_to_user_id === undefined ? undefined : userOf(t.in_reply_to_user_id);
  return searchDocument(t, {
    author,
    ...(repliedTo === undefined ? {} : { replyToUsername: repliedTo.username }),
  });
}

function expected(tweets: readonly Tweet[], query: SearchNode, ids: WorldIds): string[] {
  return tweets
    .filter((t) => matches(query, documentOf(t, ids)))
    .map((t) => t.id)
    .sort(newestFirst);
}

/**
 * A count window that starts and ends inside the world's days and inside its buckets, which are not
 * whole hours: tweets fall before, inside and after it, and the query's own since: / until: cut it.
 */
const COUNT_WINDOW: CountWindow = {
  startMs: FIRST_DAY + 7 * 3_600_000 + 17 * 60_000,
  endMs: FIRST_DAY + 5 * DAY_MS + 3 * 3_600_000 + 5 * 60_000,
  sizeMs: 11 * 3_600_000,
};

function expectedCounts(tweets: readonly Tweet[], query: SearchNode, ids: WorldIds): number[] {
  const { startMs, endMs, sizeMs } = COUNT_WINDOW;
  const origin = Math.floor(startMs / sizeMs) * sizeMs;
  const counts = new Array<number>(Math.ceil(endMs / sizeMs) - origin / sizeMs).fill(0);
  for (const t of tweets) {
    const created = Date.parse(t.created_at);
    if (created >= startMs && created < endMs && matches(query, documentOf(t, ids))) {
      const bucket = Math.floor((created - origin) / sizeMs);
      counts[bucket] = (counts[bucket] ?? 0) + 1;
    }
  }
  return counts;
}

/**
 * With `timeOrdered`, ids increase with creation time, as in generated worlds, and the store may turn
 * since: / until: into id bounds; otherwise they must stay plain filters. The queries' ids are local
 * ones, moved into the world of `ids`.
 */
async function checkQueries(
  adapter: Adapter,
  seeds: readonly TweetSeed[],
  localQueries: readonly SearchNode[],
  size: number,
  timeOrdered: boolean,
  ids = SMALL_IDS,
) {
  const ordered = timeOrdered ? [...seeds].sort((a, b) => a.createdMs - b.createdMs) : seeds;
  const tweets = ordered.map((seed, index) => tweet(seed, index, ids));
  const world = await adapter.load(tweets, ids);
  try {
    if (timeOrdered) expect(world.idsFollowTime).toBe(true);
    for (const query of localQueries.map((local) => shifted(local, ids))) {
      const truth = expected(tweets, query, ids);
      const context = `${adapter.name}: ${JSON.stringify(query)}`;
      expect(await allPages(world.store, query, "recency", size), context).toEqual(truth);
      const relevancy = await allPages(world.store, query, "relevancy", size);
      expect(new Set(relevancy).size, context).toBe(relevancy.length);
      expect([...relevancy].sort(newestFirst), context).toEqual(truth);
      expect(await world.store.countTweets(query, COUNT_WINDOW), context).toEqual(expectedCounts(tweets, query, ids));
    }
  } finally {
    await world.close();
  }
}

const day = fc
  .integer({ min: -1, max: DAYS + 1 })
  .map((n) => new Date(FIRST_DAY + n * DAY_MS).toISOString().slice(0, 10));
// Phrases of two and three words, repeats included, as a phrase is matched by its pairs of words too.
const textValue = fc.constantFrom(
  ...WORDS,
  ...SYNTAX,
  "\u0000",
  "ai bun",
  "café ai",
  "ai ai",
  "ai bun café",
  "bun ai bun",
  "#ai",
  "b",
  "",
  "x\u0000y",
);
const leaf: fc.Arbitrary<SearchNode> = fc.oneof(
  textValue.map((value): SearchNode => ({ kind: "term", value })),
  textValue.map((value): SearchNode => ({ kind: "phrase", value })),
  fc
    .constantFrom("ai", "AI", "bun", "café", "日本", "ai_ml", "x")
    .map((value): SearchNode => ({ kind: "hashtag", value })),
  fc.constantFrom("tsla", "AAPL", "x").map((value): SearchNode => ({ kind: "cashtag", value })),
  fc
    .constantFrom(...USERNAMES, "alice", "nobody", "bad name", "\u212A_9")
    .map((username): SearchNode => ({ kind: "from", username })),
  fc.constantFrom(...LANGS, "pt-br", "ZH-TW", "de").map((code): SearchNode => ({ kind: "lang", code })),
  day.map((date): SearchNode => ({ kind: "since", date })),
  day.map((date): SearchNode => ({ kind: "until", date })),
  fc.nat({ max: 25 }).map((count): SearchNode => ({ kind: "min_faves", count })),
  fc.nat({ max: 25 }).map((count): SearchNode => ({ kind: "min_retweets", count })),
  fc.constantFrom(...FILTER_NAMES).map((filter): SearchNode => ({ kind: "filter", filter })),
  fc.constantFrom(...CONVERSATIONS, "1014", "424242").map((id): SearchNode => ({ kind: "conversation", id })),
  fc
    .constantFrom(...USERNAMES, "alice", "nobody", "bad name")
    .map((username): SearchNode => ({ kind: "to", username })),
  // Ids of the tweets (1000 + 7 × index), between them, and past 2^53.
  fc
    .constantFrom("999", "1000", "1014", "1017", "1100", "1800000000000000001")
    .chain((id) => fc.constantFrom<SearchNode>({ kind: "since_id", id }, { kind: "until_id", id })),
  fc.integer({ min: FIRST_DAY - DAY_MS, max: FIRST_DAY + (DAYS + 1) * DAY_MS }).chain((ms) => {
    const date = new Date(ms).toISOString();
    return fc.constantFrom<SearchNode>({ kind: "since", date }, { kind: "until", date });
  }),
);

// Not flattened or simplified on purpose: the compiler must cope with any well-typed tree.
const searchNode: fc.Arbitrary<SearchNode> = fc.letrec<{ node: SearchNode }>((tie) => ({
  node: fc.oneof(
    { maxDepth: 4, depthSize: "small", withCrossShrink: true },
    leaf,
    tie("node").map((child): SearchNode => ({ kind: "not", child })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((children): SearchNode => ({ kind: "and", children })),
    fc.array(tie("node"), { minLength: 2, maxLength: 3 }).map((children): SearchNode => ({ kind: "or", children })),
  ),
})).node;

const queryWord = fc.constantFrom(
  ...WORDS,
  ...TAGS,
  "#ai",
  "$tsla",
  "from:bob",
  "from:ALICE",
  "lang:en",
  "lang:pt-br",
  "filter:links",
  "filter:replies",
  "is:retweet",
  "is:quote",
  "is:reply",
  "is:verified",
  "has:media",
  "has:hashtags",
  "has:mentions",
  "has:links",
  "conversation_id:1007",
  "to:bob",
  "to:CAROL_1",
  "since_id:1014",
  "until_id:1021",
  "since:2025-01-03T12:00:00Z",
  "min_faves:5",
  "min_retweets:10",
  "since:2025-01-03",
  "until:2025-01-04",
  '"ai bun"',
  '"café ai"',
  "OR",
  "(",
  ")",
  "-",
);
const queryText = fc
  .array(fc.tuple(fc.boolean(), queryWord), { minLength: 1, maxLength: 6 })
  .map((parts) => parts.map(([negated, word]) => (negated ? `-${word}` : word)).join(" "));

function parsed(text: string): SearchNode | undefined {
  try {
    return parseQuery(text);
  } catch (error) {
    if (error instanceof SearchSyntaxError) return undefined;
    throw error;
  }
}

/** The oracle on both adapters; PostgreSQL's server is started by the suite and removed after it. */
export function searchConformance(runs: { asts: number; strings: number; xSizedIds: number }): void {
  let server: PostgresServer;
  let sql: SQL;
  beforeAll(async () => {
    server = await startPostgres();
    sql = await openPostgres(await server.createDatabase("search"));
  });
  afterAll(async () => {
    await sql?.close();
    server?.stop();
  });
  const adapters = [sqlite, postgresAdapter(() => sql)];

  describe.each(adapters)("searchTweets on $name agrees with the reference matcher", (adapter) => {
    test.each([
      { ids: SMALL_IDS, numRuns: runs.asts, what: "random tweets" },
      { ids: X_SIZED_IDS, numRuns: runs.xSizedIds, what: "tweets and users with X-sized ids, past 2^53" },
    ])(
      "random ASTs over $what, every page of both sort orders",
      async ({ ids, numRuns }) => {
        await fc.assert(
          fc.asyncProperty(
            fc.array(tweetSeed, { maxLength: 30 }),
            fc.array(searchNode, { minLength: 1, maxLength: 8 }),
            fc.integer({ min: 1, max: 4 }),
            fc.boolean(),
            (seeds, queries, size, timeOrdered) => checkQueries(adapter, seeds, queries, size, timeOrdered, ids),
          ),
          { numRuns },
        );
      },
      120_000,
    );

    test("random query strings through parseQuery", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(tweetSeed, { maxLength: 30 }),
          fc.array(queryText, { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 1, max: 4 }),
          fc.boolean(),
          async (seeds, texts, size, timeOrdered) => {
            const queries = texts.map(parsed).filter((query) => query !== undefined);
            await checkQueries(adapter, seeds, queries, size, timeOrdered);
          },
        ),
        { numRuns: runs.strings },
      );
    }, 120_000);

    test("FTS5, tsquery and SQL syntax in values is literal text", async () => {
      const hostile = [
        'a"b',
        '"',
        '""',
        "*",
        "ai*",
        "NEAR(ai bun)",
        "NEAR",
        "text:ai",
        "author : bob",
        "{text}:ai",
        "^ai",
        "(",
        ")",
        "\u0000",
        "ai\u0000bun",
        "' OR 1=1 --",
        "'); DROP TABLE tweets; --",
        "ai OR bun",
        "ai & bun",
        "!ai",
        "ai <-> bun",
        "ai:*",
        "'ai'",
        "a\\b",
        "ai AND bun",
        "NOT ai",
        "-ai",
        "+ai",
      ];
      const seeds: TweetSeed[] = [
        'a"b NEAR(ai bun) ^ai text:ai',
        "ai bun OR NOT ' OR 1=1 -- a\\b & !x <-> y",
        "plain ai bun",
        "{text}:ai author : bob",
        "nothing here",
      ].map(textSeed);
      const queries = hostile.flatMap((value): SearchNode[] => [
        { kind: "term", value },
        { kind: "phrase", value },
        { kind: "hashtag", value },
        { kind: "not", child: { kind: "phrase", value } },
        { kind: "from", username: value },
        { kind: "lang", code: value },
      ]);
      await checkQueries(adapter, seeds, queries, 2, false);
    });

    test("hostile values find the tweets holding their words, and run nothing", async () => {
      const texts = ['say "NEAR(ai bun)" now', "x' OR 1=1 -- y", "col:ai ^start (group)", "a\\b & !c"] as const;
      const tweets = texts.map((text, index) =>
        tweet({ ...textSeed(text, index), author: 0, createdMs: FIRST_DAY }, index),
      );
      const world = await adapter.load(tweets);
      try {
        const { store } = world;
        const found = async (query: SearchNode) =>
          (await store.searchTweets(query, "recency", { size: 10 })).items.map((item) => item.text);
        expect(await found({ kind: "phrase", value: "NEAR(ai bun)" })).toEqual([texts[0]]);
        expect(await found({ kind: "term", value: '"NEAR(ai bun)"' })).toEqual([texts[0]]);
        expect(await found({ kind: "phrase", value: "' OR 1=1 --" })).toEqual([texts[1]]);
        expect(await found({ kind: "phrase", value: "col:ai ^start (group" })).toEqual([texts[2]]);
        expect(await found({ kind: "phrase", value: "a\u0000b" })).toEqual([texts[3]]);
        expect(await found({ kind: "phrase", value: "a\\b & !c" })).toEqual([texts[3]]);
        expect(await found({ kind: "term", value: "*" })).toEqual([]);
        expect(
          await found({ kind: "not", child: { kind: "phrase", value: "'); DROP TABLE tweets; --" } }),
        ).toHaveLength(4);
        expect((await store.tweetsByIds(tweets.map((t) => t.id))).length).toBe(4);
      } finally {
        await world.close();
      }
    });

    test("relevancy ranks by the words alone, whatever else the query asks", async () => {
      // The tweets that hold the word twice are the oldest, so that newest first would put them last.
      const tweets = scoredTweets();
      const twice = tweets.slice(0, 2).map((t) => t.id);
      const world = await adapter.load(tweets);
      try {
        for (const text of ["ai", "lang:en ai", "from:Alice ai", "ai -filter:links", "(ai OR nothing) lang:en"]) {
          const { items } = await world.store.searchTweets(parseQuery(text), "relevancy", { size: 5 });
          expect(
            items
              .map((item) => item.id)
              .slice(0, 2)
              .sort(newestFirst),
            text,
          ).toEqual(twice.sort(newestFirst));
          expect(items, text).toHaveLength(5);
        }
      } finally {
        await world.close();
      }
    });

    test("relevancy puts equal scores newest first, on every page", async () => {
      // The two with `ai` twice tie, as do the three with it once.
      const tweets = scoredTweets();
      const ranked = [1, 0, 4, 3, 2].map((index) => (tweets[index] as Tweet).id);
      const world = await adapter.load(tweets);
      try {
        for (const text of ["ai", "lang:en ai -filter:links"]) {
          for (const size of [5, 2]) {
            expect(await allPages(world.store, parseQuery(text), "relevancy", size), `${text}, ${size}`).toEqual(
              ranked,
            );
          }
        }
      } finally {
        await world.close();
      }
    });
  });

  /**
   * Checks `texts` on PostgreSQL over 1,000 tweets, one every 500 s (139 hours): `fight place` in the
   * first 20, `bun cafe` or `ai text` in the others, each with `traits`. Returns the lexeme frequencies
   * of that world, which stays loaded: its statistics are the ones the searches went by.
   */
  async function checkedWithStatistics(traits: (index: number) => Partial<TweetSeed>, texts: readonly string[]) {
    const seeds = Array.from({ length: 1000 }, (_, index) => ({
      ...textSeed(index < 20 ? "fight place" : index % 3 === 0 ? "bun cafe" : "ai text", index),
      createdMs: FIRST_DAY + index * 500_000,
      ...traits(index),
    }));
    await checkQueries(
      postgresAdapter(() => sql),
      seeds,
      texts.map((text) => parseQuery(text)),
      7,
      true,
    );
    return new LexemeFrequencies(sql).current();
  }

  test("PostgreSQL asks the index for a rare negated word and leaves a common lang: to the rows, with the same answers", async () => {
    // 1,000 tweets over 139 hours: `fight` in 20, each with `place`, which no other holds (2%: rare);
    // three in five in English (common).
    const frequencyOf = await checkedWithStatistics(
      (index) => ({ lang: index % 5 < 3 ? "en" : "fr" }),
      ["fight -place", "lang:en fight", "lang:en -place", "ai -place lang:en", "lang:en lang:fr", "-place"],
    );
    const [english, place] = [lexemesOf(langLexeme("en"))[0] as string, "place"];
    expect(frequencyOf(place)).toBeLessThan(0.03);
    expect(frequencyOf(english)).toBeGreaterThan(0.5);
    const asked = (text: string) => {
      const match = compileSearch(parseQuery(text), frequencyOf)?.condition;
      if (match?.kind !== "match") throw new Error(`${text} compiles to ${JSON.stringify(match)}`);
      return match.index ?? match.query;
    };
    expect(asked("fight -place")).toContain("!('place')");
    expect(asked("lang:en fight")).not.toContain(english);
    expect(asked("lang:en lang:fr")).toContain(english);
  });

  test("PostgreSQL reads an OR of a word and counts by hours in each arm beside a common lang:, with the same answers", async () => {
    // 1,000 tweets over 139 hours, three in five in English (common), one in ten in French (rarer); `fight`
    // in 20, 30 likes on every 37th tweet and 12 retweets on every 41st.
    const frequencyOf = await checkedWithStatistics(
      (index) => ({
        lang: index % 10 < 6 ? "en" : index % 10 < 7 ? "fr" : "ja",
        likes: index % 37 === 0 ? 30 : 0,
        retweets: index % 41 === 0 ? 12 : 0,
      }),
      [
        "(fight OR min_faves:20) lang:en",
        "(fight OR min_faves:20 OR min_retweets:10) lang:en",
        "lang:en (min_faves:20 OR (fight -cafe))",
        "(fight OR min_faves:20) lang:fr",
      ],
    );
    const spans = "'time1h:10'";
    const read = (text: string) => {
      const condition = compileSearch(parseQuery(text), frequencyOf)?.condition as Condition;
      return JSON.stringify(withinHours(condition, 10, 10));
    };
    // Beside `lang:en` the spans go in every arm (the first with @@, the others with its synonym);
    // beside the rarer `lang:fr` they stay beside it.
    const inArms = JSON.parse(read("(fight OR min_faves:20 OR min_retweets:10) lang:en"));
    const or = inArms.children.find((child: Condition) => child.kind === "or");
    expect(or.children.map((arm: { children: Condition[] }) => arm.children.at(-1))).toEqual([
      { kind: "match", query: spans, narrow: true },
      { kind: "match", query: spans, narrow: true, synonym: true },
      { kind: "match", query: spans, narrow: true, synonym: true },
    ]);
    expect(JSON.parse(read("(fight OR min_faves:20) lang:fr")).children.at(-1)).toEqual({
      kind: "match",
      query: spans,
      narrow: true,
    });
  });
}
