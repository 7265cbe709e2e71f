/**
 * The QA platform's web chat page: one conversation, a composer whose messages become inbound
 * events for bots, and bot messages shown live — new, edited in place (a streamed preview),
 * deleted, and a typing indicator. Plain HTML and a small module script, no build step; every
 * text is set with `textContent`.
 *
 * DOM contract (used by the browser test and the `herald demo` docs): each message is
 * `.msg[data-id][data-author]` with class `bot` or `user`, its text in `.text`, and
 * `data-edits` counting the edits seen live; `#typing` shows who is typing. [H23]: files are
 * `.files a.file[data-file-id]` (images also `img`), buttons `.buttons button[data-action-id]`
 * (a click posts an `action.clicked` event), reactions `.reactions .reaction[data-emoji]`
 * (with the count; clicking toggles your own), a `.react` button adds 👍; an ephemeral message
 * is `.msg.ephemeral` ("only visible to you"); `#file` attaches a file to the next send.
 *
 * @module
 */

/** Renders the page. `defaultChat` is the chat shown without `?chat=`. */
export function webChatPage(options: { defaultChat: string }): string {
  const chat = JSON.stringify(options.defaultChat).replaceAll("<", "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>herald · QA chat</title>
<style>
  :root { font: 15px/1.45 system-ui, sans-serif; color-scheme: light dark; }
  body { margin: 0; display: flex; flex-direction: column; height: 100vh; }
  header { padding: .6rem 1rem; border-bottom: 1px solid #8884; font-weight: 600; }
  header small { font-weight: 400; opacity: .7; }
  #log { flex: 1; overflow-y: auto; padding: 1rem; display: flex; flex-direction: column; gap: .4rem; }
  .msg { max-width: 75%; padding: .4rem .7rem; border-radius: .8rem; white-space: pre-wrap; overflow-wrap: anywhere; }
  .msg.user { align-self: flex-end; background: #2b6cb0; color: #fff; }
  .msg.bot { align-self: flex-start; background: #8882; }
  .msg .author { display: block; font-size: .75rem; opacity: .7; }
  .msg .edited { font-size: .7rem; opacity: .6; margin-left: .4rem; }
  .msg.thread { margin-left: 2rem; border-left: 3px solid #8886; }
  #typing { padding: 0 1rem .3rem; font-size: .85rem; opacity: .7; min-height: 1.2rem; }
  form { display: flex; gap: .5rem; padding: .6rem 1rem; border-top: 1px solid #8884; }
  input { flex: 1; font: inherit; padding: .45rem .6rem; }
  button { font: inherit; padding: .45rem 1rem; }
  .msg .files img { display: block; max-width: 240px; max-height: 160px; margin-top: .3rem; border-radius: .4rem; }
  .msg .files a { display: block; margin-top: .2rem; }
  .msg .buttons { display: flex; gap: .4rem; margin-top: .4rem; flex-wrap: wrap; }
  .msg .buttons button { padding: .25rem .8rem; border-radius: .4rem; border: 1px solid #8886; cursor: pointer; }
  .msg .buttons button.primary { background: #2f855a; color: #fff; }
  .msg .buttons button.danger { background: #c53030; color: #fff; }
  .msg .reactions { display: flex; gap: .3rem; margin-top: .3rem; }
  .msg .reaction { font-size: .85rem; padding: 0 .4rem; border-radius: 1rem; border: 1px solid #8886; cursor: pointer; background: #fff2; }
  .msg .react { font-size: .75rem; padding: 0 .3rem; border: none; background: none; cursor: pointer; opacity: .6; }
  .msg.ephemeral { border: 1px dashed #8888; font-style: italic; }
  .msg.ephemeral::after { content: "only visible to you"; display: block; font-size: .7rem; opacity: .6; }
</style>
</head>
<body>
<header>herald QA chat <small id="chat-name"></small></header>
<main id="log" aria-live="polite"></main>
<div id="typing" role="status"></div>
<form id="composer">
  <input id="text" name="text" autocomplete="off" placeholder="Write a message…" aria-label="Message">
  <input id="file" type="file" aria-label="Attach a file" style="flex: 0 1 12rem">
  <button type="submit">Send</button>
</form>
<script type="module">
const params = new URLSearchParams(location.search);
const chat = params.get("chat") || ${chat};
const user = params.get("user") || "you";
const log = document.getElementById("log");
const typingLine = document.getElementById("typing");
const typing = new Map(); // user id -> timer
document.getElementById("chat-name").textContent = "· " + chat + " · you are " + user;

function element(id) {
  return log.querySelector('[data-id="' + CSS.escape(id) + '"]');
}

function show(m, live) {
  let el = element(m.id);
  if (m.deleted) { el?.remove(); return; }
  if (!el) {
    el = document.createElement("div");
    el.dataset.id = m.id;
    el.dataset.edits = "0";
    el.innerHTML = '<span class="author"></span><span class="text"></span><span class="edited" hidden>edited</span>';
    log.append(el);
  }
  el.className = "msg " + (m.author.is_bot ? "bot" : "user") + (m.thread_id ? " thread" : "");
  el.dataset.author = m.author.id;
  el.querySelector(".author").textContent = (m.author.name || m.author.id) + (m.thread_id ? " · in thread" : "");
  el.querySelector(".text").textContent = m.text;
  if (m.edited_at) el.querySelector(".edited").hidden = false;
  extras(el, m);
  if (live === "edited") el.dataset.edits = String(Number(el.dataset.edits) + 1);
  stopTyping(m.author.id);
  log.scrollTop = log.scrollHeight;
}

// Short names beside the glyph, for screens (and headless browsers) without an emoji font.
const EMOJI_NAMES = { "👀": "eyes", "✅": "done", "👍": "+1", "🎉": "tada", "❌": "x", "❤️": "heart" };
function part(el, cls) {
  let p = el.querySelector(":scope > ." + cls);
  if (!p) { p = document.createElement("div"); p.className = cls; el.append(p); }
  p.replaceChildren();
  return p;
}
function extras(el, m) {
  const files = part(el, "files");
  for (const f of m.files || []) {
    const a = document.createElement("a");
    a.className = "file"; a.dataset.fileId = f.id; a.href = "/ui/files/" + encodeURIComponent(f.id);
    a.target = "_blank"; a.textContent = "📎 " + f.name + " (" + f.size + " bytes)";
    files.append(a);
    if (f.mime_type.startsWith("image/")) { const img = document.createElement("img"); img.src = a.href; img.alt = f.name; files.append(img); }
  }
  const buttons = part(el, "buttons");
  for (const b of m.buttons || []) {
    const btn = document.createElement("button");
    btn.type = "button"; btn.textContent = b.label; if (b.style) btn.className = b.style;
    if (b.url) btn.addEventListener("click", () => window.open(b.url, "_blank"));
    else {
      btn.dataset.actionId = b.id;
      btn.addEventListener("click", () => post("/ui/chats/" + encodeURIComponent(chat) + "/messages/" + encodeURIComponent(m.id) + "/actions", { action_id: b.id, user_id: user }));
    }
    buttons.append(btn);
  }
  const reactions = part(el, "reactions");
  for (const [emoji, users] of Object.entries(m.reactions || {})) {
    const r = document.createElement("span");
    r.className = "reaction"; r.dataset.emoji = emoji; r.textContent = emoji + (EMOJI_NAMES[emoji] ? " " + EMOJI_NAMES[emoji] : "") + " " + users.length;
    r.title = users.join(", ");
    r.addEventListener("click", () => react(m.id, emoji, users.includes(user)));
    reactions.append(r);
  }
  const add = document.createElement("button");
  add.type = "button"; add.className = "react"; add.textContent = "+👍 +1"; add.title = "react with 👍";
  add.addEventListener("click", () => react(m.id, "👍", (m.reactions?.["👍"] || []).includes(user)));
  reactions.append(add);
}
function post(url, body) {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
}
function react(id, emoji, remove) {
  return post("/ui/chats/" + encodeURIComponent(chat) + "/messages/" + encodeURIComponent(id) + "/reactions", { emoji, user_id: user, remove });
}
function showEphemeral(e) {
  if (e.userId !== user) return;
  const el = document.createElement("div");
  el.className = "msg bot ephemeral"; el.dataset.id = e.id; el.dataset.author = e.authorId;
  el.innerHTML = '<span class="author"></span><span class="text"></span>';
  el.querySelector(".author").textContent = e.authorId;
  el.querySelector(".text").textContent = e.text;
  log.append(el);
  log.scrollTop = log.scrollHeight;
}

function renderTyping() {
  const who = [...typing.keys()].filter((id) => id !== user);
  typingLine.textContent = who.length ? who.join(", ") + (who.length > 1 ? " are" : " is") + " typing…" : "";
}
function stopTyping(id) {
  clearTimeout(typing.get(id));
  if (typing.delete(id)) renderTyping();
}

const events = new EventSource("/ui/events?chat=" + encodeURIComponent(chat));
events.addEventListener("snapshot", (e) => {
  log.replaceChildren();
  const snapshot = JSON.parse(e.data);
  for (const m of snapshot.messages) show(m);
  for (const eph of snapshot.ephemerals || []) showEphemeral(eph);
  document.body.dataset.ready = "true";
});
events.addEventListener("change", (e) => {
  const change = JSON.parse(e.data);
  if (change.type === "typing") {
    stopTyping(change.user_id);
    if (change.on) { typing.set(change.user_id, setTimeout(() => stopTyping(change.user_id), 6000)); renderTyping(); }
    return;
  }
  if (change.type === "ephemeral") { showEphemeral(change.ephemeral); return; }
  if (change.type === "reactions") { const el = element(change.message.id); if (el) extras(el, change.message); return; }
  show(change.message, change.type);
});

document.getElementById("composer").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("text");
  const fileInput = document.getElementById("file");
  const text = input.value.trim();
  const file = fileInput.files[0];
  if (file) {
    input.value = ""; fileInput.value = "";
    const qs = new URLSearchParams({ name: file.name, mime_type: file.type || "application/octet-stream", user_id: user, text });
    await fetch("/ui/chats/" + encodeURIComponent(chat) + "/files?" + qs, { method: "POST", body: file });
    return;
  }
  if (!text) return;
  input.value = "";
  await fetch("/ui/chats/" + encodeURIComponent(chat) + "/messages", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text, user_id: user }),
  });
});
</script>
</body>
</html>
`;
}
