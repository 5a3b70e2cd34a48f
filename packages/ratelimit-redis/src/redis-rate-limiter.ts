// Token buckets shared by every process through Redis or Valkey (Bun's built-in client, no driver).
// A rate-limit store outage must never become a 5xx nor a free-for-all: while Redis cannot answer,
// each take falls back to the process's own buckets (holding its share of the limit), one warning a
// minute says so, and the shared buckets are used again as soon as Redis answers.
import { type RateLimitConfig, type RateLimiter, type RateState, rateState } from "@social/core";
import { RedisClient } from "bun";
import { redisRefusal } from "./redis-refusal.ts";
import { describeRedis } from "./redis-url.ts";
import { TOKEN_BUCKET_SCRIPT } from "./token-bucket.ts";

export interface RedisRateLimiterOptions {
  url: string;
  /** The limit each key has in total, across every process. */
  config: RateLimitConfig;
  /** Who counts while Redis cannot: this process's share of the limit. */
  fallback: RateLimiter;
  /** Where the outage warning (at most one a minute) and the recovery notice go. */
  warn: (message: string) => void;
  /** Keys of the buckets start with this, so that one Redis can serve several deployments. */
  prefix?: string;
  /** How long a take waits for Redis before counting locally: a hung server must not hang requests. */
  timeoutMs?: number;
  /** How long after a failure takes go straight to the fallback before Redis is tried again. */
  retryAfterMs?: number;
  /** The clock of the retry window and the warnings; tests move it. */
  now?: () => number;
}

const WARNING_INTERVAL_MS = 60_000;
const START_WAIT_MS = 2_000;

export class RedisRateLimiter implements RateLimiter {
  readonly #client: RedisClient;
  readonly #options: Required<RedisRateLimiterOptions>;
  readonly #scriptSha: string;
  /** Until when (ms) takes skip Redis after a failure. */
  #outUntil = 0;
  /** Whether the outage under way was warned about, so that its end is announced. */
  #warned = false;
  #lastWarningAt = Number.NEGATIVE_INFINITY;

  private constructor(options: RedisRateLimiterOptions) {
    this.#options = { prefix: "social-api:rate:", timeoutMs: 100, retryAfterMs: 1_000, now: Date.now, ...options };
    this.#scriptSha = new Bun.CryptoHasher("sha1").update(TOKEN_BUCKET_SCRIPT).digest("hex");
    // Without the offline queue a command fails at once while the connection is down, instead of
    // waiting for it; the client reconnects by itself meanwhile.
    this.#client = new RedisClient(options.url, {
      enableOfflineQueue: false,
      autoReconnect: true,
      maxRetries: 2 ** 32 - 1,
      connectionTimeout: 2_000,
    });
  }

  /**
   * Connects now so that a Redis that is down at start is reported at start. Serving waits for it at
   * most START_WAIT_MS: the client keeps retrying in the background, and connect() only settles once
   * it succeeds. A Redis that answers but refuses the credentials is a configuration mistake: it
   * rejects, naming REDIS_URL, and the process does not start.
   */
  static async open(options: RedisRateLimiterOptions): Promise<RedisRateLimiter> {
    const limiter = new RedisRateLimiter(options);
    const connected = limiter.#client.connect().then(
      () => undefined,
      (error: unknown) => error,
    );
    const waited = Bun.sleep(START_WAIT_MS).then(() => new Error(`no connection within ${START_WAIT_MS} ms`));
    const failure = await Promise.race([connected, waited]);
    if (failure === undefined) return limiter;
    const refusal = await redisRefusal(options.url);
    if (refusal !== undefined) {
      limiter.close();
      throw new Error(
        `Redis at ${describeRedis(options.url)} refuses the user name and password in REDIS_URL (${refusal})`,
      );
    }
    limiter.#failed(failure);
    return limiter;
  }

  async take(key: string): Promise<RateState> {
    const { config, fallback } = this.#options;
    const now = this.#options.now();
    if (config.ratePerSecond <= 0) return rateState(config, true, config.burst, now);
    if (now < this.#outUntil) return fallback.take(key);
    try {
      const state = await this.#takeShared(key);
      if (this.#warned) this.#recovered();
      return state;
    } catch (error) {
      this.#failed(error);
      return fallback.take(key);
    }
  }

  close(): void {
    this.#client.close();
  }

  async #takeShared(key: string): Promise<RateState> {
    const { config, prefix, timeoutMs } = this.#options;
    const args = ["1", `${prefix}${key}`, String(config.ratePerSecond), String(config.burst)];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const reply = await Promise.race([this.#evaluate(args), timeout]);
      if (!Array.isArray(reply) || reply.length !== 3) throw new Error("unexpected reply to the bucket script");
      const [allowed, tokens, nowMs] = reply;
      return rateState(config, allowed === 1, Number(tokens), Number(nowMs));
    } finally {
      clearTimeout(timer);
    }
  }

  /** EVALSHA, and EVAL when the server does not know the script yet (a new or restarted Redis). */
  async #evaluate(args: string[]): Promise<unknown> {
    try {
      return await this.#client.send("EVALSHA", [this.#scriptSha, ...args]);
    } catch (error) {
      if (!String(error).includes("NOSCRIPT")) throw error;
      return this.#client.send("EVAL", [TOKEN_BUCKET_SCRIPT, ...args]);
    }
  }

  #failed(error: unknown): void {
    const now = this.#options.now();
    this.#outUntil = now + this.#options.retryAfterMs;
    // Again every minute while it lasts, so an outage longer than the log's window is still seen.
    if (now - this.#lastWarningAt < WARNING_INTERVAL_MS) return;
    this.#lastWarningAt = now;
    this.#warned = true;
    const reason = error instanceof Error ? error.message : String(error);
    this.#options.warn(
      `Redis at ${describeRedis(this.#options.url)} cannot count rate limits (${reason}): each process counts its own share of the limit until Redis can be reached`,
    );
  }

  #recovered(): void {
    this.#warned = false;
    this.#options.warn(`Redis at ${describeRedis(this.#options.url)} is back: rate limits are shared again`);
  }
}
