#!/usr/bin/env node
// What `npm test` and `npm run bench` need from Debian's packages, installed when missing.
// - tests: the servers the tests run against are real ones: Chromium for the browser tests
//   (playwright-core never downloads a browser), PostgreSQL for the second database adapter, and
//   redis-server for the rate limits workers share; and tweepy, the Python X client, run by Debian's own
//   python3 against /2. The tests start and stop their own instances.
// - bench: PostgreSQL for its column, and wrk, the load generator of the pinned HTTP figures.
// Installing needs root (CI and the development machines run as root).
//
//   node scripts/ensure-debian-packages.mjs tests|bench
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const POSTGRESQL = { what: "PostgreSQL", present: () => existsSync("/usr/lib/postgresql"), packages: ["postgresql"] };
const FOR = {
  tests: [
    { what: "chromium", present: () => existsSync("/usr/bin/chromium"), packages: ["chromium"] },
    POSTGRESQL,
    { what: "Redis", present: () => existsSync("/usr/bin/redis-server"), packages: ["redis-server"] },
    {
      what: "tweepy",
      present: () => spawnSync("/usr/bin/python3", ["-c", "import tweepy"], { stdio: "ignore" }).status === 0,
      packages: ["python3-tweepy"],
    },
  ],
  bench: [POSTGRESQL, { what: "wrk", present: () => existsSync("/usr/bin/wrk"), packages: ["wrk"] }],
};

const purpose = process.argv[2];
const NEEDED = FOR[purpose];
if (NEEDED === undefined) {
  console.error(`usage: node scripts/ensure-debian-packages.mjs ${Object.keys(FOR).join("|")}`);
  process.exit(2);
}

const missing = NEEDED.filter((server) => !server.present());
if (missing.length > 0) {
  console.error(`setup: installing Debian's ${missing.map((server) => server.what).join(" and ")} for the ${purpose}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [["update"], ["install", "-y", ...missing.flatMap((s) => s.packages)]]) {
    const result = spawnSync("apt-get", args, { stdio: ["ignore", 2, 2], env });
    if (result.status !== 0) {
      console.error(
        `setup: apt-get ${args.join(" ")} failed; install ${missing.map((s) => s.packages).join(", ")} and run the ${purpose} again`,
      );
      process.exit(1);
    }
  }
}
