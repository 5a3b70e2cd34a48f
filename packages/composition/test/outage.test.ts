// Every method of every port a Backend hands out answers an outage of its database as ApiError
// service_unavailable, on both adapters. The methods are found by reflection over the ports as handed
// out, so a method added to a port, or a port added to the Backend, is called here too (and fails this
// test until it is given plausible arguments below).
//
// Each adapter's database goes away as it does in production (ADAPTERS). PostgreSQL: its server stopped
// under an open pool. SQLite: the database's handle closed under the ports (the process shutting down
// while requests are in flight), the one outage every method meets at once: another connection's lock
// stops only writes (WAL readers go on), each after the busy timeout, and store-sqlite's outage tests
// and apps/api's lock test hold one.
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Accounts,
  ApiError,
  BALANCE_REFUSAL,
  type IdempotencyRecords,
  type Ledger,
  type Monitors,
  parseQuery,
  type RequestLog,
  type Sessions,
  type Store,
  type UnchargedRequest,
  type WorldImport,
  type WorldRemoval,
} from "@social/core";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { type Backend, openBackend } from "../src/index.ts";

interface Ports {
  store: Store;
  ledger: Ledger;
  accounts: Accounts;
  idempotency: IdempotencyRecords;
  sessions: Sessions;
  monitors: Monitors;
  requestLog: RequestLog;
  worldImport: WorldImport;
  worldRemoval: WorldRemoval;
}

type Arguments<Port> = { [Method in keyof Port]?: Port[Method] extends (...args: infer A) => unknown ? A : never };

const page = { size: 20 };
const scope = { accountId: "acct_any", key: "k1" };
const answer = { status: 200, headers: {}, body: "{}" };
const entry: UnchargedRequest = {
  requestId: "r1",
  accountId: "acct_any",
  keyId: "key_any",
  endpoint: "get_user",
  call: "/v1/users/by/username/nobody",
  status: 404,
  errorCode: "not_found",
  message: "No such user.",
  durationMs: 1,
  createdAt: 1_000,
};

