#!/usr/bin/env node
// Entry point for the README commands on a machine that has only Node.js and npm: it installs the
// pinned Bun and Deno from the npm registry (toolchain/), installs the workspace with Bun, then runs
// Bun with the given arguments. Every later step runs under Bun, so this file stays tiny.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const toolchain = join(root, "toolchain");
const bin = join(toolchain, "node_modules", ".bin");
const bun = join(bin, "bun");

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function fail(message) {
  console.error(`setup: ${message}`);
  process.exit(1);
}

function newer(a, b) {
  return !existsSync(b) || statSync(a).mtimeMs > statSync(b).mtimeMs;
}

const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };

const pinned = JSON.parse(readFileSync(join(toolchain, "package.json"), "utf8")).dependencies.bun;
const installedVersion = existsSync(bun) ? spawnSync(bun, ["--version"], { encoding: "utf8" }).stdout?.trim() : "";
if (installedVersion !== pinned) {
  console.error(`setup: installing bun ${pinned} and deno from the npm registry into toolchain/`);
  // No lockfile: bun and deno are pinned exactly, and each pins its platform binary package exactly.
  // Install output goes to stderr so that a stdio protocol (the MCP server) never sees it on stdout.
  const args = ["install", "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error"];
  if (run("npm", args, { cwd: toolchain, stdio: ["ignore", 2, 2] }) !== 0) fail("npm install in toolchain/ failed");
}

// Reinstall the workspace only when the lockfile changed since the last install.
const stamp = join(root, "node_modules", ".installed");
if (newer(join(root, "bun.lock"), stamp)) {
  if (run(bun, ["install", "--frozen-lockfile"], { env, stdio: ["ignore", 2, 2] }) !== 0) fail("bun install failed");
  writeFileSync(stamp, new Date().toISOString());
}

process.exit(run(bun, process.argv.slice(2), { env }));
