/**
 * A Slack-like fake receive adapter (Events API `event_callback` envelopes with `message`,
 * `app_mention` and `message_changed` events), for the own-echo and two-event-type tests.
 *
 * Like an adapter that trusts `app_mention` for mentions, it sets `mentionsSelf` only on that
 * event type, so one message's two events carry different flags.
 *
 * @module
 */
import { z } from "zod";
import type { MessageEventClass } from "../../adapter/receive.ts";
import type { ChannelMessage } from "../../message/message.ts";
import type { MessageOrigin } from "../../message/origin.ts";
import type { ReceiveChannelAdapter } from "../types.ts";
import { parseInbound } from "../validate.ts";

const metadataSchema = z.object({
  event_type: z.string(),
  event_payload: z.record(z.string(), z.unknown()),
});

const innerMessageSchema = z.object({
  user: z.string().optional(),
  bot_id: z.string().optional(),
  text: z.string().optional(),
  ts: z.string(),
  metadata: metadataSchema.optional(),
});

/** The subset of an Events API envelope the fake accepts. */
export const slackEnvelopeSchema = z.object({
  type: z.literal("event_callback"),
  event_id: z.string().min(1),
  event: z.object({
    type: z.enum(["message", "app_mention"]),
    subtype: z.string().optional(),
    channel: z.string().min(1),
    channel_type: z.enum(["im", "channel", "group", "mpim"]).optional(),
    user: z.string().optional(),
    bot_id: z.string().optional(),
    text: z.string().optional(),
    ts: z.string().min(1),
    event_ts: z.string().optional(),
    thread_ts: z.string().optional(),
    metadata: metadataSchema.optional(),
    message: innerMessageSchema.optional(),
  }),
});

export type SlackEnvelope = z.infer<typeof slackEnvelopeSchema>;
type SlackEvent = SlackEnvelope["event"];

/** Options of {@link createFakeSlackAdapter}. */
export type FakeSlackOptions = {
  /** The bot user id. @defaultValue "U_BOT" */
  botUserId?: string;
  /** The bot id. @defaultValue "B_BOT" */
  botId?: string;
  /** @defaultValue false */
  idsCaseInsensitive?: boolean;
};

/** The author of the message an event is about (the edited message for `message_changed`). */
function author(e: SlackEvent): { user?: string | undefined; bot_id?: string | undefined } {
  return e.subtype === "message_changed" && e.message ? e.message : e;
}

/** Creates the fake adapter. Identity: `${channel}:${ts}`; an edit: `…:edit:${event_ts}`. */
export function createFakeSlackAdapter(options: FakeSlackOptions = {}): ReceiveChannelAdapter {
  const botUserId = options.botUserId ?? "U_BOT";
  const botId = options.botId ?? "B_BOT";
  const parse = (raw: unknown) => parseInbound(slackEnvelopeSchema, raw, "slack");
  return {
    id: "slack",
    origin: {
      decode(raw) {
        const parsed = slackEnvelopeSchema.safeParse(raw);
        if (!parsed.success) return undefined;
        const e = parsed.data.event;
        const meta = e.subtype === "message_changed" ? e.message?.metadata : e.metadata;
        if (meta?.event_type !== "herald_origin") return undefined;
        return meta.event_payload as MessageOrigin;
      },
    },
    receive: {
      normalize(raw, ctx) {
        const e = parse(raw).event;
        const edited = e.subtype === "message_changed" ? e.message : undefined;
        const by = author(e);
        const senderId = by.user ?? by.bot_id ?? "unknown";
        const ts = edited?.ts ?? e.ts;
        const message: ChannelMessage = {
          id: `slack:${e.channel}:${ts}`,
          channel: "slack",
          direction: "inbound",
          target: {
            kind: e.channel_type === "im" ? "direct" : "channel",
            id: e.channel,
            ...(e.thread_ts ? { threadId: e.thread_ts } : {}),
          },
          sender: { id: senderId, isBot: by.bot_id !== undefined },
          body: { markdown: edited?.text ?? e.text ?? "" },
          platformMessageId: `${e.channel}:${ts}`,
          raw,
        };
        if (ctx.accountId !== undefined) message.accountId = ctx.accountId;
        return message;
      },
      classify(message, raw): MessageEventClass {
        const e = parse(raw).event;
        const by = author(e);
        const eventType = e.subtype === "message_changed" ? "message_changed" : e.type;
        return {
          eventType,
          eventTypes: [eventType],
          isBotAuthor: by.bot_id !== undefined || e.subtype === "bot_message",
          isRoomish: message.target.kind !== "direct",
          mentionsSelf: e.type === "app_mention",
          isEdit: e.subtype === "message_changed",
          authorIds: [by.user, by.bot_id].filter((x): x is string => x !== undefined),
        };
      },
      dedupeIdentity(message, event) {
        const id = message.platformMessageId ?? message.id;
        if (!event.isEdit) return id;
        const e = (message.raw as SlackEnvelope).event;
        return `${id}:edit:${e.event_ts ?? e.ts}`;
      },
      selfIds: () => [botUserId, botId],
      idsCaseInsensitive: options.idsCaseInsensitive ?? false,
    },
  };
}

/** A valid envelope around `event` (defaults: a human message in channel C1). */
export function slackEnvelope(
  event: Partial<SlackEvent> & { ts: string },
  eventId = `Ev${Math.random().toString(36).slice(2, 10)}`,
): SlackEnvelope {
  return {
    type: "event_callback",
    event_id: eventId,
    event: {
      type: "message",
      channel: "C1",
      channel_type: "channel",
      user: "U_HUMAN",
      text: "hi",
      ...event,
    },
  };
}
