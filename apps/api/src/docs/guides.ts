// The parts of /docs that are not about one endpoint: the search operators, paging and the error
// codes, each rendered from core's own table so the page cannot drift from what the server does.
import { ERROR_GUIDE, ERROR_STATUS, type ErrorCode, SEARCH_OPERATORS } from "@social/core";
import { examples } from "@social/fixtures";
import { escapeHtml } from "../site/page.ts";

export function operatorsSection(): string {
  const rows = SEARCH_OPERATORS.map(
    (row) =>
      `<tr><th scope="row"><code>${escapeHtml(row.syntax)}</code></th><td>${escapeHtml(row.meaning)}</td><td><code class="operator-example">${escapeHtml(row.example(examples))}</code></td></tr>`,
  );
  return `<section id="operators" aria-labelledby="operators-title"><h2 id="operators-title">Search operators</h2>
<p>The <code>query</code> of the search endpoints (and of <code>/2/tweets/search/recent</code>). Combine any of them; send the query URL-encoded (curl's <code>--data-urlencode</code>, <code>URLSearchParams</code>, or Python's <code>params=</code> do it). Text with a colon goes in quotes.</p>
<table id="operator-table"><caption class="visually-hidden">Search operators</caption><thead><tr><th scope="col">Operator</th><th scope="col">Matches</th><th scope="col">Example query</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}

/** A loop over every page of a search, as a customer would write it. */
export function pagingLoop(baseUrl: string): string {
  return `const url = new URL(${JSON.stringify(`${baseUrl}/v1/search/recent`)});
url.searchParams.set("query", ${JSON.stringify(examples.search_query)});
const tweets = [];
for (;;) {
  const response = await fetch(url, { headers: { Authorization: \`Bearer \${process.env.API_KEY}\` } });
  const page = await response.json();
  if (!response.ok) throw new Error(page.error.message);
  tweets.push(...page.data);
  const next = page.meta.pagination?.next_token;
  if (!next) break;
  url.searchParams.set("next_token", next);
}
console.log(tweets.length, "tweets");`;
}

export function pagingSection(baseUrl: string): string {
  return `<section id="paging" aria-labelledby="paging-title"><h2 id="paging-title">Paging</h2>
<p>A read that returns a list answers one page. When more follow, the answer carries a token: on <code>/v1</code> in <code>meta.pagination.next_token</code>, on <code>/2</code> in <code>meta.next_token</code>. Send it back as <code>next_token</code> (on <code>/2</code> also as <code>pagination_token</code>) with the same other parameters for the next page; the last page has no token. Each page is charged on its own.</p>
<pre><code class="paging-loop">${escapeHtml(pagingLoop(baseUrl))}</code></pre>
<p>A token sent with other parameters than the request that returned it is refused with 400 <code>invalid_request</code>.</p></section>`;
}

export function errorsSection(): string {
  const rows = (Object.keys(ERROR_GUIDE) as ErrorCode[]).map((code) => {
    const guide = ERROR_GUIDE[code];
    return `<tr><th scope="row"><code>${code}</code></th><td class="number">${ERROR_STATUS[code]}</td><td>${escapeHtml(guide.meaning)}</td><td>${escapeHtml(guide.action)}</td><td>${escapeHtml(guide.retry)}</td></tr>`;
  });
  return `<section id="errors" aria-labelledby="errors-title"><h2 id="errors-title">Errors</h2>
<p>Every failure answers <code>{"error": {"code", "message", "request_id", "details"?, "help_url"?}}</code> with the status below, and is never charged. Quote the <code>request_id</code> when you ask about one.</p>
<table id="error-table"><caption class="visually-hidden">Error codes</caption><thead><tr><th scope="col">Code</th><th scope="col" class="number">Status</th><th scope="col">Meaning</th><th scope="col">What to do</th><th scope="col">Send again?</th></tr></thead><tbody>${rows.join("")}</tbody></table></section>`;
}
