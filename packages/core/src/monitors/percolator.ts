// Which monitors' queries match a post, without testing every monitor: each monitor is indexed under the
// keys of its anchor (./anchor.ts), a post looks up its own keys, and only the monitors found there are
// tested with the reference matcher. Since every post a query matches holds a key of its anchor, the
// answer is exactly that of testing every monitor.
import type { SearchDocument, SearchNode } from "../search/ast.ts";
import { matches } from "../search/match.ts";
import { tokenize } from "../search/text.ts";
import { type AnchorKey, documentKeys, queryAnchor } from "./anchor.ts";

export interface MonitorQuery {
  id: string;
  query: SearchNode;
}

export class Percolator {
  private readonly monitors: readonly MonitorQuery[];
  /** Positions in `monitors` by anchor key. */
  private readonly byKey = new Map<AnchorKey, number[]>();
  /** Monitors whose query has no anchor (./query.ts refuses them): candidates for every post. */
  private readonly unanchored: number[] = [];

  constructor(monitors: readonly MonitorQuery[]) {
    this.monitors = [...monitors];
    this.monitors.forEach((monitor, position) => {
      const keys = queryAnchor(monitor.query);
      if (keys === undefined) {
        this.unanchored.push(position);
        return;
      }
      for (const key of keys) {
        const positions = this.byKey.get(key);
        if (positions === undefined) this.byKey.set(key, [position]);
        else positions.push(position);
      }
    });
  }

  /** The monitors `doc` may match, each once, in the order they were given: those worth testing. */
  candidates(doc: SearchDocument): MonitorQuery[] {
    return this.candidatesFor(doc, tokenize(doc.text));
  }

  /** The ids of the monitors whose query matches `doc`, in the order they were given. */
  match(doc: SearchDocument): string[] {
    const textTokens = tokenize(doc.text);
    return this.candidatesFor(doc, textTokens)
      .filter((monitor) => matches(monitor.query, doc, textTokens))
      .map((monitor) => monitor.id);
  }

  private candidatesFor(doc: SearchDocument, textTokens: readonly string[]): MonitorQuery[] {
    const positions = new Set(this.unanchored);
    for (const key of documentKeys(doc, textTokens)) {
      for (const position of this.byKey.get(key) ?? []) positions.add(position);
    }
    return [...positions].sort((a, b) => a - b).map((position) => this.monitors[position] as MonitorQuery);
  }
}
