/**
 * The Chat API client: `@googleapis/chat` v1 with the root URL of the config, the account's
 * auth client, a per-request timeout and **gaxios retries off** (googleapis-common turns them on
 * by default; the durable queue is the one place that retries, DESIGN §4). {@link ChatApi} is a
 * thin face over the calls herald makes: every error comes out as a `GoogleChatApiError` or
 * `GoogleChatNetworkError`, never a gaxios error (its request config holds the bearer token).
 *
 * Source: https://developers.google.com/workspace/chat/api/reference/rest/v1/spaces.messages
 *
 * @module
 */
import { Readable } from "node:stream";
import { chat, type chat_v1 } from "@googleapis/chat";
import type { OAuth2Client } from "google-auth-library";
import { toGoogleChatError } from "./errors.ts";

/** A Chat API message (`Schema$Message`). */
export type ChatMessage = chat_v1.Schema$Message;

/** Options of {@link createChatApi}. */
export type ChatApiOptions = {
  /** The API root with a trailing slash, e.g. `https://chat.googleapis.com/`. */
  rootUrl: string;
  /** The account's auth client (service-account `JWT`, or an `OAuth2Client` with a preset token). */
  auth: OAuth2Client;
  /** Per-request timeout in ms. */
  timeoutMs: number;
};

/** What a `spaces.messages.create` sends. */
export type CreateMessageParams = {
  /** `spaces/S`. */
  parent: string;
  /** Deduplication key: a repeat returns the stored message unchanged. */
  requestId: string;
  /** Client-assigned id `client-…`: the message is also `spaces/S/messages/client-…`. */
  messageId: string;
  /** `REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD` whenever a thread is set. */
  messageReplyOption?: string;
  requestBody: ChatMessage;
};

/** The Chat API calls herald makes. Every method throws our typed errors. */
export type ChatApi = {
  create(params: CreateMessageParams, signal?: AbortSignal): Promise<ChatMessage>;
  get(name: string, signal?: AbortSignal): Promise<ChatMessage>;
  update(
    name: string,
    updateMask: string,
    body: ChatMessage,
    signal?: AbortSignal,
  ): Promise<ChatMessage>;
  delete(name: string, signal?: AbortSignal): Promise<void>;
  /** `spaces.list` with one result: the cheapest call that proves the credentials work. */
  probe(signal?: AbortSignal): Promise<void>;
  /** One page of `spaces.list`: the spaces the app is a member of. */
  listSpaces(
    pageToken: string | undefined,
    signal?: AbortSignal,
  ): Promise<chat_v1.Schema$ListSpacesResponse>;
  /**
   * One page of `spaces.messages.list` of `space`, oldest first, with `filter` (e.g.
   * `createTime > "2026-01-01T00:00:00Z"`).
   */
  listMessages(
    space: string,
    params: { filter: string; pageSize: number; pageToken?: string | undefined },
    signal?: AbortSignal,
  ): Promise<chat_v1.Schema$ListMessagesResponse>;
  /** `spaces.findDirectMessage` ([H23]): the DM space of `user` (`users/U`) and the app. */
  findDirectMessage(user: string, signal?: AbortSignal): Promise<chat_v1.Schema$Space>;
  /**
   * `media.download` ([H23]) of an attachment's `attachmentDataRef.resourceName`, as a stream
   * (never buffered whole) with its declared length when the server sent one.
   */
  download(
    resourceName: string,
    signal?: AbortSignal,
  ): Promise<{ body: ReadableStream<Uint8Array>; length?: number }>;
};

/** Builds the Chat API face of one account. */
export function createChatApi(options: ChatApiOptions): ChatApi {
  const client = chat({
    version: "v1",
    rootUrl: options.rootUrl,
    auth: options.auth,
    retry: false,
    timeout: options.timeoutMs,
  });
  const call = async <T>(method: string, run: () => Promise<{ data: T }>): Promise<T> => {
    try {
      return (await run()).data;
    } catch (error) {
      throw toGoogleChatError(method, error);
    }
  };
  const opts = (signal?: AbortSignal) => ({
    retry: false,
    timeout: options.timeoutMs,
    ...(signal ? { signal } : {}),
  });
  const messages = client.spaces.messages;
  return {
    create: (params, signal) =>
      call("spaces.messages.create", () => messages.create(params, opts(signal))),
    get: (name, signal) => call("spaces.messages.get", () => messages.get({ name }, opts(signal))),
    update: (name, updateMask, body, signal) =>
      call("spaces.messages.update", () =>
        messages.update({ name, updateMask, requestBody: body }, opts(signal)),
      ),
    delete: async (name, signal) => {
      await call("spaces.messages.delete", () => messages.delete({ name }, opts(signal)));
    },
    probe: async (signal) => {
      await call("spaces.list", () => client.spaces.list({ pageSize: 1 }, opts(signal)));
    },
    listSpaces: (pageToken, signal) =>
      call("spaces.list", () =>
        client.spaces.list({ pageSize: 100, ...(pageToken ? { pageToken } : {}) }, opts(signal)),
      ),
    findDirectMessage: (user, signal) =>
      call("spaces.findDirectMessage", () =>
        client.spaces.findDirectMessage({ name: user }, opts(signal)),
      ),
    download: async (resourceName, signal) => {
      const response = await call("media.download", () =>
        client.media.download(
          { resourceName, alt: "media" },
          { ...opts(signal), responseType: "stream" },
        ),
      );
      const stream = response as unknown as Readable;
      return { body: Readable.toWeb(stream) as ReadableStream<Uint8Array> };
    },
    listMessages: (space, params, signal) =>
      call("spaces.messages.list", () =>
        messages.list(
          {
            parent: space,
            filter: params.filter,
            orderBy: "createTime asc",
            pageSize: params.pageSize,
            ...(params.pageToken ? { pageToken: params.pageToken } : {}),
          },
          opts(signal),
        ),
      ),
  };
}
