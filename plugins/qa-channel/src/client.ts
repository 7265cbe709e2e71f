/**
 * The QA platform's client: one method per API call, over `fetch`. It throws
 * {@link QaApiError} when the platform answers with an error and {@link QaNetworkError} when it
 * does not answer; it never retries (herald's delivery queue is the one place that retries).
 * The bot token travels in the `Authorization` header only, never in a URL or an error message.
 *
 * @module
 */
import { redactSecrets } from "@herald/plugin-sdk/channel-message";
import { QaApiError, QaNetworkError } from "./errors.ts";
import {
  type QaPostBody,
  type QaWireButton,
  type QaWireEvent,
  type QaWireFile,
  type QaWireMessage,
  qaErrorBodySchema,
  qaEventSchema,
} from "./wire.ts";

/** Options of {@link QaClient}. */
export type QaClientOptions = {
  /** Base URL of the QA platform, e.g. `http://127.0.0.1:4610`. */
  baseUrl: string;
  /** The bot token, `<bot id>:<secret>`. */
  token: string;
  /** Per-request timeout in ms (event streams excepted). @defaultValue 10_000 */
  timeoutMs?: number;
};

/** The bot id is the part of the token before the colon (the platform's convention). */
export function botIdOfToken(token: string): string {
  const id = token.split(":", 1)[0] ?? "";
  if (!id || !token.includes(":")) {
    throw new TypeError('QA bot token must look like "<bot id>:<secret>"');
  }
  return id;
}

/** Client of the QA platform's bot API (`/api/v1`). */
export class QaClient {
  /** This bot's user id on the platform. */
  readonly botId: string;
  readonly #baseUrl: string;
  readonly #token: string;
  readonly #timeoutMs: number;

  constructor(options: QaClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#token = options.token;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.botId = botIdOfToken(options.token);
  }

