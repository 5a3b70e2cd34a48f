// The core must run on any runtime with web-standard APIs (Deno included), so its sources may import
// only valibot, its JSON Schema converter (plain JavaScript, no runtime APIs) and each other, and use
// no runtime-specific globals.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const srcDir = fileURLToPath(new URL("../src", import.meta.url));
const PACKAGES = new Set(["valibot", "@valibot/to-json-schema"]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((item) =>
    item.isDirectory() ? sources(join(dir, item.name)) : item.name.endsWith(".ts") ? [join(dir, item.name)] : [],
  );
}

describe("runtime purity of packages/core", () => {
  const files = sources(srcDir);

  it("finds the sources", () => assert.ok(files.length >= 10));

  it("imports only valibot, its converter and relative modules", () => {
    for (const file of files) {
      const code = readFileSync(file, "utf8");
      const imports = [
        ...code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/gm),
        ...code.matchAll(/^\s*import\s+["']([^"']+)["']/gm),
        ...code.matchAll(/\bimport\s*\(\s*["']([^"']+)["']/g),
      ].map((match) => match[1] as string);
      for (const specifier of imports) {
        assert.ok(
          PACKAGES.has(specifier) || specifier.startsWith("./") || specifier.startsWith("../"),
          `${file} imports ${specifier}`,
        );
      }
    }
  });

  it("uses no Bun, Deno, Node or process globals", () => {
    for (const file of files) {
      const code = readFileSync(file, "utf8").replace(/\/\/.*$/gm, "");
      assert.doesNotMatch(code, /\b(Bun|Deno|process|require|Buffer|__dirname)\b\s*[.(]/, file);
    }
  });
});
