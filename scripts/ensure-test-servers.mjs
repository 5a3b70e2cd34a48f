#!/usr/bin/env node
// The servers the tests run against are real ones from Debian's packages: Chromium for the browser
// tests (playwright-core never downloads a browser), PostgreSQL for the second database adapter, and
// redis-server for the rate limits workers share; and tweepy, the Python X client, run by Debian's own
// python3 against /2.
// `npm test` runs this first and installs what is missing, which needs root (CI and the development
// machines run as root). The tests start and stop their own instances.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const NEEDED = [
  { what: "chromium", present: () => existsSync("/usr/bin/chromium"), packages: ["chromium"] },
  { what: "PostgreSQL", present: () => existsSync("/usr/lib/postgresql"), packages: ["postgresql"] },
  { what: "Redis", present: () => existsSync("/usr/bin/redis-server"), packages: ["redis-server"] },
  {
    what: "tweepy",
    present: () => spawnSync("/usr/bin/python3", ["-c", "import tweepy"], { stdio: "ignore" }).status === 0,
    packages: ["python3-tweepy"],
  },
];

const missing = NEEDED.filter((server) => !server.present());
if (missing.length > 0) {
  console.error(`setup: installing Debian's ${missing.map((server) => server.what).join(" and ")} for the tests`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", ...missing.flatMap((s) => s.packages)]]) {
    const result = spawnSync("apt-get", args, { stdio: ["ignore", 2, 2], env });
    if (result.status !== 0) {
      console.error(
        `setup: apt-get ${args.join(" ")} failed; install ${missing.map((s) => s.packages).join(", ")} and run the tests again`,
      );
      process.exit(1);
    }
  }
}
