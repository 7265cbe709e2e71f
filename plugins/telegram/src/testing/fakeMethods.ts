/**
 * The Bot API methods of the fake: `POST /bot<token>/<method>` for getMe, sendMessage,
 * sendPhoto / sendDocument / sendVoice / sendAudio / sendVideo / sendSticker, editMessageText,
 * editMessageCaption, editMessageReplyMarkup, deleteMessage, sendChatAction, getUpdates,
 * setWebhook, deleteWebhook, answerCallbackQuery, setMessageReaction (`fakeReactions.ts`), getChat (`fakeDirect.ts`), getFile and file downloads (`fakeFiles.ts`). Answers `{ ok: true, result }` or the Bot
 * API's error shape.
 *
 * Source: https://core.telegram.org/bots/api#available-methods
 *
 * @module
 */
import {
  type Context,
  type FakePlatformEnv,
  type PlatformOp,
  scriptedAnswer,
} from "@herald/plugin-sdk/testing";
import { getChat } from "./fakeDirect.ts";
import { getFile, registerFileDownload } from "./fakeFiles.ts";
import { setMessageReaction } from "./fakeReactions.ts";
import type { FakeBotAccount, FakeChat, FakeStoredMessage, FakeTelegramCore } from "./fakeTypes.ts";
import {
  badRequest,
  checkEntities,
  FakeBotApiError,
  readPayload,
  unescapedMarkdownV2,
} from "./fakeWire.ts";

type Payload = Record<string, unknown>;
type Call = { fake: FakeTelegramCore; bot: FakeBotAccount; p: Payload };
type Method = (call: Call) => unknown | Promise<unknown>;

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;
const MEDIA_FIELD: Record<string, string> = {
  sendPhoto: "photo",
  sendDocument: "document",
  sendVoice: "voice",
  sendAudio: "audio",
  sendVideo: "video",
  sendSticker: "sticker",
};

/**
 * A sent file as the Bot API answers it: a photo is an array of sizes, a voice note or audio has
 * a `duration`, a video its size too, a sticker its kind (the required fields of `PhotoSize`,
 * `Voice`, `Audio`, `Video`, `Sticker` in @grammyjs/types, checked by packages/platform-specs).
 */
function mediaJson(field: string, file: string, id: number): unknown {
  const base = { file_id: file, file_unique_id: `u${id}` };
  if (field === "photo") return [{ ...base, width: 90, height: 90 }];
  if (field === "voice" || field === "audio") return { ...base, duration: 1 };
  if (field === "video") return { ...base, duration: 1, width: 90, height: 90 };
  if (field === "sticker") {
    return {
      ...base,
      type: "regular",
      width: 512,
      height: 512,
      is_animated: false,
      is_video: false,
    };
  }
  return base;
}

function chatOf(fake: FakeTelegramCore, p: Payload): FakeChat {
  const chat = fake.chats.get(Number(p.chat_id));
  if (!chat) throw badRequest("chat not found");
  if (chat.blocked) throw new FakeBotApiError(403, "Forbidden: bot was blocked by the user");
  return chat;
}

function threadOf(chat: FakeChat, p: Payload): number | undefined {
  if (p.message_thread_id === undefined) return undefined;
  const id = Number(p.message_thread_id);
  const topic = chat.topics.get(id);
  // The General topic (1) and unknown topics: tdlib/telegram-bot-api#798.
  if (!chat.isForum || !topic) throw badRequest("message thread not found");
  if (topic.closed) throw badRequest("TOPIC_CLOSED");
  return id;
}

function messageText(p: Payload, field: "text" | "caption"): string {
  const text = typeof p[field] === "string" ? (p[field] as string) : "";
  if (p.parse_mode === "MarkdownV2") {
    const ch = unescapedMarkdownV2(text);
    if (ch) {
      throw badRequest(
        `can't parse entities: Character '${ch}' is reserved and must be escaped with the preceding '\\'`,
      );
    }
  }
  return text;
}

function replyOf(
  fake: FakeTelegramCore,
  chat: FakeChat,
  p: Payload,
): FakeStoredMessage | undefined {
  const reply = p.reply_parameters as
    | { message_id?: number; chat_id?: number; allow_sending_without_reply?: boolean }
    | undefined;
  if (!reply?.message_id) return undefined;
  const target = fake.stored.get(reply.message_id);
  const chatId = reply.chat_id ?? chat.id;
  const visible = target && !fake.state.get(String(reply.message_id))?.deleted;
  if (target && visible && target.chatId === chatId) return target;
  if (reply.allow_sending_without_reply) return undefined;
  throw badRequest("message to be replied not found");
}

