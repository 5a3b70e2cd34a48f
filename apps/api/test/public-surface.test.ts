// The OpenAPI document /openapi.json serves, committed as test/snapshots/openapi.json: a change to the
// catalogue, a schema or a message shows in review as a diff of that file, and this fails until the
// change is accepted with `npm run snapshots`.
import { expect, it } from "bun:test";
import { join } from "node:path";
import { snapshotDifference } from "@social/testing";
import { startTestServer } from "./harness.ts";

const SNAPSHOT = join(import.meta.dir, "snapshots/openapi.json");

it("/openapi.json is the committed snapshot of the public surface", async () => {
  const server = await startTestServer();
  try {
    const document = await (await server.get("/openapi.json")).json();
    // Links name the server's own address: the snapshot names the default one.
    const text = JSON.stringify(document, null, 2).replaceAll(server.url, "http://127.0.0.1:3000");
    expect(snapshotDifference(SNAPSHOT, `${text}\n`)).toBeUndefined();
  } finally {
    await server.close();
  }
});
