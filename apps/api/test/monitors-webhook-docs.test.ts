// docs/webhooks.md's signature checks, run as a receiver would run them: its JavaScript by Bun and its
// Python by Debian's python3, each given a body signed by the server's own signing function. Both
// accept it, and refuse it with another secret, a changed body or a time outside the window.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signWebhook } from "@social/core";
import { runProcess } from "@social/testing";

const PYTHON = "/usr/bin/python3";
const GUIDE = readFileSync(join(import.meta.dir, "../../../docs/webhooks.md"), "utf8");
const SECRET = "whsec_0123456789abcdefghijABCDEFGHIJ01";
const BODY =
  '{"monitor_id":"mon_0123456789abcdef","delivery_id":"dlv_mon_0123456789abcdef_1_1","cursor":1,"tweets":[]}';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "webhook-docs-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function block(language: string): string {
  const fence = "```";
  const found = new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`).exec(GUIDE)?.[1];
  if (!found) throw new Error(`docs/webhooks.md has no ${language} block`);
  return found;
}

/** Each case: the secret and body the snippet is given, the header, and whether it should accept. */
async function cases() {
  const now = Math.floor(Date.now() / 1000);
  const signed = await signWebhook(SECRET, BODY, now);
  return [
    { secret: SECRET, body: BODY, header: signed, accepts: true },
    { secret: `${SECRET}x`, body: BODY, header: signed, accepts: false },
    { secret: SECRET, body: `${BODY} `, header: signed, accepts: false },
    { secret: SECRET, body: BODY, header: await signWebhook(SECRET, BODY, now - 3600), accepts: false },
    { secret: SECRET, body: BODY, header: "t=1,v1=zz", accepts: false },
  ];
}

async function run(argv: string[], file: string, program: string, input: unknown): Promise<boolean[]> {
  writeFileSync(join(dir, file), program);
  writeFileSync(join(dir, "cases.json"), JSON.stringify(input));
  const { code, stdout, stderr } = await runProcess([...argv, join(dir, file)], { cwd: dir });
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(stdout) as boolean[];
}

describe("docs/webhooks.md's signature checks", () => {
  test("the JavaScript accepts what the server signs, and nothing else", async () => {
    const input = await cases();
    const program = `${block("javascript")}
import { readFileSync } from "node:fs";
const cases = JSON.parse(readFileSync("cases.json", "utf8"));
console.log(JSON.stringify(cases.map((c) => verifySignature(c.secret, c.header, c.body))));
`;
    expect(await run([process.execPath], "verify.mjs", program, input)).toEqual(input.map((c) => c.accepts));
  });

  test("the Python accepts what the server signs, and nothing else", async () => {
    const input = await cases();
    const program = `${block("python")}
import json
cases = json.load(open("cases.json"))
print(json.dumps([verify_signature(c["secret"], c["header"], c["body"].encode()) for c in cases]))
`;
    const shown = await run([PYTHON], "verify.py", program, input);
    expect(shown).toEqual(input.map((c) => c.accepts));
  });
});