function post(
  { fake, bot, p }: Call,
  content: { text: string; entities: unknown[]; media?: { field: string; file: string } },
): unknown {
  const chat = chatOf(fake, p);
  const thread = threadOf(chat, p);
  const reply = replyOf(fake, chat, p);
  fake.limiter?.check(bot.id, chat);
  const visible = fake.state.post({
    chat: String(chat.id),
    text: content.text,
    author: { id: String(bot.id), name: bot.firstName, bot: true },
    ...(thread !== undefined ? { thread: String(thread) } : {}),
    ...(reply ? { replyTo: String(reply.json.message_id) } : {}),
    metadata: { method: content.media ? "media" : "text" },
  });
  const id = Number(visible.message.id);
  const json: Record<string, unknown> = {
    message_id: id,
    date: Math.floor(visible.message.createdAt / 1_000),
    chat: fake.chatJson(chat),
    from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
    ...(thread !== undefined ? { message_thread_id: thread, is_topic_message: true } : {}),
    ...(reply ? { reply_to_message: reply.json } : {}),
    ...(content.media
      ? {
          [content.media.field]: mediaJson(content.media.field, content.media.file, id),
          ...(content.text ? { caption: content.text, caption_entities: content.entities } : {}),
        }
      : { text: content.text, ...(content.entities.length ? { entities: content.entities } : {}) }),
    ...(p.reply_markup ? { reply_markup: p.reply_markup } : {}),
  };
  fake.stored.set(id, {
    json,
    chatId: chat.id,
    authorId: bot.id,
    kind: content.media ? "media" : "text",
    entities: content.entities,
    replyMarkup: p.reply_markup,
  });
  return fake.takeAnswerWithoutId() ? true : json;
}

const sendMessage: Method = (call) => {
  const text = messageText(call.p, "text");
  if (text.trim() === "") throw badRequest("message text is empty");
  if (text.length > TEXT_LIMIT) throw badRequest("message is too long");
  checkEntities(text, call.p.entities);
  return post(call, { text, entities: (call.p.entities as unknown[]) ?? [] });
};

const sendMedia =
  (method: string): Method =>
  (call) => {
    const field = MEDIA_FIELD[method] as string;
    const file = call.p[field];
    if (typeof file !== "string" || file === "")
      throw badRequest(`there is no ${field} in the request`);
    if (file.startsWith("invalid")) throw badRequest("wrong file identifier/HTTP URL specified");
    const caption = method === "sendSticker" ? "" : messageText(call.p, "caption");
    if (caption.length > CAPTION_LIMIT) throw badRequest("message caption is too long");
    checkEntities(caption, call.p.caption_entities);
    return post(call, {
      text: caption,
      entities: (call.p.caption_entities as unknown[]) ?? [],
      media: { field, file },
    });
  };

