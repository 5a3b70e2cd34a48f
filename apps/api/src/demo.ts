// The shared demo: a profile with recent tweets, or a recent search, computed at most about once a
// minute and served to every visitor without a key. Nobody is charged; meta.credits says so with zeros.
// What it shows is the world's: the generated world's examples, or an imported world's showcase.
import { type EndpointId, endpointsById, notFound, type Store } from "@social/core";
import { examples } from "@social/fixtures";
import { type ExampleAnswer, exampleRead } from "./site/example-read.ts";

export const DEMO_REFRESH_MS = 60_000;

export type DemoRun = "profile" | "search";

interface Shown {
  username: string;
  query: string;
}

const RUNS: Record<DemoRun, { endpoint: EndpointId; params: (shown: Shown) => Record<string, unknown> }> = {
  profile: { endpoint: "profile_by_username", params: ({ username }) => ({ username }) },
  search: { endpoint: "search_recent", params: ({ query }) => ({ query }) },
};

/** The generated world's examples, or what an import chose (see Store.showcase). */
async function shown(store: Store): Promise<Shown> {
  const showcase = await store.showcase();
  if (showcase.kind === "examples") return { username: examples.username, query: examples.search_query };
  if (showcase.kind === "imported") return showcase;
  throw notFound("The demo has nothing to show yet: this server's world holds no public posts.");
}

interface Cached {
  answer: ExampleAnswer;
  computedAt: number;
}

export class Demo {
  readonly #store: Store;
  readonly #now: () => number;
  readonly #cache = new Map<DemoRun, Cached>();
  readonly #pending = new Map<DemoRun, Promise<Cached>>();

  constructor(store: Store, now: () => number = Date.now) {
    this.#store = store;
    this.#now = now;
  }

  /** The shared data for a run; recomputed by one caller when older than a minute, never concurrently. */
  async data(run: DemoRun): Promise<unknown> {
    return (await this.answer(run)).data;
  }

  /** The shared answer for a run: what ran, its data, and what it would have cost with a key. */
  async answer(run: DemoRun): Promise<ExampleAnswer> {
    const cached = this.#cache.get(run);
    if (cached && this.#now() - cached.computedAt < DEMO_REFRESH_MS) return cached.answer;
    let pending = this.#pending.get(run);
    if (!pending) {
      pending = this.#compute(run).finally(() => this.#pending.delete(run));
      this.#pending.set(run, pending);
    }
    try {
      return (await pending).answer;
    } catch (error) {
      // A failed refresh keeps serving the last good answer rather than failing every visitor.
      if (cached) return cached.answer;
      throw error;
    }
  }

  async #compute(run: DemoRun): Promise<Cached> {
    const spec = RUNS[run];
    const endpoint = endpointsById.get(spec.endpoint);
    if (!endpoint) throw new Error(`demo endpoint ${spec.endpoint} is not in the catalogue`);
    const answer = await exampleRead(endpoint, this.#store, spec.params(await shown(this.#store)));
    const entry = { answer, computedAt: this.#now() };
    this.#cache.set(run, entry);
    return entry;
  }
}

export function demoRun(value: string | null): DemoRun | undefined {
  if (value === null) return "profile";
  return value === "search" ? "search" : undefined;
}
