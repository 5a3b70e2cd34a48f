// The shared demo: a profile with recent tweets, or a recent search, computed at most about once a
// minute and served to every visitor without a key. Nobody is charged; meta.credits says so with zeros.
import { type EndpointId, endpointsById, runRead, type Store, validateParams } from "@social/core";
import { examples } from "@social/fixtures";

export const DEMO_REFRESH_MS = 60_000;

type DemoRun = "profile" | "search";

const RUNS: Record<DemoRun, { endpoint: EndpointId; params: () => Record<string, unknown> }> = {
  profile: { endpoint: "profile_by_username", params: () => ({ username: examples.username }) },
  search: { endpoint: "search_recent", params: () => ({ query: examples.search_query }) },
};

interface Cached {
  data: unknown;
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
    const cached = this.#cache.get(run);
    if (cached && this.#now() - cached.computedAt < DEMO_REFRESH_MS) return cached.data;
    let pending = this.#pending.get(run);
    if (!pending) {
      pending = this.#compute(run).finally(() => this.#pending.delete(run));
      this.#pending.set(run, pending);
    }
    try {
      return (await pending).data;
    } catch (error) {
      // A failed refresh keeps serving the last good answer rather than failing every visitor.
      if (cached) return cached.data;
      throw error;
    }
  }

  async #compute(run: DemoRun): Promise<Cached> {
    const spec = RUNS[run];
    const endpoint = endpointsById.get(spec.endpoint);
    if (!endpoint) throw new Error(`demo endpoint ${spec.endpoint} is not in the catalogue`);
    const params = validateParams(endpoint, spec.params());
    const size = endpoint.pageSize?.(params) ?? 0;
    const result = await runRead(endpoint, this.#store, params, { size });
    const entry = { data: result.data, computedAt: this.#now() };
    this.#cache.set(run, entry);
    return entry;
  }
}

export function demoRun(value: string | null): DemoRun | undefined {
  if (value === null) return "profile";
  return value === "search" ? "search" : undefined;
}