function editable({ fake, bot, p }: Call): FakeStoredMessage {
  chatOf(fake, p);
  const stored = fake.stored.get(Number(p.message_id));
  const visible = fake.state.get(String(p.message_id));
  if (!stored || !visible || visible.deleted || stored.chatId !== Number(p.chat_id)) {
    throw badRequest("message to edit not found");
  }
  if (stored.authorId !== bot.id) throw badRequest("message can't be edited");
  return stored;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const NOT_MODIFIED =
  "message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message";

function applyEdit(call: Call, stored: FakeStoredMessage, text: string, entities: unknown[]) {
  const id = String(stored.json.message_id);
  const current = call.fake.state.get(id)?.text ?? "";
  const markup = call.p.reply_markup;
  if (current === text && same(stored.entities, entities) && same(stored.replyMarkup, markup)) {
    throw badRequest(NOT_MODIFIED);
  }
  call.fake.state.edit(id, text, {
    method: stored.kind,
    markupChanged: !same(stored.replyMarkup, markup),
  });
  stored.entities = entities;
  stored.replyMarkup = markup;
  const field =
    stored.kind === "text" ? { text, entities } : { caption: text, caption_entities: entities };
  stored.json = { ...stored.json, ...field, edit_date: Math.floor(Date.now() / 1_000) };
  if (markup) stored.json.reply_markup = markup;
  else delete stored.json.reply_markup;
  return stored.json;
}

const editMessageText: Method = (call) => {
  const stored = editable(call);
  if (stored.kind !== "text") throw badRequest("there is no text in the message to edit");
  const text = messageText(call.p, "text");
  if (text.trim() === "") throw badRequest("message text is empty");
  if (text.length > TEXT_LIMIT) throw badRequest("message is too long");
  checkEntities(text, call.p.entities);
  return applyEdit(call, stored, text, (call.p.entities as unknown[]) ?? []);
};

const editMessageCaption: Method = (call) => {
  const stored = editable(call);
  if (stored.kind !== "media") throw badRequest("there is no caption in the message to edit");
  const caption = messageText(call.p, "caption");
  if (caption.length > CAPTION_LIMIT) throw badRequest("message caption is too long");
  checkEntities(caption, call.p.caption_entities);
  return applyEdit(call, stored, caption, (call.p.caption_entities as unknown[]) ?? []);
};

const editMessageReplyMarkup: Method = (call) => {
  const stored = editable(call);
  const text = call.fake.state.get(String(stored.json.message_id))?.text ?? "";
  return applyEdit(call, stored, text, stored.entities);
};

const deleteMessage: Method = ({ fake, bot, p }) => {
  chatOf(fake, p);
  const stored = fake.stored.get(Number(p.message_id));
  const visible = fake.state.get(String(p.message_id));
  if (!stored || !visible || visible.deleted || stored.chatId !== Number(p.chat_id)) {
    throw badRequest("message to delete not found");
  }
  if (stored.authorId !== bot.id) throw badRequest("message can't be deleted");
  fake.state.delete(String(p.message_id));
  return true;
};

const sendChatAction: Method = ({ fake, bot, p }) => {
  const chat = chatOf(fake, p);
  const thread = threadOf(chat, p);
  fake.state.typing(
    String(chat.id),
    String(bot.id),
    true,
    thread !== undefined ? String(thread) : undefined,
  );
  return true;
};

const getUpdates: Method = async ({ fake, bot, p }) => {
  const queue = fake.queue(bot.id);
  if (queue.webhookSet) {
    throw new FakeBotApiError(
      409,
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    );
  }
  return queue.getUpdates({
    ...(p.offset !== undefined ? { offset: Number(p.offset) } : {}),
    ...(p.limit !== undefined ? { limit: Number(p.limit) } : {}),
    ...(p.timeout !== undefined ? { timeoutSeconds: Number(p.timeout) } : {}),
  });
};

const METHODS: Record<string, [PlatformOp, Method]> = {
  getMe: [
    "read",
    ({ bot }) => ({
      id: bot.id,
      is_bot: true,
      first_name: bot.firstName,
      username: bot.username,
      // getMe answers the bot's settings too (`UserFromGetMe` requires them); BotFather's defaults.
      can_join_groups: true,
      can_read_all_group_messages: false,
      supports_inline_queries: false,
      can_connect_to_business: false,
      has_main_web_app: false,
      has_topics_enabled: false,
      allows_users_to_create_topics: false,
      supports_join_request_queries: false,
      can_manage_bots: false,
    }),
  ],
  sendMessage: ["send", sendMessage],
  ...Object.fromEntries(Object.keys(MEDIA_FIELD).map((m) => [m, ["send", sendMedia(m)]])),
  editMessageText: ["edit", editMessageText],
  editMessageCaption: ["edit", editMessageCaption],
  editMessageReplyMarkup: ["edit", editMessageReplyMarkup],
  deleteMessage: ["delete", deleteMessage],
  setMessageReaction: ["react", setMessageReaction],
  getChat: ["read", getChat],
  getFile: ["read", getFile],
  sendChatAction: ["typing", sendChatAction],
  getUpdates: ["poll", getUpdates],
  deleteWebhook: [
    "admin",
    ({ fake, bot }) => {
      fake.queue(bot.id).deleteWebhook();
      return true;
    },
  ],
  setWebhook: [
    "admin",
    ({ fake, bot, p }) => {
      if (typeof p.url !== "string" || !p.url)
        throw badRequest("bad webhook: An HTTPS URL must be provided for webhook");
      // Deliveries need an in-process handler: FakeTelegram.connectWebhook.
      fake.queue(bot.id).registered = {
        url: p.url,
        ...(typeof p.secret_token === "string" ? { secretToken: p.secret_token } : {}),
      };
      return true;
    },
  ],
  answerCallbackQuery: ["admin", () => true],
};

/** Registers every method on the fake's server. */
export function registerBotApi(fake: FakeTelegramCore): void {
  for (const [name, [op, method]] of Object.entries(METHODS)) {
    fake.server.route("POST", `/:bot/${name}`, op, async (c: Context<FakePlatformEnv>) => {
      const bot = fake.botOfToken((c.req.param("bot") ?? "").replace(/^bot/, ""));
      if (!bot) return c.json({ ok: false, error_code: 401, description: "Unauthorized" }, 401);
      try {
        const result = await method({ fake, bot, p: await readPayload(c) });
        if (op === "send" && fake.takeResetAfterAccept()) {
          c.env.incoming.socket.destroy(); // applied, then the answer is lost
          return new Response(null, { status: 599 });
        }
        const answer = c.json({ ok: true, result });
        // A batch carrying an update a test pushed verbatim is the test's words.
        const verbatim =
          (Array.isArray(result) && result.some((u) => fake.pushedVerbatim.has(u))) ||
          // `answerNextSendsWithoutMessageId`: a send answered `true` (C12) is a scripted fault.
          (op === "send" && result === true);
        return verbatim ? scriptedAnswer(answer) : answer;
      } catch (error) {
        if (!(error instanceof FakeBotApiError)) throw error;
        return c.json(
          {
            ok: false,
            error_code: error.status,
            description: error.description,
            ...(error.retryAfter !== undefined
              ? { parameters: { retry_after: error.retryAfter } }
              : {}),
          },
          error.status as 400,
          error.retryAfter !== undefined ? { "retry-after": String(error.retryAfter) } : {},
        );
      }
    });
  }
  registerFileDownload(fake);
  fake.server.app.all("*", (c) =>
    c.json({ ok: false, error_code: 404, description: "Not Found" }, 404),
  );
}
