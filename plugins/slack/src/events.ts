/**
 * The Slack payloads herald reads, as zod schemas (validation errors name the field path, and the
 * raw payload is dead-lettered): the Events API envelope (`event_callback`) with its `message`
 * (and subtypes) and `app_mention` events, slash commands and interactivity payloads. Unknown
 * fields pass through (Slack adds fields often).
 *
 * Sources: https://docs.slack.dev/apis/events-api/, https://docs.slack.dev/reference/events/message,
 * https://docs.slack.dev/reference/events/app_mention, https://docs.slack.dev/interactivity/implementing-slash-commands
 *
 * @module
 */
import { z } from "@herald/plugin-sdk/channel-message";

/**
 * A Slack `ts`: epoch seconds with a fraction (`"1700000000.000100"`). Anything else would make
 * a NaN timestamp and a message identity no Slack message has.
 */
const slackTs = z.string().regex(/^\d{1,12}\.\d{1,9}$/, "expected a Slack ts (seconds.fraction)");

const metadata = z
  .looseObject({
    event_type: z.string(),
    event_payload: z.record(z.string(), z.unknown()).optional(),
  })
  .optional();

/** A Slack message object (inside events, `message_changed.message`, history). */
export const slackMessageSchema = z.looseObject({
  type: z.string().optional(),
  subtype: z.string().optional(),
  ts: slackTs,
  thread_ts: slackTs.optional(),
  user: z.string().optional(),
  bot_id: z.string().optional(),
  app_id: z.string().optional(),
  team: z.string().optional(),
  text: z.string().optional(),
  username: z.string().optional(),
  metadata,
  edited: z.looseObject({ user: z.string().optional(), ts: slackTs }).optional(),
});

/**
 * A `message` event (any subtype) or an `app_mention` event. A `message_changed` must carry the
 * edited `message` (else it is dead-lettered with the path `event.message`).
 */
export const slackMessageEventSchema = slackMessageSchema
  .extend({
    type: z.enum(["message", "app_mention"]),
    channel: z.string().min(1),
    channel_type: z.string().optional(),
    event_ts: slackTs.optional(),
    hidden: z.boolean().optional(),
    message: slackMessageSchema.optional(),
    previous_message: slackMessageSchema.partial().optional(),
    deleted_ts: slackTs.optional(),
  })
  .superRefine((e, ctx) => {
    if (e.subtype === "message_changed" && e.message === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["message"],
        message: "message_changed without the edited message",
      });
    }
  });

/** The Events API envelope. */
export const eventCallbackSchema = z.looseObject({
  type: z.literal("event_callback"),
  team_id: z.string().min(1),
  api_app_id: z.string().optional(),
  event_id: z.string().optional(),
  event_time: z.number().optional(),
  event: z.looseObject({ type: z.string().min(1) }),
});

/**
 * The envelope of a `message` / `app_mention` event, parsed whole so an invalid field is named by
 * its path in the payload (`event.channel`, `event.message.ts`).
 */
export const messageCallbackSchema = eventCallbackSchema.extend({ event: slackMessageEventSchema });

/** A slash command (form fields). */
export const slashCommandSchema = z.looseObject({
  command: z.string().startsWith("/"),
  text: z.string().default(""),
  team_id: z.string().min(1),
  channel_id: z.string().min(1),
  user_id: z.string().min(1),
  user_name: z.string().optional(),
  trigger_id: z.string().min(1),
});

export type SlackMessageObject = z.infer<typeof slackMessageSchema>;
export type SlackMessageEvent = z.infer<typeof slackMessageEventSchema>;
export type SlackEventCallback = z.infer<typeof eventCallbackSchema>;
export type SlackSlashCommand = z.infer<typeof slashCommandSchema>;
