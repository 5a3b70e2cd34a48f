// `bun run start`: serve the API on HOST:PORT over DATABASE_URL until SIGTERM or SIGINT.
import { configFromEnv } from "./config.ts";
import { startServer } from "./server.ts";

const config = configFromEnv(process.env);
const server = await startServer(config, {
  onWorldBuild: () => console.error("First start: building the default fixture world (a few seconds)…"),
});
const base = config.publicUrl.endsWith(`:${config.port}`) ? server.url : config.publicUrl;
console.error(`Social Data API listening on ${server.url}
  docs:      ${base}/docs
  openapi:   ${base}/openapi.json
  demo:      ${base}/demo
  dashboard: ${base}/dashboard
  mcp:       ${base}/mcp
  database:  ${config.databaseUrl}
Create an API key with:  npm run admin -- keys create --name me   (or: bun run admin keys create --name me)
Then:  curl -H "Authorization: Bearer <key>" ${base}/v1/users/by-username/<username>`);

let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    console.error(`${signal}: finishing in-flight requests…`);
    await server.stop();
    process.exit(0);
  });
}
