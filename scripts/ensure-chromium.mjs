#!/usr/bin/env node
// The browser tests drive Debian's Chromium (playwright-core never downloads a browser). `npm test`
// runs this first: when /usr/bin/chromium is missing it is installed from Debian's packages, which
// needs root (CI and the development machines run as root).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const CHROMIUM = "/usr/bin/chromium";

if (!existsSync(CHROMIUM)) {
  console.error("setup: installing Debian's chromium for the browser tests");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", "chromium"]]) {
    const result = spawnSync("apt-get", args, { stdio: ["ignore", 2, 2], env });
    if (result.status !== 0) {
      console.error(`setup: apt-get ${args.join(" ")} failed; install chromium (${CHROMIUM}) and run the tests again`);
      process.exit(1);
    }
  }
}