  /** `GET /api/v1/me`: who the token belongs to. */
  async me(signal?: AbortSignal): Promise<{ id: string; name: string }> {
    const res = await this.#call<{ bot: { id: string; name: string } }>("GET /me", "GET", "/me", {
      signal,
    });
    return res.bot;
  }

  /** `POST /api/v1/chats/:chat_id/messages`. A known `client_key` returns the first message. */
  async postMessage(
    chatId: string,
    body: QaPostBody,
    signal?: AbortSignal,
  ): Promise<{ message: QaWireMessage; duplicate: boolean }> {
    const answer = await this.#call<{ message: QaWireMessage; duplicate?: boolean }>(
      "POST /chats/:chat_id/messages",
      "POST",
      chatPath(chatId, "messages"),
      { body, signal },
    );
    return { message: answer.message, duplicate: answer.duplicate === true };
  }

  /** `PATCH /api/v1/chats/:chat_id/messages/:message_id`; identical text answers `modified: false`. */
  async editMessage(
    chatId: string,
    messageId: string,
    body: { text: string; metadata?: Record<string, unknown> },
    signal?: AbortSignal,
  ): Promise<{ message: QaWireMessage; modified: boolean }> {
    const answer = await this.#call<{ message: QaWireMessage; modified?: boolean }>(
      "PATCH /chats/:chat_id/messages/:message_id",
      "PATCH",
      chatPath(chatId, `messages/${encodeURIComponent(messageId)}`),
      { body, signal },
    );
    return { message: answer.message, modified: answer.modified !== false };
  }

  /** `DELETE /api/v1/chats/:chat_id/messages/:message_id`. */
  async deleteMessage(chatId: string, messageId: string, signal?: AbortSignal): Promise<void> {
    await this.#call(
      "DELETE /chats/:chat_id/messages/:message_id",
      "DELETE",
      chatPath(chatId, `messages/${encodeURIComponent(messageId)}`),
      { signal },
    );
  }

  /** `GET /api/v1/chats/:chat_id/messages?client_key=…`: the chat's messages with that key. */
  async findMessages(
    chatId: string,
    query: { client_key: string },
    signal?: AbortSignal,
  ): Promise<QaWireMessage[]> {
    const qs = new URLSearchParams({ client_key: query.client_key });
    const answer = await this.#call<{ messages: QaWireMessage[] }>(
      "GET /chats/:chat_id/messages",
      "GET",
      `${chatPath(chatId, "messages")}?${qs}`,
      { signal },
    );
    return answer.messages;
  }

  /** `POST /api/v1/chats/:chat_id/streams`: opens a native stream message showing `text`. */
  /** `PUT` / `DELETE /chats/:chat_id/messages/:message_id/reactions/:emoji` (idempotent). */
  async react(
    chatId: string,
    messageId: string,
    emoji: string,
    remove: boolean,
    signal?: AbortSignal,
  ): Promise<{ changed: boolean }> {
    const answer = await this.#call<{ changed?: boolean }>(
      `${remove ? "DELETE" : "PUT"} /chats/:chat_id/messages/:message_id/reactions/:emoji`,
      remove ? "DELETE" : "PUT",
      chatPath(
        chatId,
        `messages/${encodeURIComponent(messageId)}/reactions/${encodeURIComponent(emoji)}`,
      ),
      { signal },
    );
    return { changed: answer.changed === true };
  }

  /** `POST /dms`: the DM chat with a user (the same one every time). */
  async openDm(userId: string, signal?: AbortSignal): Promise<{ id: string; type: string }> {
    const answer = await this.#call<{ chat: { id: string; type: string } }>(
      "POST /dms",
      "POST",
      "/dms",
      { body: { user_id: userId }, signal },
    );
    return answer.chat;
  }

  /** `POST /files`: uploads a stream (never buffered here). */
  async upload(
    file: { name: string; mimeType: string; body: ReadableStream<Uint8Array> },
    signal?: AbortSignal,
  ): Promise<QaWireFile> {
    const qs = new URLSearchParams({ name: file.name, mime_type: file.mimeType });
    const answer = await this.#call<{ file: QaWireFile }>("POST /files", "POST", `/files?${qs}`, {
      raw: file.body,
      signal,
    });
    return answer.file;
  }

  /** `GET /files/:file_id`: the file's bytes as a stream. */
  async download(fileId: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const method = "GET /files/:file_id";
    let res: Response;
    try {
      res = await fetch(`${this.#baseUrl}/api/v1/files/${encodeURIComponent(fileId)}`, {
        headers: { authorization: `Bearer ${this.#token}` },
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      throw new QaNetworkError(method, error);
    }
    if (!res.ok || !res.body) throw await apiError(method, res, undefined, this.#token);
    return res.body as ReadableStream<Uint8Array>;
  }

  /** `POST /chats/:chat_id/ephemeral`: a message only `user_id` sees. */
  async postEphemeral(
    chatId: string,
    body: { user_id: string; text: string; buttons?: QaWireButton[] },
    signal?: AbortSignal,
  ): Promise<{ message_id: string }> {
    return this.#call<{ message_id: string }>(
      "POST /chats/:chat_id/ephemeral",
      "POST",
      chatPath(chatId, "ephemeral"),
      { body, signal },
    );
  }

  /** `GET /chats/:chat_id/messages?limit=&before=&thread_id=`: recent messages, oldest first. */
  async history(
    chatId: string,
    query: { limit: number; before?: string; thread_id?: string },
    signal?: AbortSignal,
  ): Promise<QaWireMessage[]> {
    const qs = new URLSearchParams({ limit: String(query.limit) });
    if (query.before !== undefined) qs.set("before", query.before);
    if (query.thread_id !== undefined) qs.set("thread_id", query.thread_id);
    const answer = await this.#call<{ messages: QaWireMessage[] }>(
      "GET /chats/:chat_id/messages",
      "GET",
      `${chatPath(chatId, "messages")}?${qs}`,
      { signal },
    );
    return answer.messages;
  }

  async streamBegin(
    chatId: string,
    body: QaPostBody,
    signal?: AbortSignal,
  ): Promise<QaWireMessage> {
    const answer = await this.#call<{ message: QaWireMessage }>(
      "POST /chats/:chat_id/streams",
      "POST",
      chatPath(chatId, "streams"),
      { body, signal },
    );
    return answer.message;
  }

  /** `POST /api/v1/chats/:chat_id/streams/:message_id/append`: appends `text` to an open stream. */
  async streamAppend(
    chatId: string,
    messageId: string,
    text: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#call(
      "POST /chats/:chat_id/streams/:message_id/append",
      "POST",
      chatPath(chatId, `streams/${encodeURIComponent(messageId)}/append`),
      { body: { text }, signal },
    );
  }

  /**
   * `POST /api/v1/chats/:chat_id/streams/:message_id/stop`: closes the stream, **appending**
   * `text` first when given. A stream already stopped answers 409 `stream_stopped`.
   */
  async streamStop(
    chatId: string,
    messageId: string,
    text: string | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#call(
      "POST /chats/:chat_id/streams/:message_id/stop",
      "POST",
      chatPath(chatId, `streams/${encodeURIComponent(messageId)}/stop`),
      { body: text !== undefined ? { text } : {}, signal },
    );
  }

  /** `POST /api/v1/chats/:chat_id/typing`: shows (lapses after 5 s) or hides the indicator. */
  async typing(
    chatId: string,
    body: { typing: boolean; thread_id?: string },
    signal?: AbortSignal,
  ): Promise<void> {
    await this.#call("POST /chats/:chat_id/typing", "POST", chatPath(chatId, "typing"), {
      body,
      signal,
    });
  }

  /**
   * `GET /api/v1/events?since=…`: the bot event stream (server-sent events), from the event
   * after `since`. Ends when the platform closes the stream or `signal` aborts.
   *
   * @param onOpen - called once the platform accepted the stream.
   * @throws QaApiError / QaNetworkError when the stream cannot be opened or breaks.
   */
  async *events(
    since: number,
    signal: AbortSignal,
    onOpen?: () => void,
  ): AsyncGenerator<QaWireEvent> {
    const method = "GET /events";
    let res: Response;
    try {
      res = await fetch(`${this.#baseUrl}/api/v1/events?since=${since}`, {
        headers: { authorization: `Bearer ${this.#token}`, accept: "text/event-stream" },
        signal,
      });
    } catch (error) {
      throw new QaNetworkError(method, error);
    }
    if (!res.ok || !res.body) throw await apiError(method, res, undefined, this.#token);
    onOpen?.();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block
            .split("\n")
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).replace(/^ /, ""))
            .join("\n");
          if (data) yield qaEventSchema.parse(JSON.parse(data));
          end = buffer.indexOf("\n\n");
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      throw new QaNetworkError(method, error);
    }
  }

  async #call<T>(
    method: string,
    httpMethod: string,
    path: string,
    options: {
      body?: unknown;
      raw?: ReadableStream<Uint8Array>;
      signal?: AbortSignal | undefined;
    },
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.#timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let res: Response;
    try {
      res = await fetch(`${this.#baseUrl}/api/v1${path}`, {
        method: httpMethod,
        headers: {
          authorization: `Bearer ${this.#token}`,
          ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(options.raw !== undefined ? { "content-type": "application/octet-stream" } : {}),
        },
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        // A streamed upload (Node fetch needs `duplex: "half"` for a stream body).
        ...(options.raw !== undefined ? { body: options.raw, duplex: "half" } : {}),
        signal,
      } as RequestInit);
    } catch (error) {
      throw new QaNetworkError(method, error); // a timeout is a TimeoutError: `timeout`
    }
    let json: unknown;
    try {
      json = await res.json();
    } catch (error) {
      if (res.ok) throw new QaNetworkError(method, error);
      throw await apiError(method, res, undefined, this.#token);
    }
    if (!res.ok || (json as { ok?: unknown }).ok !== true)
      throw await apiError(method, res, json, this.#token);
    return json as T;
  }
}

function chatPath(chatId: string, rest: string): string {
  return `/chats/${encodeURIComponent(chatId)}/${rest}`;
}

/**
 * The platform's error answer as a {@link QaApiError}. A description that echoes the bot token
 * (or its secret half) has it replaced by `[redacted]` before it reaches any message or log.
 */
async function apiError(
  method: string,
  res: Response,
  json: unknown,
  token: string,
): Promise<QaApiError> {
  let body = json;
  if (body === undefined) {
    try {
      body = await res.json();
    } catch {
      body = undefined;
    }
  }
  const parsed = qaErrorBodySchema.safeParse(body);
  const error = parsed.success
    ? parsed.data.error
    : { code: `http_${res.status}`, description: res.statusText || "unexpected answer" };
  const secret = token.slice(token.indexOf(":") + 1);
  error.description = redactSecrets(error.description, [token, secret]);
  return new QaApiError(method, res.status, error, res.headers.get("retry-after") ?? undefined);
}
