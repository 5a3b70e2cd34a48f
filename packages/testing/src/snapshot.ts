// Committed snapshots of what the product shows and keeps (the OpenAPI document, the MCP tool list, what
// the stores answer and hold of the default world): a change shows reviewers its effect as a diff of
// these files, and a test fails until the new text is accepted with `npm run snapshots`.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

const UPDATE_COMMAND = "npm run snapshots";

/**
 * Why `text` is not the snapshot committed at `path` (undefined when it is). With UPDATE_SNAPSHOTS=1
 * the file is written instead, and it is.
 */
export function snapshotDifference(path: string, text: string): string | undefined {
  if (process.env.UPDATE_SNAPSHOTS === "1") {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    return undefined;
  }
  if (!existsSync(path)) return `${path} is missing: run \`${UPDATE_COMMAND}\` to write it`;
  const committed = readFileSync(path, "utf8");
  if (committed === text) return undefined;
  const now = text.split("\n");
  const before = committed.split("\n");
  const line = now.findIndex((each, index) => each !== before[index]);
  const at = line < 0 ? now.length : line;
  return `${path} is not what the code gives now, at line ${at + 1}: committed ${JSON.stringify(before[at])}, now ${JSON.stringify(now[at])}. Review the change, then run \`${UPDATE_COMMAND}\` to accept it`;
}
