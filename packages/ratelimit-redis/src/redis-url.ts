// Where the Redis is, as logs and the start-up banner may show it.

/** Scheme, host and port, never the password. */
export function describeRedis(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}`;
}
