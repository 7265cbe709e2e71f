/**
 * The console's stylesheet (served as `/console/assets/console.css`; the page's CSP allows no
 * inline styles).
 *
 * @module
 */
export const CONSOLE_CSS = `
:root { --fg:#1d2330; --muted:#5f6b7a; --line:#d9dee5; --bg:#f6f7f9; --card:#fff; --accent:#2357d9;
  --ok:#1c7c3c; --warn:#a55d00; --bad:#b3261e; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); }
header.top { display:flex; gap:24px; align-items:center; padding:10px 20px; background:#1d2330; color:#fff; }
header.top a { color:#dfe6f3; text-decoration:none; }
header.top .brand { font-weight:600; color:#fff; }
header.top nav { display:flex; gap:16px; }
header.top form.logout { margin-left:auto; }
header.top form.logout button { background:transparent; color:#dfe6f3; border-color:#4a5568; }
header.top nav a[aria-current=page] { color:#fff; border-bottom:2px solid #8fb0ff; }
main { padding: 16px 20px; max-width: 1200px; }
h1 { font-size: 20px; margin: 4px 0 12px; } h2 { font-size: 16px; margin: 18px 0 8px; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; background: var(--card); border:1px solid var(--line); }
th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align: top; }
th { background:#eef1f5; font-weight:600; font-size:12px; text-transform:uppercase; color:var(--muted); }
code, pre { font: 12px/1.4 ui-monospace, monospace; }
pre { background:#0f1521; color:#e6edf7; padding:10px; overflow:auto; border-radius:6px; max-height: 420px; }
.counts { display:flex; flex-wrap:wrap; gap:8px; margin-bottom:12px; }
.count { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:6px 10px; text-decoration:none; color:var(--fg); }
.count b { font-size:16px; margin-right:4px; }
.count.active { border-color: var(--accent); box-shadow: 0 0 0 1px var(--accent) inset; }
form.filters { display:flex; flex-wrap:wrap; gap:8px; align-items:end; margin-bottom:12px; }
form.filters label { display:flex; flex-direction:column; font-size:12px; color:var(--muted); }
input, select, button { font: inherit; padding:4px 8px; border:1px solid var(--line); border-radius:4px; background:#fff; }
button { cursor:pointer; }
button.primary { background: var(--accent); color:#fff; border-color: var(--accent); }
button.danger { background: #fff; color: var(--bad); border-color: var(--bad); }
.status { font-weight:600; } .status-sent { color:var(--ok); } .status-failed, .status-cancelled { color:var(--bad); } .status-expired { color:var(--muted, #888); }
.status-unknown_after_send { color:var(--warn); }
.card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 14px; margin: 10px 0; }
.actions { display:flex; gap:12px; flex-wrap:wrap; align-items:flex-start; }
.actions form { display:flex; flex-direction:column; gap:4px; max-width: 360px; }
.actions .what { font-size:12px; color:var(--muted); }
.notice { border-radius:6px; padding:10px 12px; margin: 10px 0; border:1px solid; }
.notice.error { background:#fdecea; border-color:#f1b0aa; color:#7a1710; }
.notice.info { background:#e8f0fe; border-color:#b6cbf7; }
.notice p { margin:4px 0 0; }
.muted { color: var(--muted); }
dl { display:grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0 0 8px; }
dt { color: var(--muted); } dd { margin: 0; }
.timeline { list-style:none; padding:0; margin:0; border-left:2px solid var(--line); }
.timeline li { padding: 4px 0 4px 12px; position:relative; }
.timeline li::before { content:""; position:absolute; left:-6px; top:10px; width:10px; height:10px; border-radius:50%; background: var(--line); }
.timeline li.failure::before { background: var(--warn); } .timeline li.sent::before { background: var(--ok); }
.transcript { display:flex; flex-direction:column; gap:8px; max-width: 860px; }
.turn { border:1px solid var(--line); border-radius:10px; background:#fff; padding:8px 10px; display:flex; flex-direction:column; gap:8px; }
.turn.open { border-style: dashed; }
.boundary { font-size:12px; color:var(--muted); display:flex; gap:8px; align-items:center; }
.boundary.end { border-top:1px dashed var(--line); padding-top:6px; }
.outcome { font-weight:600; } .outcome-completed { color: var(--ok); } .outcome-error, .outcome-aborted, .outcome-interrupted { color: var(--warn); }
.node { border-radius:8px; padding:8px 10px; background:#f3f5f8; }
.node.role-user { background:#e7efff; align-self:flex-end; max-width:80%; }
.node.role-assistant { background:#f0f7ee; }
.node.role-tool { background:#fbf6e9; font-family: ui-monospace, monospace; font-size:12px; }
.node.role-reasoning { background:#f4f0fb; font-style: italic; color:#4b3d6b; }
.node.role-error { background:#fdecea; color:#7a1710; }
.node .who { font-size:11px; text-transform:uppercase; color: var(--muted); letter-spacing: .04em; }
.node .text { white-space: pre-wrap; margin: 2px 0 4px; }
.node .chrome { display:flex; gap:8px; align-items:center; font-size:12px; color:var(--muted); }
.node .chrome button { padding:1px 8px; font-size:12px; }
.node .chrome form { margin:0; }
.pager { display:flex; gap:12px; align-items:center; margin: 8px 0; }
.empty { color: var(--muted); padding: 12px; }
`;
