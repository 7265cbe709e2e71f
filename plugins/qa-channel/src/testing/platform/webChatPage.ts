/**
 * The QA platform's web chat page: one conversation, a composer whose messages become inbound
 * events for bots, and bot messages shown live — new, edited in place (a streamed preview),
 * deleted, and a typing indicator. Plain HTML and a small module script, no build step; every
 * text is set with `textContent`.
 *
 * DOM contract (used by the browser test and the `herald demo` docs): each message is
 * `.msg[data-id][data-author]` with class `bot` or `user`, its text in `.text`, and
 * `data-edits` counting the edits seen live; `#typing` shows who is typing.
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
</style>
</head>
<body>
<header>herald QA chat <small id="chat-name"></small></header>
<main id="log" aria-live="polite"></main>
<div id="typing" role="status"></div>
<form id="composer">
  <input id="text" name="text" autocomplete="off" placeholder="Write a message…" aria-label="Message" required>
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
  if (live === "edited") el.dataset.edits = String(Number(el.dataset.edits) + 1);
  stopTyping(m.author.id);
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
  for (const m of JSON.parse(e.data).messages) show(m);
  document.body.dataset.ready = "true";
});
events.addEventListener("change", (e) => {
  const change = JSON.parse(e.data);
  if (change.type === "typing") {
    stopTyping(change.user_id);
    if (change.on) { typing.set(change.user_id, setTimeout(() => stopTyping(change.user_id), 6000)); renderTyping(); }
    return;
  }
  show(change.message, change.type);
});

document.getElementById("composer").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("text");
  const text = input.value.trim();
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
