// How an import and both adapters compare usernames.

/** How usernames are compared: ASCII letters folded, as both stores look them up. */
export function foldUsername(username: string): string {
  return username.toLowerCase();
}
