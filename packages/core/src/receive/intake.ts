/**
 * The front of the receive lifecycle, before anything is written: normalize → classify →
 * origin decode → drop own echoes (DESIGN §5). Pure apart from one optional registry read, so
 * own echoes and malformed payloads never take a dedupe lease.
 *
 * @module
 */
import type {
  InboundEvent,
  InboundInteraction,
  MessageEventClass,
  MessageReceiveAdapter,
  NormalizeResult,
} from "../adapter/receive.ts";
import { HeraldError } from "../errors.ts";
import { failpoint } from "../failpoint.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageOrigin } from "../message/origin.ts";
import { shouldDropHeraldEcho } from "../message/origin.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import type { DeadLetter, DedupeKey } from "../state/types.ts";
import { completeEventClass, defaultEventClass, isSelfAuthored } from "./classify.ts";
import {
  ReceiveNormalizeError,
  ReceiveNotSupportedError,
  ReceiveValidationError,
  UnknownChannelError,
} from "./errors.ts";
import type { ReceiveAdapterLookup, ReceiveChannelAdapter, ReceiveSource } from "./types.ts";
import { assertInboundEvent, assertInboundInteraction, assertInboundMessage } from "./validate.ts";

/** A message that passed intake, ready for dedupe. */
export type AcceptedInput = {
  kind: "message";
  channel: ReceiveChannelAdapter;
  adapter: MessageReceiveAdapter;
  message: ChannelMessage;
  event: MessageEventClass;
  key: DedupeKey;
  /** The payload as received (recorded for dead letters and replay). */
  raw: unknown;
};

/** A reaction or button click that passed intake, ready for dedupe ([H23]). */
export type AcceptedInteraction = {
  kind: "interaction";
  interaction: InboundInteraction;
  key: DedupeKey;
  raw: unknown;
};

/** A typed non-message event that passed intake, ready for dedupe. */
export type AcceptedEvent = { kind: "event"; event: InboundEvent; key: DedupeKey; raw: unknown };

/** What intake decided. */
export type IntakeResult =
  | AcceptedInput
  | AcceptedEvent
  | AcceptedInteraction
  | { kind: "ignored"; reason: string; detail?: string }
  | { kind: "invalid"; error: HeraldError }
  | { kind: "dropped"; reason: "herald_echo" | "self"; message: ChannelMessage };

/** Options of {@link intake}. */
export type IntakeOptions = {
  /**
   * On a channel without native origin metadata, how long to wait before looking a bot's room
   * message up in the outbound registry a second time when the first lookup missed, in ms. The
   * platform may show another herald bot's post to us before that bot has committed its
   * receipt (Discord's gateway dispatch races the REST answer): without the second look its
   * tagged failure notice would pass as a prompt (CASES C56). `0`: one lookup.
   * @defaultValue 0
   */
  echoSettleMs?: number;
};

/** Finds the adapter of (`channel`, `accountId`). */
export function findAdapter(
  adapters: ReceiveAdapterLookup,
  channel: string,
  accountId?: string,
): ReceiveChannelAdapter | undefined {
  return typeof adapters === "function" ? adapters(channel, accountId) : adapters.get(channel);
}

/**
 * Runs intake for one raw event.
 *
 * @throws StoreUnavailableError when the outbound registry cannot be read (nothing was written;
 * the platform should redeliver).
 */
