// The one stylesheet, served by the app so the pages need no build step and no outside host.
export const STYLESHEET = `
:root { color-scheme: light dark; --text: #1a1d21; --page: #ffffff; --accent: #1d5fd1; --muted: #5b6470;
  --line: #d0d5dc; }
/* Every colour is set in both schemes: the browser's own defaults would leave text its dark-mode canvas hides. */
@media (prefers-color-scheme: dark) { :root { --text: #e8eaed; --page: #15181d; --accent: #8ab4ff; --muted: #a9b1bc;
  --line: #3a414b; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--text); background: var(--page); }
header { display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center; justify-content: space-between;
  padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
nav a[aria-current="page"] { font-weight: 700; text-decoration: none; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
main.wide { max-width: none; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--page); padding: .5rem; }
.balance { font-size: 2.5rem; font-weight: 700; margin: 0; }
.muted { color: var(--muted); }
form.inline { display: inline; }
.sign-out { display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
label { display: block; font-weight: 600; margin-bottom: .25rem; }
input[type="text"], input[type="url"], input[type="number"], input[type="date"], select { font: inherit; color: var(--text); background: var(--page); padding: .5rem; width: 100%; max-width: 24rem; border: 1px solid var(--muted); border-radius: 4px; }
button, .button { font: inherit; padding: .45rem .9rem; border-radius: 4px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--page); cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: transparent; color: var(--accent); }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.filters { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: flex-end; }
.filters .field { margin: .5rem 0; flex: 1 1 12rem; }
.filters button { margin: .5rem 0; }
.field { margin: 1rem 0; }
fieldset.field { border: 1px solid var(--line); border-radius: 4px; padding: .5rem 1rem; }
legend { font-weight: 600; }
label.choice { font-weight: 400; }
.notice { border: 2px solid var(--accent); border-radius: 6px; padding: 1rem; margin: 1rem 0; }
.error { border-color: #c62828; }
.warning { border-color: #b26a00; }
.notice p { margin: 0; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
code, .key { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
h1 { overflow-wrap: anywhere; }
.key { font-size: 1.1rem; padding: .5rem; border: 1px dashed var(--muted); display: block; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .6rem; border-bottom: 1px solid var(--line); }
#request-log td { white-space: nowrap; }
.url { overflow-wrap: anywhere; }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
.chart { width: 100%; height: auto; max-height: 16rem; }
.chart rect { fill: var(--accent); }
.chart text { fill: var(--muted); font-size: 20px; }
.chart .value { fill: var(--text); font-size: 16px; }
.chart line { stroke: var(--line); }
.chart line.peak { stroke-dasharray: 4 4; }
.plans { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: 1rem; }
.plans section { border: 1px solid var(--line); border-radius: 6px; padding: 0 1rem 1rem; }
.price { font-size: 1.5rem; font-weight: 700; margin: .5rem 0 0; }
.key-field { font: 1rem ui-monospace, monospace; width: 100%; padding: .5rem; color: var(--text); background: var(--page);
  border: 1px dashed var(--muted); }
.notice:focus { outline: 3px solid var(--accent); }
dl.detail { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.detail dt { font-weight: 600; }
dl.detail dd { margin: 0; }
`;