/** What each method that reads or writes the database is called with. */
const ARGUMENTS: { [Name in keyof Ports]: Arguments<Ports[Name]> } = {
  store: {
    tweetsByIds: [["1"]],
    usersByIds: [["1"]],
    userByUsername: ["ada"],
    usersByUsernames: [["ada"]],
    timeline: ["1", "tweets", page],
    graphUsers: ["1", "followers", page],
    graphIds: ["1", "following", page],
    relationship: ["ada", "bob"],
    quotes: ["1", page],
    retweeters: ["1", page],
    conversation: ["1", page],
    selfThread: ["1", 10],
    article: ["1"],
    listTweets: ["1", page],
    listMembers: ["1", page],
    listSubscribers: ["1", page],
    community: ["1"],
    searchCommunities: ["cats", page],
    communityMembers: ["1", page],
    communityModerators: ["1", page],
    communityTweets: ["1", "likes", "week", page],
    trends: ["1", 10],
    searchTweets: [parseQuery("cats"), "recency", page],
    countTweets: [parseQuery("cats"), { startMs: 0, endMs: 86_400_000, sizeMs: 3_600_000 }],
    clockMs: [],
    showcase: [],
  },
  ledger: {
    checkKey: ["0".repeat(64)],
    balance: ["acct_any"],
    debit: ["acct_any", { requestId: "r1", keyId: "key_any", endpoint: "get_user", credits: 1 }],
    refund: ["acct_any", "r1"],
  },
  accounts: {
    account: ["acct_any"],
    openAccount: ["Bob"],
    accountForIdentity: ["https://id.example", "bob", "Bob"],
    grantCredits: ["acct_any", 5],
    createKey: ["acct_any", "second"],
    key: ["key_any"],
    listKeys: ["acct_any"],
    updateKey: ["key_any", { name: "renamed" }],
    revokeKey: ["key_any"],
    dailyUsage: ["acct_any", 30],
    usageSummary: ["acct_any", { from: 0, to: 1, groupBy: "key" }],
    recentRequests: ["acct_any", 10],
    requestLog: ["acct_any", { since: 0, status: "all", limit: 10 }],
    countRefused: ["acct_any", BALANCE_REFUSAL, 0, 10],
    grants: ["acct_any", 10],
    lastTopUp: ["acct_any"],
    setLowBalanceWarning: ["acct_any", 10],
    secret: ["session_secret"],
  },
  idempotency: {
    reserve: [scope, "fingerprint", "r1", 1_000],
    complete: [scope, "r1", answer, 1_000],
    release: [scope, "r1"],
  },
  sessions: {
    createSession: ["s1", { accountId: "acct_any", csrfToken: "t" }, 2_000, 1_000],
    findSession: ["s1", 1_000],
    deleteSession: ["s1"],
    saveSignIn: ["a1", { state: "s", nonce: "n", codeVerifier: "v" }, 2_000, 1_000],
    takeSignIn: ["a1", 1_000],
  },
  monitors: {
    create: [
      {
        id: "mon_0000000000000001",
        accountId: "acct_any",
        keyId: "key_any",
        query: "cats",
        delivery: { type: "pull" },
        secret: "whsec_any",
        now: 1_000,
      },
      100,
    ],
    list: ["acct_any"],
    get: ["acct_any", "mon_0000000000000001"],
    update: ["acct_any", "mon_0000000000000001", { name: "renamed" }, 1_000],
    remove: ["acct_any", "mon_0000000000000001"],
    activeQueries: [],
    queriesVersion: [],
    arrivals: [10],
    recordMatches: [[{ seq: 1, tweetId: "1" }], [{ monitorId: "mon_0000000000000001", tweetId: "1" }], 1_000],
    matches: ["mon_0000000000000001", 0, 10],
    resolveStaleCharge: ["mon_0000000000000001", 1_000],
    pendingCharge: ["mon_0000000000000001"],
    beginCharge: [
      "mon_0000000000000001",
      { requestId: "mon_0000000000000001_1_1", afterSeq: 0, throughSeq: 1, credits: 1, day: 0, at: 1_000 },
    ],
    settleCharge: ["mon_0000000000000001", "mon_0000000000000001_1_1", true],
    setHold: ["mon_0000000000000001", { reason: "daily_cap", message: "Cap reached.", since: 1_000 }],
    claimWebhooks: ["worker", 1_000, 30_000, 10],
    recordBatch: ["mon_0000000000000001", "worker", 1],
    finishWebhook: ["mon_0000000000000001", "worker", { outcome: "delivered" }],
    purgeMatches: [1_000, 100],
  },
  requestLog: {
    purge: [1_000],
  },
  worldImport: {
    lookUp: [["1"], ["ada"]],
    write: [{ users: [], tweets: [] }],
    followPosition: ["/var/feed.jsonl"],
    finish: [],
  },
  worldRemoval: {
    remove: ["tweets", ["1"]],
  },
};

/** The methods that answer without the database, why, and what they are called with: they must not fail. */
const NO_DATABASE: Record<string, { why: string; args: unknown[] }> = {
  "requestLog.append": { why: "queues the entry in memory, off the request's path", args: [entry] },
  "requestLog.flush": {
    why: "an entry the database refuses is retried, then reported lost, never thrown: its answer was already sent",
    args: [],
  },
};

/**
 * The Backend's members that are no port, and why: this test calls the ports they give or lead to, and
 * fails on a new member until it is named here or found to be a port.
 */
const NOT_PORTS: Record<string, string> = {
  kind: "the adapter's name",
  secret: "the accounts port's secret, called as accounts.secret",
  hasWorld: "asked at start, before anything is served: the operator reads the database's own error",
  buildWorld: "run at start or by the operator's CLI, which reads the database's own error",
  worldImport: "gives the worldImport port, called below",
  worldRemoval: "gives the worldRemoval port, called below",
  close: "closes the database",
};

/** Every port the Backend hands out, by name: its port-valued members and what its port factories give. */
function portsOf(backend: Backend): Record<string, object> {
  const ports: Record<string, object> = {
    worldImport: backend.worldImport(),
    worldRemoval: backend.worldRemoval(),
  };
  for (const [name, member] of Object.entries(backend)) {
    if (typeof member === "object" && member !== null) ports[name] = member;
    else if (!(name in NOT_PORTS)) throw new Error(`Backend.${name}: a port, or say in NOT_PORTS why it is none`);
  }
  return ports;
}

