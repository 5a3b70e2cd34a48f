// An import run: the lines of each source read into model objects (./lines.ts), gathered in batches of
// one transaction each, and written through the WorldImport port. A refused object is reported with its
// source and line and the rest goes on; a tweet whose author the run has not met yet waits for the end
// of the run, so users and tweets may come in separate files in any order. A strict run first reads a
// whole source to check it (every object, author and username), and imports nothing of a source that
// has a bad line. A followed source (followSource) has no end to wait for: see followed().

import type { BatchCounts, FollowPosition, WorldImport } from "../ports/world-import.ts";
import { mergeTweet, mergeUser, noOutcomes } from "./freshness.ts";
import { objectsOfLine } from "./lines.ts";
import { unresolvedMentions, withMentionIds } from "./mention-ids.ts";
import type { FollowedSource, ImportOptions, ImportReport, ImportSource, LineRefusal } from "./run-types.ts";
import { MAX_LISTED_REFUSALS } from "./run-types.ts";
import { foldUsername } from "./usernames.ts";
import { type ImportedTweet, type ImportedUser, Refusal } from "./x-objects.ts";

const BATCH_LINES = 1000;
const BATCH_OBJECTS = 5000;
/** Ids and usernames per lookup while a strict run checks a source. */
const LOOKUP_CHUNK = 10_000;
/**
 * Tweets kept for an author the run has not met yet, at most: a run that meets its users first (or in
 * the same lines) keeps none; past this the tweets are refused, to bound the memory a run takes.
 */
export const MAX_WAITING_TWEETS = 100_000;
/**
 * A followed run settles the world at most this often, and waits this many times its last settle's
 * length before the next: settling takes at most a fifth of the run's time however large the world.
 */
const MIN_SETTLE_GAP_MS = 1000;
const SETTLE_GAP_PER_SETTLE_MS = 4;

interface Placed<T> {
  copy: T;
  at: { source: string; line: number };
}

class Batch {
  readonly users = new Map<string, Placed<ImportedUser>>();
  readonly tweets = new Map<string, Placed<ImportedTweet>>();
  /** Tweets of a followed source whose author no line up to theirs (nor the run) had given. */
  readonly unmet = new Set<string>();
  lines = 0;
  position: FollowPosition | undefined;

  get objects(): number {
    return this.users.size + this.tweets.size;
  }

  /** A second copy of a user in the batch is merged into the first (./freshness.ts). */
  addUser(placed: Placed<ImportedUser>): void {
    const held = this.users.get(placed.copy.user.id);
    this.users.set(placed.copy.user.id, held ? { ...placed, copy: mergeUser(held.copy, placed.copy) } : placed);
  }

  addTweet(placed: Placed<ImportedTweet>): void {
    const held = this.tweets.get(placed.copy.tweet.id);
    this.tweets.set(placed.copy.tweet.id, held ? { ...placed, copy: mergeTweet(held.copy, placed.copy) } : placed);
  }
}

function add(into: BatchCounts, counts: BatchCounts): void {
  for (const kind of ["users", "tweets"] as const) {
    for (const outcome of ["added", "updated", "kept"] as const) into[kind][outcome] += counts[kind][outcome];
  }
}

class ImportRun {
  readonly #port: WorldImport;
  readonly #options: ImportOptions;
  /** Users the world holds or this run wrote, and users this run refused (with why). */
  readonly #known = new Set<string>();
  readonly #refusedUsers = new Map<string, string>();
  /** Tweets whose author has not been met yet, kept for the end of the run. */
  readonly #waiting = new Batch();
  readonly #counts: BatchCounts = { users: noOutcomes(), tweets: noOutcomes() };
  readonly #refusals: LineRefusal[] = [];
  readonly #abandoned: LineRefusal[] = [];
  #refused = 0;
  #missing = 0;
  #lines = 0;
  /** Following a source: tweets never wait for their author, and the world is settled as batches land. */
  #following = false;
  #unsettled = false;
  /** When the last settle of a followed run ended, and how long it took (performance.now(), ms). */
  #settledAt = Number.NEGATIVE_INFINITY;
  #settleMs = 0;

  constructor(port: WorldImport, options: ImportOptions) {
    this.#port = port;
    this.#options = options;
  }

