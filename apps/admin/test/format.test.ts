// Table cells hold what users typed (key and account names): whatever they hold, the table prints only
// visible text, so no escape sequence reaches the operator's terminal.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatTable } from "../src/format.ts";

/** Every control character: C0, DEL and C1 (Unicode's Cc). */
const CONTROLS = /\p{Cc}/u;

describe("formatTable", () => {
  test("escapes C0, DEL and C1 control characters as \\xHH, and aligns on the escaped text", () => {
    const table = formatTable([
      ["NAME", "N"],
      ["\x1b[31mred\x1b[0m", "1"],
      ["a\tb\r\nc\x00d\x7fe\x9bf\x85g", "2"],
      ["plain é 😀", "3"],
    ]);
    const lines = table.split("\n");
    expect(lines.filter((line) => CONTROLS.test(line))).toEqual([]);
    expect(lines.map((line) => line.slice(0, -1).trimEnd())).toEqual([
      "NAME",
      "\\x1b[31mred\\x1b[0m",
      "a\\x09b\\x0d\\x0ac\\x00d\\x7fe\\x9bf\\x85g",
      "plain é 😀",
    ]);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
  });

  test("leaves every other character as it is", () => {
    const printable = Array.from({ length: 0x300 }, (_, code) => String.fromCharCode(code))
      .filter((char) => !CONTROLS.test(char))
      .join("");
    expect(formatTable([[printable]])).toBe(printable);
  });
});

describe("keys list", () => {
  const dir = mkdtempSync(join(tmpdir(), "admin-format-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function admin(...args: string[]): Promise<string> {
    const child = Bun.spawn([process.execPath, join(import.meta.dir, "../src/main.ts"), ...args], {
      env: { ...process.env, DATABASE_URL: `file:${join(dir, "social.db")}` },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(0);
    return stdout;
  }

  test("prints a key name with terminal escapes escaped", async () => {
    await admin("keys", "create", "--name", "\x1b[31mred\x1b]0;pwned\x07");
    const listed = await admin("keys", "list");
    expect(listed.split("\n").filter((line) => CONTROLS.test(line))).toEqual([]);
    expect(listed).toContain("\\x1b[31mred\\x1b]0;pwned\\x07");
  });
});