/** What calling `method` gave: its value, or what it threw or rejected with. */
async function outcome(call: () => unknown): Promise<{ value: unknown } | { error: unknown }> {
  try {
    return { value: await call() };
  } catch (error) {
    return { error };
  }
}

/** The names of `port`'s methods: its own and its classes', whatever object or class it is. */
function methodNames(port: object): string[] {
  const names = new Set<string>();
  for (let level: object | null = port; level !== null && level !== Object.prototype; ) {
    for (const name of Object.getOwnPropertyNames(level)) {
      if (name !== "constructor" && typeof (port as Record<string, unknown>)[name] === "function") names.add(name);
    }
    level = Object.getPrototypeOf(level);
  }
  return [...names];
}

/** Calls every method of every port with the database out; resolves to how each one answered. */
async function answersDuringOutage(ports: Record<string, object>): Promise<Record<string, string>> {
  const answers: Record<string, string> = {};
  for (const [portName, port] of Object.entries(ports)) {
    const methods = methodNames(port);
    expect(methods.length).toBeGreaterThan(0);
    for (const methodName of methods) {
      const name = `${portName}.${methodName}`;
      const quiet = NO_DATABASE[name];
      const args = quiet?.args ?? (ARGUMENTS[portName as keyof Ports] as Record<string, unknown[]>)[methodName];
      if (args === undefined) throw new Error(`${name}: give it plausible arguments in ARGUMENTS`);
      const method = (port as Record<string, (...args: unknown[]) => unknown>)[methodName];
      const result = await outcome(() => method?.apply(port, args));
      if (quiet) answers[name] = "error" in result ? `failed: ${String(result.error)}` : "answered";
      else if ("value" in result) answers[name] = "answered during the outage";
      else if (!(result.error instanceof ApiError)) answers[name] = `threw ${String(result.error)}`;
      else answers[name] = `${result.error.code} ${result.error.status} ${result.error.message}`;
    }
  }
  return answers;
}

function expectAllUnavailable(answers: Record<string, string>): void {
  const expected = Object.fromEntries(
    Object.keys(answers).map((name) => [
      name,
      name in NO_DATABASE
        ? "answered"
        : "service_unavailable 503 The service is temporarily unavailable: retry in a few seconds",
    ]),
  );
  expect(answers).toEqual(expected);
  // Every method of every port was called: a port that lost its methods would pass unseen otherwise.
  for (const [portName, args] of Object.entries(ARGUMENTS)) {
    for (const methodName of Object.keys(args)) expect(answers).toHaveProperty([`${portName}.${methodName}`]);
  }
}

let dir: string;
let postgres: PostgresServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "backend-outage-"));
  postgres = await startPostgres();
});
afterAll(() => {
  postgres.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Adapter {
  name: string;
  /** How its database goes away, as it does in production. */
  outage: string;
  open(): Promise<Backend>;
  /** Makes the database unavailable under `backend`'s ports. */
  takeAway(backend: Backend): Promise<void>;
  /** Closes what is left once the test is done. */
  close(backend: Backend): Promise<void>;
}

const ADAPTERS: Adapter[] = [
  {
    name: "SQLite",
    outage: "the handle closed under the ports",
    open: () => openBackend(`file:${join(dir, "social.db")}`),
    takeAway: (backend) => backend.close(),
    close: async () => {},
  },
  {
    name: "PostgreSQL",
    outage: "the server stopped under the pool",
    open: async () => openBackend(await postgres.createDatabase("outage"), { max: 2 }),
    takeAway: async () => postgres.kill(),
    close: (backend) => backend.close(),
  },
];

test.each(ADAPTERS)(
  "$name, $outage: every method of every port answers service_unavailable",
  async (adapter) => {
    const backend = await adapter.open();
    const ports = portsOf(backend);
    await adapter.takeAway(backend);
    const logged = spyOn(console, "error").mockImplementation(() => {});
    try {
      expectAllUnavailable(await answersDuringOutage(ports));
    } finally {
      await adapter.close(backend);
      logged.mockRestore();
    }
  },
  30_000,
);
