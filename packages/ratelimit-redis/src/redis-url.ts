// REDIS_URL is checked at start like DATABASE_URL: a scheme Bun's client does not speak is a
// configuration mistake to report then, not a limiter that silently never shares.

const SCHEMES = ["redis:", "rediss:"];

/** The URL unchanged when Bun's Redis client can use it; otherwise an Error saying what is wrong. */
export function checkedRedisUrl(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || !SCHEMES.includes(parsed.protocol) || parsed.hostname === "") {
    throw new Error("REDIS_URL must be a redis:// or rediss:// URL with a host, e.g. redis://127.0.0.1:6379");
  }
  return url;
}

/** Where the Redis is, for logs: scheme, host and port, never the password. */
export function describeRedis(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
