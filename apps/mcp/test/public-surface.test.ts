// The MCP tool list an agent sees (names, descriptions, input and output schemas, annotations) and the
// server's instructions, committed as test/snapshots/tools.json: a change to the catalogue shows in
// review as a diff of that file, and this fails until it is accepted with `npm run snapshots`.
import { expect, it } from "bun:test";
import { join } from "node:path";
import { snapshotDifference } from "@social/testing";
import { httpConnector, openTestWorld } from "./harness.ts";

const SNAPSHOT = join(import.meta.dir, "snapshots/tools.json");

it("tools/list and the instructions are the committed snapshot of the public surface", async () => {
  const world = openTestWorld();
  const connection = await httpConnector(world)({ key: world.account().key });
  try {
    const { tools } = await connection.client.listTools();
    const instructions = connection.client.getInstructions();
    const text = `${JSON.stringify({ instructions, tools }, null, 2)}\n`;
    expect(snapshotDifference(SNAPSHOT, text)).toBeUndefined();
  } finally {
    await connection.close();
    world.close();
  }
});