  async source(source: ImportSource): Promise<void> {
    if (this.#options.strict) {
      const stop = await this.#check(source);
      if (stop !== undefined) {
        this.#abandoned.push(stop);
        return;
      }
    }
    let batch = new Batch();
    let line = 0;
    for await (const text of source.lines()) {
      line++;
      this.#lines++;
      this.#read(text, { source: source.name, line }, batch);
      if (
        batch.lines >= (this.#options.batchLines ?? BATCH_LINES) ||
        batch.objects >= (this.#options.batchObjects ?? BATCH_OBJECTS)
      ) {
        await this.#write(batch, false);
        this.#options.onProgress?.({ source: source.name, line, pass: "write" });
        batch = new Batch();
      }
    }
    await this.#write(batch, false);
    this.#options.onProgress?.({ source: source.name, line, pass: "write" });
  }

  /**
   * Imports a followed source's lines as they arrive: a batch is committed when full or when the source
   * says so, with the source's position in the same transaction, and the world (its clock, counts and
   * trends) is settled after it when due (#settleWhenDue); the posts are searchable once committed. A followed run never ends by itself, so a tweet cannot wait for
   * its end: one whose author is neither in the world nor given by its own or an earlier line is refused.
   */
  async followed(source: FollowedSource): Promise<void> {
    this.#following = true;
    let batch = new Batch();
    for await (const event of source.events()) {
      if (event === "idle") {
        await this.#settleWhenDue();
        continue;
      }
      if (event === "commit") {
        await this.#write(batch, false);
        batch = new Batch();
        await this.#settleWhenDue();
        continue;
      }
      this.#lines++;
      this.#read(event.text, { source: source.name, line: event.line }, batch);
      batch.position = event.position;
      if (
        batch.lines >= (this.#options.batchLines ?? BATCH_LINES) ||
        batch.objects >= (this.#options.batchObjects ?? BATCH_OBJECTS)
      ) {
        await this.#write(batch, false);
        batch = new Batch();
        await this.#settleWhenDue();
      }
    }
    await this.#write(batch, false);
  }

  /**
   * Settles the world after batches a followed run wrote, once the last settle is far enough behind:
   * settling reads the whole world, so on a large one it would otherwise take most of the run's time.
   */
  async #settleWhenDue(): Promise<void> {
    if (!this.#unsettled) return;
    const gap = Math.max(MIN_SETTLE_GAP_MS, SETTLE_GAP_PER_SETTLE_MS * this.#settleMs);
    if (performance.now() < this.#settledAt + gap) return;
    const started = performance.now();
    await this.#port.finish();
    this.#settledAt = performance.now();
    this.#settleMs = this.#settledAt - started;
    this.#unsettled = false;
  }

  async end(): Promise<ImportReport> {
    const waiting = [...this.#waiting.tweets.values()];
    const size = this.#options.batchObjects ?? BATCH_OBJECTS;
    for (let start = 0; start < waiting.length; start += size) {
      const batch = new Batch();
      for (const placed of waiting.slice(start, start + size)) batch.addTweet(placed);
      await this.#write(batch, true);
    }
    return {
      lines: this.#lines,
      users: this.#counts.users,
      tweets: this.#counts.tweets,
      refused: this.#refused,
      refusals: this.#refusals,
      missing: this.#missing,
      abandoned: this.#abandoned,
      world: await this.#port.finish(),
    };
  }

  #refuse(at: Placed<unknown>["at"], reason: string): void {
    this.#refused++;
    if (this.#refusals.length < MAX_LISTED_REFUSALS) this.#refusals.push({ ...at, reason });
  }

  #read(text: string, at: Placed<unknown>["at"], batch: Batch): void {
    batch.lines++;
    try {
      const objects = objectsOfLine(text, this.#options.format);
      for (const reason of objects.refusals) this.#refuse(at, reason);
      this.#missing += objects.missing;
      for (const copy of objects.users) batch.addUser({ copy, at });
      for (const copy of objects.tweets) {
        const author = copy.tweet.author_id;
        if (this.#following && !this.#known.has(author) && !batch.users.has(author)) batch.unmet.add(copy.tweet.id);
        batch.addTweet({ copy, at });
      }
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      this.#refuse(at, error.reason);
    }
  }

  /**
   * Writes `batch`: its users whose username is free (or theirs), its tweets whose author is known. A
   * tweet whose author is not waits for the end of the run; at the end (`last`) it is refused.
   */
  async #write(batch: Batch, last: boolean): Promise<void> {
    const users = [...batch.users.values()];
    const unknownAuthors = new Set<string>();
    for (const { copy } of batch.tweets.values()) {
      const author = copy.tweet.author_id;
      if (!this.#known.has(author) && (!batch.users.has(author) || batch.unmet.has(copy.tweet.id)))
        unknownAuthors.add(author);
    }
    if (users.length === 0 && batch.tweets.size === 0 && batch.position === undefined) return;
    const unresolved = unresolvedMentions([...batch.tweets.values()].map(({ copy }) => copy.tweet));
    const found = await this.#port.lookUp(
      [...unknownAuthors],
      [...users.map(({ copy }) => copy.user.username), ...unresolved],
    );
    for (const id of found.users) this.#known.add(id);
    const writable: ImportedUser[] = [];
    const claimed = new Map<string, string>();
    for (const { copy, at } of users) {
      const { id, username } = copy.user;
      const key = foldUsername(username);
      const holder = found.usernames.get(key) ?? claimed.get(key);
      if (holder !== undefined && holder !== id) {
        const reason = `user ${id}'s username @${username} belongs to user ${holder}`;
        this.#refusedUsers.set(id, reason);
        this.#refuse(at, reason);
        continue;
      }
      claimed.set(key, id);
      writable.push(copy);
    }
    const authors = new Set(writable.map((copy) => copy.user.id));
    const mentionedIds = (username: string) =>
      claimed.get(foldUsername(username)) ?? found.usernames.get(foldUsername(username));
    const tweets: ImportedTweet[] = [];
    for (const entry of batch.tweets.values()) {
      const placed = unresolved.length === 0 ? entry : { ...entry, copy: withMentionIds(entry.copy, mentionedIds) };
      const author = placed.copy.tweet.author_id;
      if (this.#known.has(author) || (authors.has(author) && !batch.unmet.has(placed.copy.tweet.id))) {
        tweets.push(placed.copy);
        continue;
      }
      const refusedAuthor = this.#refusedUsers.get(author);
      if (refusedAuthor !== undefined)
        this.#refuse(placed.at, `tweet ${placed.copy.tweet.id}'s author was refused: ${refusedAuthor}`);
      else if (last)
        this.#refuse(
          placed.at,
          `tweet ${placed.copy.tweet.id}'s author, user ${author}, is in neither the import nor the world`,
        );
      else if (this.#following)
        this.#refuse(
          placed.at,
          `tweet ${placed.copy.tweet.id}'s author, user ${author}, is in neither the world nor this line or an earlier one (a followed import does not wait for authors)`,
        );
      else if (this.#waiting.tweets.size < MAX_WAITING_TWEETS || this.#waiting.tweets.has(placed.copy.tweet.id))
        this.#waiting.addTweet(placed);
      else
        this.#refuse(
          placed.at,
          `tweet ${placed.copy.tweet.id}'s author, user ${author}, was not met within ${MAX_WAITING_TWEETS.toLocaleString("en-US")} tweets (import users first)`,
        );
    }
    if (writable.length > 0 || tweets.length > 0 || batch.position !== undefined) {
      const position = batch.position === undefined ? {} : { position: batch.position };
      add(this.#counts, await this.#port.write({ users: writable, tweets, ...position }));
      this.#unsettled = true;
    }
    for (const id of authors) this.#known.add(id);
  }

  /** A strict run's first pass over `source`: the line that stops it, or undefined when all of it can be imported. */
  async #check(source: ImportSource): Promise<LineRefusal | undefined> {
    const users = new Map<string, { key: string; username: string; at: LineRefusal }>();
    const usernames = new Map<string, string>();
    const authors = new Map<string, LineRefusal>();
    let line = 0;
    for await (const text of source.lines()) {
      line++;
      const at = { source: source.name, line, reason: "" };
      let objects: ReturnType<typeof objectsOfLine>;
      try {
        objects = objectsOfLine(text, this.#options.format);
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        return { ...at, reason: error.reason };
      }
      if (objects.refusals[0] !== undefined) return { ...at, reason: objects.refusals[0] };
      for (const { user } of objects.users) {
        const key = foldUsername(user.username);
        const holder = usernames.get(key);
        if (holder !== undefined && holder !== user.id) {
          return { ...at, reason: `user ${user.id}'s username @${user.username} belongs to user ${holder}` };
        }
        usernames.set(key, user.id);
        if (!users.has(user.id)) users.set(user.id, { key, username: user.username, at });
      }
      for (const { tweet } of objects.tweets) {
        if (!users.has(tweet.author_id) && !authors.has(tweet.author_id)) {
          authors.set(tweet.author_id, {
            ...at,
            reason: `tweet ${tweet.id}'s author, user ${tweet.author_id}, is in neither the import nor the world`,
          });
        }
      }
      if (line % (this.#options.batchLines ?? BATCH_LINES) === 0) {
        this.#options.onProgress?.({ source: source.name, line, pass: "check" });
      }
    }
    const missing = [...authors].filter(([id]) => !users.has(id) && !this.#known.has(id));
    const named = [...users];
    const stops: LineRefusal[] = [];
    for (let start = 0; start < Math.max(missing.length, named.length); start += LOOKUP_CHUNK) {
      const ids = missing.slice(start, start + LOOKUP_CHUNK);
      const names = named.slice(start, start + LOOKUP_CHUNK);
      const found = await this.#port.lookUp(
        ids.map(([id]) => id),
        names.map(([, { username }]) => username),
      );
      for (const [id, at] of ids) if (!found.users.has(id)) stops.push(at);
      for (const [id, { key, username, at }] of names) {
        const holder = found.usernames.get(key);
        if (holder !== undefined && holder !== id) {
          stops.push({ ...at, reason: `user ${id}'s username @${username} belongs to user ${holder}` });
        }
      }
    }
    return stops.sort((a, b) => a.line - b.line)[0];
  }
}

/** Imports every source, in order, and reports what it did. */
export async function importSources(
  sources: readonly ImportSource[],
  port: WorldImport,
  options: ImportOptions,
): Promise<ImportReport> {
  const run = new ImportRun(port, options);
  for (const source of sources) await run.source(source);
  return run.end();
}

/** Imports a followed source until its events end (the operator stopped it, or standard input closed). */
export async function followSource(
  source: FollowedSource,
  port: WorldImport,
  options: ImportOptions,
): Promise<ImportReport> {
  const run = new ImportRun(port, options);
  await run.followed(source);
  return run.end();
}
