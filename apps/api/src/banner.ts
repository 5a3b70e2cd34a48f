// What `bun run start` says once it serves: where, and how to make a first call.
import { describeDatabase, describeRedis, type ServerConfig } from "@social/composition";

/** `processes`: the worker pids when several serve the port. */
export function banner(config: ServerConfig, url: string, processes: readonly number[] = [process.pid]): string {
  const base = config.publicUrl.endsWith(`:${config.port}`) ? url : config.publicUrl;
  const served = processes.length > 1 ? ` by ${processes.length} worker processes (pids ${processes.join(", ")})` : "";
  const rateLimits = config.redisUrl
    ? `shared in ${describeRedis(config.redisUrl)} (while it cannot be reached, each process counts its own share)`
    : processes.length > 1
      ? "counted by each worker for its share of the limit (set REDIS_URL to share them)"
      : "counted in this process";
  return `Social Data API listening on ${url}${served}
  docs:        ${base}/docs
  openapi:     ${base}/openapi.json
  demo:        ${base}/demo
  dashboard:   ${base}/dashboard
  mcp:         ${base}/mcp
  database:    ${describeDatabase(config.databaseUrl)}
  rate limits: ${rateLimits}
Create an API key with:  npm run admin -- keys create --name me   (or: bun run admin keys create --name me)
Then:  curl -H "Authorization: Bearer <key>" ${base}/v1/users/by-username/<username>`;
}
