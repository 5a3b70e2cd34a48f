// A monitor's anchor: facts at least one of which every post its query matches must hold, written as
// keys that a post's own keys are compared with. It is what the percolator indexes a monitor under, and
// a query without one is refused (./query.ts), as X's filtered stream asks for a positive standalone
// operator. A key stands for exactly what the reference matcher (../search/match.ts) compares: a text
// token as tokenize() folds it, a username or language code lowercased, a conversation id as written.
import type { SearchDocument, SearchNode } from "../search/ast.ts";
import { searchedText } from "../search/match.ts";
import { tokenize } from "../search/text.ts";

/** One fact about a post, prefixed by what it is about: t: text token, f: author, r: replied-to user, … */
export type AnchorKey = string;

const textKey = (token: string): AnchorKey => `t:${token}`;
const authorKey = (username: string): AnchorKey => `f:${username.toLowerCase()}`;
const replyToKey = (username: string): AnchorKey => `r:${username.toLowerCase()}`;
const conversationKey = (id: string): AnchorKey => `c:${id}`;
const langKey = (code: string): AnchorKey => `l:${code.toLowerCase()}`;

/** Every key a post holds; `textTokens` is tokenize(doc.text). */
export function documentKeys(doc: SearchDocument, textTokens: readonly string[]): Set<AnchorKey> {
  const keys = new Set(textTokens.map(textKey));
  keys.add(authorKey(doc.authorUsername));
  if (doc.replyToUsername !== undefined) keys.add(replyToKey(doc.replyToUsername));
  keys.add(conversationKey(doc.conversationId));
  keys.add(langKey(doc.lang));
  return keys;
}

interface Anchor {
  keys: AnchorKey[];
  /** About how many posts in a stream hold one of the keys, as a share: the lower, the fewer candidates. */
  share: number;
}

/**
 * Keys such that every post `node` matches holds at least one of them, chosen to be held by few posts;
 * undefined when no such keys exist (a negation, a filter, min_faves: alone). An empty list means the
 * query matches nothing (a text value with no token, which only a hand-built query has).
 */
export function queryAnchor(node: SearchNode): readonly AnchorKey[] | undefined {
  return anchorOf(node)?.keys;
}

// Guesses at the share of posts holding a key, enough to order keys (no statistics are kept): a
// conversation and a user are rare, a language is common.
const SHARE = {
  conversation: 1e-6,
  user: 1e-5,
  tag: 1e-4,
  word: 1e-3,
  shortWord: 5e-3,
  tinyWord: 2e-2,
  commonWord: 5e-2,
  lang: 0.3,
};

function anchorOf(node: SearchNode): Anchor | undefined {
  switch (node.kind) {
    case "term":
    case "phrase":
    case "hashtag":
    case "cashtag":
      return rarestToken(tokenize(searchedText(node)));
    case "from":
      return { keys: [authorKey(node.username)], share: SHARE.user };
    case "to":
      return { keys: [replyToKey(node.username)], share: SHARE.user };
    case "conversation":
      return { keys: [conversationKey(node.id)], share: SHARE.conversation };
    case "lang":
      return { keys: [langKey(node.code)], share: SHARE.lang };
    case "and":
      return rarestOf(node.children);
    case "or":
      return unionOf(node.children);
    case "not":
      // Only a double negation, which the parser simplifies away, holds what its child holds.
      return node.child.kind === "not" ? anchorOf(node.child.child) : undefined;
    default:
      return undefined;
  }
}

/** All of them must match: any one's anchor will do, so the one fewest posts hold. */
function rarestOf(children: readonly SearchNode[]): Anchor | undefined {
  let best: Anchor | undefined;
  for (const child of children) {
    const anchor = anchorOf(child);
    if (anchor !== undefined && (best === undefined || anchor.share < best.share)) best = anchor;
  }
  return best;
}

/** One of them must match: each needs an anchor, and a post may hold any of theirs. */
function unionOf(children: readonly SearchNode[]): Anchor | undefined {
  const keys = new Set<AnchorKey>();
  let share = 0;
  for (const child of children) {
    const anchor = anchorOf(child);
    if (anchor === undefined) return undefined;
    for (const key of anchor.keys) keys.add(key);
    share += anchor.share;
  }
  return { keys: [...keys], share };
}

/** A text is in a post only where each of its tokens is, so its rarest token is enough. */
function rarestToken(tokens: readonly string[]): Anchor {
  let best: Anchor = { keys: [], share: 0 };
  for (const token of tokens) {
    const share = tokenShare(token);
    if (best.keys.length === 0 || share < best.share) best = { keys: [textKey(token)], share };
  }
  return best;
}

// Words so frequent in posts that a monitor indexed under one is a candidate for a good share of them:
// English function words, the parts of a link and the most common words of Spanish, Portuguese, French
// and German.
const COMMON_WORDS = new Set(
  (
    "a about after all also am an and any are as at be because been but by can could did do does don for " +
    "from get go going good got had has have he her him his how i if im in is it its just know like me more " +
    "my new no not now of on one only or our out people s so some t than that the their them then there " +
    "they this time to too up us was we were what when which who will with would you your " +
    "http https co www com amp rt " +
    "de la que el en y los las del se por un una con para es al lo como mas o pero sus le su " +
    "e do da em um uma os no na nao " +
    "et les des est pas pour qui dans ce il sur au du " +
    "der die und das ist ich nicht zu den mit von sie es ein eine auf"
  ).split(" "),
);

function tokenShare(token: string): number {
  if (token.startsWith("#") || token.startsWith("$")) return SHARE.tag;
  if (COMMON_WORDS.has(token)) return SHARE.commonWord;
  return token.length <= 2 ? SHARE.tinyWord : token.length === 3 ? SHARE.shortWord : SHARE.word;
}
