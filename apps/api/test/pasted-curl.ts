// What a page's example does when a customer pastes it: the text of a `<code>` block as the browser shows
// it, and the request a curl line of it sends, read the way the shell and curl read it.
import { expect } from "bun:test";

/** The text of HTML that escapes with numeric references only, as the pages do. */
export function htmlText(text: string): string {
  return text.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

/** A shell word in single or double quotes, as the curl lines write them. */
function shellWord(word: string): string {
  if (word.startsWith("'")) return word.slice(1, -1).replaceAll(`'\\''`, "'");
  return word.slice(1, -1);
}

/** The request a curl line sends with `$API_KEY` set to `key`: -G puts each --data-urlencode into the query. */
export function curlRequest(command: string, key: string): { url: URL; headers: Headers } {
  const words = command.replaceAll("\\\n", " ").match(/'(?:[^']|'\\'')*'|"[^"]*"|\S+/g) ?? [];
  expect(words[0]).toBe("curl");
  const headers = new Headers();
  let url: URL | undefined;
  const query: [string, string][] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i] as string;
    if (word === "-G") continue;
    if (word === "-H") {
      const header = shellWord(words[++i] as string).replace("$API_KEY", key);
      const colon = header.indexOf(":");
      headers.set(header.slice(0, colon), header.slice(colon + 1).trim());
    } else if (word === "--data-urlencode") {
      const pair = shellWord(words[++i] as string);
      const equals = pair.indexOf("=");
      query.push([pair.slice(0, equals), pair.slice(equals + 1)]);
    } else {
      url = new URL(shellWord(word));
    }
  }
  if (!url) throw new Error(`no URL in ${command}`);
  for (const [name, value] of query) url.searchParams.append(name, value);
  return { url, headers };
}
