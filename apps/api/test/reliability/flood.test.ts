// The attack of a free flood: the most expensive searches a client can send (negations and numeric
// filters that no index serves, phrases and negations of the commonest words, relevancy over them),
// from 32 connections at once, half of them with a key whose account has no credits. Meanwhile another
// customer's lookups must all be answered (their p99 is printed; how fast they stay is measured by
// `bun run bench`, not here, since a test must pass on a machine of any speed), every flood answer must
// be bounded (200, 400 over budget, 402, never a 5xx), and the ledger must match what clients were told.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { examples } from "@social/fixtures";
import { readAnswer } from "./answer.ts";
import { EXPENSIVE_SEARCHES as EXPENSIVE } from "./expensive-searches.ts";
import { auditLedger } from "./ledger-audit.ts";
import { type LoadAccount, openAccounts, quantile } from "./load.ts";
import { type ServerProcess, spawnServer, worldCopy } from "./server-process.ts";

const FLOOD_CONNECTIONS = 32;
const LOOKUPS = 300;

async function lookupLatencies(url: string, key: string): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < LOOKUPS; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/v1/tweets/${examples.tweet_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    expect(response.status).toBe(200);
  }
  return latencies;
}

describe("a flood of the most expensive searches", () => {
  const world = worldCopy();
  let server: ServerProcess;
  let victim: LoadAccount;
  let payer: LoadAccount;
  let broke: LoadAccount;

  beforeAll(async () => {
    [victim, payer, broke] = openAccounts(world.databasePath, [10_000, 1_000_000, 0]) as [
      LoadAccount,
      LoadAccount,
      LoadAccount,
    ];
    server = await spawnServer(world.databasePath);
  });
  afterAll(async () => {
    await server?.stop();
    world.remove();
  });

  it("leaves another key's lookups answered, every flood answer bounded and billed exactly", async () => {
    const quiet = await lookupLatencies(server.url, victim.key);

    const statuses = new Map<number, number>();
    const charges = {
      [payer.accountId]: [] as { requestId: string; charged: number }[],
      [broke.accountId]: [] as { requestId: string; charged: number }[],
    };
    const problems: string[] = [];
    let flooding = true;
    const flooder = async (index: number) => {
      const account = index % 2 === 0 ? payer : broke;
      for (let n = index; flooding; n += FLOOD_CONNECTIONS) {
        const query = EXPENSIVE[n % EXPENSIVE.length] as string;
        const order = n % 3 === 0 ? "relevancy" : "recency";
        const response = await fetch(
          `${server.url}/v1/search/recent?query=${encodeURIComponent(query)}&sort_order=${order}`,
          { headers: { authorization: `Bearer ${account.key}` } },
        );
        const answer = await readAnswer(response);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        problems.push(...answer.problems);
        charges[account.accountId]?.push({ requestId: answer.requestId, charged: answer.charged });
        if (account === broke) expect(answer.status).toBe(402);
      }
    };
    const flood = Array.from({ length: FLOOD_CONNECTIONS }, (_, index) => flooder(index));
    await Bun.sleep(200);
    const loaded = await lookupLatencies(server.url, victim.key);
    flooding = false;
    await Promise.all(flood);

    const quietP99 = quantile(quiet, 0.99);
    const loadedP99 = quantile(loaded, 0.99);
    console.error(
      `lookups p99: ${quietP99.toFixed(1)} ms quiet, ${loadedP99.toFixed(1)} ms under the flood (×${(loadedP99 / quietP99).toFixed(1)}); flood answers ${JSON.stringify(Object.fromEntries(statuses))}`,
    );
    expect(problems).toEqual([]);
    expect([...statuses.keys()].every((status) => [200, 400, 402].includes(status))).toBe(true);
    expect(statuses.get(402) ?? 0).toBeGreaterThan(0);
    const observed = [payer, broke].map((account) => ({
      accountId: account.accountId,
      charges: charges[account.accountId] ?? [],
    }));
    expect(auditLedger(world.databasePath, observed)).toEqual([]);
  }, 120_000);
});
