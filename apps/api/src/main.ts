// `bun run start`: serve the API on HOST:PORT over DATABASE_URL until SIGTERM or SIGINT.
import { maxHeaderSize } from "node:http";
import { describeDatabase } from "@social/backend";
import { configFromEnv } from "./config.ts";
import { MAX_HEADER_BYTES, SERVER_RUNTIME_FLAGS, startServer } from "./server.ts";

if (maxHeaderSize < MAX_HEADER_BYTES) {
  console.error(
    `Warning: Bun reads at most ${maxHeaderSize} bytes of request headers, so longer URLs get its bare 431 instead of the API's 400: start with ${SERVER_RUNTIME_FLAGS.join(" ")} (npm start does)`,
  );
}

/** A configuration or database that cannot serve is one line for the operator, not a stack trace. */
async function start() {
  try {
    const config = configFromEnv(process.env);
    const server = await startServer(config, {
      onWorldBuild: () => console.error("First start: building the default fixture world (a few seconds)…"),
    });
    return { config, server };
  } catch (error) {
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

const { config, server } = await start();
const base = config.publicUrl.endsWith(`:${config.port}`) ? server.url : config.publicUrl;
console.error(`Social Data API listening on ${server.url}
  docs:      ${base}/docs
  openapi:   ${base}/openapi.json
  demo:      ${base}/demo
  dashboard: ${base}/dashboard
  mcp:       ${base}/mcp
  database:  ${describeDatabase(config.databaseUrl)}
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