export async function intake(
  raw: unknown,
  source: ReceiveSource,
  adapters: ReceiveAdapterLookup,
  store: MessageStateStore,
  receivedAt: number,
  options: IntakeOptions = {},
): Promise<IntakeResult> {
  const channel = findAdapter(adapters, source.channel, source.accountId);
  if (!channel) return { kind: "invalid", error: new UnknownChannelError(source.channel) };
  const adapter = channel.receive;
  if (!adapter) return { kind: "invalid", error: new ReceiveNotSupportedError(source.channel) };

  let message: ChannelMessage;
  try {
    const normalized: NormalizeResult = await adapter.normalize(raw, {
      channel: source.channel,
      ...(source.accountId === undefined ? {} : { accountId: source.accountId }),
      receivedAt,
    });
    const tag = (normalized as { kind?: unknown } | null)?.kind;
    if (tag === "ignore") {
      const ignored = normalized as { reason?: unknown; detail?: unknown };
      return {
        kind: "ignored",
        reason: typeof ignored.reason === "string" ? ignored.reason : "unspecified",
        ...(typeof ignored.detail === "string" ? { detail: ignored.detail } : {}),
      };
    }
    if (tag === "event") {
      let event = assertInboundEvent(normalized, source.channel);
      if (event.accountId === undefined && source.accountId !== undefined)
        event = { ...event, accountId: source.accountId };
      const key: DedupeKey = {
        channel: source.channel,
        ...(event.accountId === undefined ? {} : { accountId: event.accountId }),
        eventId: `event:${event.id}`,
      };
      return { kind: "event", event, key, raw };
    }
    if (tag === "reaction" || tag === "action") {
      let item = assertInboundInteraction(normalized, source.channel);
      if (item.accountId === undefined && source.accountId !== undefined)
        item = { ...item, accountId: source.accountId };
      const key: DedupeKey = {
        channel: source.channel,
        ...(item.accountId === undefined ? {} : { accountId: item.accountId }),
        eventId: `${item.kind}:${item.id}`,
      };
      return { kind: "interaction", interaction: item, key, raw };
    }
    message = assertInboundMessage(normalized, source.channel);
  } catch (error) {
    return { kind: "invalid", error: asReceiveError(source.channel, "normalize", error) };
  }
  if (message.accountId === undefined && source.accountId !== undefined)
    message = { ...message, accountId: source.accountId };
  failpoint("receive.after_normalize");

  let event: MessageEventClass;
  let eventId: string;
  try {
    const classified = adapter.classify
      ? await adapter.classify(message, raw)
      : defaultEventClass(message);
    event = completeEventClass(classified, message);
  } catch (error) {
    return { kind: "invalid", error: asReceiveError(source.channel, "classify", error) };
  }
  try {
    eventId = adapter.dedupeIdentity?.(message, event) ?? message.platformMessageId ?? message.id;
    if (typeof eventId !== "string" || eventId.length === 0)
      throw new Error(`dedupe identity must be a non-empty string, got ${String(eventId)}`);
  } catch (error) {
    return { kind: "invalid", error: asReceiveError(source.channel, "identity", error) };
  }

  const { origin, sentBy } = await decodeOrigin(
    raw,
    message,
    event,
    channel,
    store,
    options.echoSettleMs ?? 0,
  );
  if (shouldDropHeraldEcho({ origin, isBotAuthor: event.isBotAuthor, isRoomish: event.isRoomish }))
    return { kind: "dropped", reason: "herald_echo", message };
  if (isSelfAuthored(message, event, adapter)) return { kind: "dropped", reason: "self", message };
  // The outbound registry says this account sent it (an own message the platform shows without
  // an id we know, e.g. one a history read found): our own echo too.
  if (sentBy !== undefined && sentBy === (message.accountId ?? ""))
    return { kind: "dropped", reason: "self", message };

  const key: DedupeKey = {
    channel: source.channel,
    ...(message.accountId === undefined ? {} : { accountId: message.accountId }),
    eventId,
  };
  return { kind: "message", channel, adapter, message, event, key, raw };
}

/**
 * Origin: what the message itself carries, else the channel's decoder, else the outbound
 * registry of every account sharing the store — read for bot-authored messages, which also
 * tells which account sent it (`sentBy`).
 */
async function decodeOrigin(
  raw: unknown,
  message: ChannelMessage,
  event: MessageEventClass,
  channel: ReceiveChannelAdapter,
  store: MessageStateStore,
  echoSettleMs: number,
): Promise<{ origin: MessageOrigin | undefined; sentBy?: string }> {
  let decoded: MessageOrigin | undefined = message.origin;
  if (!decoded) {
    try {
      decoded = channel.origin?.decode?.(raw);
    } catch {
      decoded = undefined; // undecodable metadata is not ours
    }
  }
  if (!event.isBotAuthor || !message.platformMessageId) return { origin: decoded };
  // Keyed by the platform message (its id names the conversation), not by our account: a
  // notice another herald bot sharing this store posted is found too (CASES C56).
  const lookup = () =>
    store.lookupReceipt({
      channel: message.channel,
      platformMessageId: message.platformMessageId as string,
      anyAccount: true,
    });
  let hit = await lookup();
  // No native metadata in a room: the sender may not have committed its receipt yet. Look once
  // more before taking a bot's message for a prompt.
  if (!hit && !decoded && event.isRoomish && echoSettleMs > 0 && !channel.origin?.decode) {
    await new Promise((resolve) => setTimeout(resolve, echoSettleMs));
    hit = await lookup();
  }
  return {
    origin: decoded ?? hit?.origin,
    ...(hit ? { sentBy: hit.accountId ?? "" } : {}),
  };
}

/** Wraps whatever an adapter threw into a typed receive error. */
export function asReceiveError(
  channel: string,
  stage: "normalize" | "classify" | "identity",
  error: unknown,
): HeraldError {
  if (error instanceof ReceiveValidationError) return error;
  if (
    error instanceof HeraldError &&
    stage === "normalize" &&
    error.code.startsWith("HERALD_RECEIVE")
  )
    return error;
  return new ReceiveNormalizeError(channel, stage, error);
}

/** The error as a dead letter stores it. */
export function deadLetterError(error: Error): DeadLetter["error"] {
  const path =
    error instanceof ReceiveValidationError
      ? error.path
      : error instanceof ReceiveNormalizeError
        ? error.path
        : undefined;
  return {
    name: error.name,
    message: error.message,
    ...(error instanceof HeraldError ? { code: error.code } : {}),
    ...(path === undefined ? {} : { path }),
  };
}
