// The published decisions: their Markdown is the one subset the /docs page renders (code spans), and
// their numbers are the constants that enforce them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  DEFAULT_RATE_LIMIT,
  DEFAULT_SEARCH_LIMITS,
  decisionsMarkdown,
  MAX_IDS,
  openPointDecisions,
  PAGE_SIZE,
} from "../src/index.ts";

const decisions = openPointDecisions({ maxUrlLength: 8192, maxBodyBytes: 16 * 1024 });

function decision(topic: string): string {
  const found = decisions.find((item) => item.topic === topic);
  assert.ok(found, topic);
  return found.text;
}

describe("openPointDecisions", () => {
  it("use no Markdown but code spans, and every code span is closed", () => {
    for (const { topic, text } of decisions) {
      for (const part of [topic, text]) {
        assert.equal(part.split("`").length % 2, 1, part);
        assert.doesNotMatch(part.replace(/`[^`]*`/g, ""), /[*_[\]<>]/, part);
      }
    }
  });

  it("quote the constants that enforce them", () => {
    assert.match(decision("Page sizes"), new RegExp(`pages of ${PAGE_SIZE};`));
    assert.match(decision("ids lists (`/v1/users`, `/v1/tweets`)"), new RegExp(`^1 to ${MAX_IDS} ids;`));
    assert.match(
      decision("Rate limits"),
      new RegExp(`${DEFAULT_RATE_LIMIT.ratePerSecond} requests per second, bursts of ${DEFAULT_RATE_LIMIT.burst}`),
    );
    assert.match(decision("Bounded searches"), new RegExp(`spend ${DEFAULT_SEARCH_LIMITS.budgetMs} ms`));
    assert.match(decision("Oversized requests"), /over 8,192 characters .* over 16 KiB/);
    assert.match(decision('"1 per 50 items" rounds up'), /1–50 items cost 2 credits, 51–100 cost 3; .* base 1\./);
  });

  it("render as one Markdown list item each", () => {
    const lines = decisionsMarkdown(decisions).split("\n");
    assert.equal(lines.length, decisions.length);
    assert.equal(lines[0], `- **${decisions[0]?.topic}:** ${decisions[0]?.text}`);
  });
});
