// Mentions given by username alone get their user's id once it is known: from the same batch's users
// (./importer.ts), or, in the stores' import plan, when a user that stored posts name arrives.
import type { Tweet } from "../model.ts";
import type { ImportedTweet } from "./x-objects.ts";

/** The usernames that `tweets` mention without an id, for the world to be asked whose they are. */
export function unresolvedMentions(tweets: readonly Tweet[]): string[] {
  const names = new Set<string>();
  for (const tweet of tweets) {
    for (const mention of tweet.entities.mentions) if (mention.id === undefined) names.add(mention.username);
  }
  return [...names];
}

/**
 * `copy` with the ids `idOf` knows given to its mentions that had none: here for a batch's own users,
 * and in the stores' import plan for stored posts once a user they name arrives.
 */
export function withMentionIds(copy: ImportedTweet, idOf: (username: string) => string | undefined): ImportedTweet {
  const { tweet } = copy;
  if (tweet.entities.mentions.every((mention) => mention.id !== undefined)) return copy;
  const mentions = tweet.entities.mentions.map((mention) => {
    const id = mention.id ?? idOf(mention.username);
    return id === undefined ? mention : { ...mention, id };
  });
  return { ...copy, tweet: { ...tweet, entities: { ...tweet.entities, mentions } } };
}
