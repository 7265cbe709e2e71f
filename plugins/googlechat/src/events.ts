/**
 * Zod schemas of the Chat app events herald handles (the interaction event format,
 * `Schema$DeprecatedEvent` in `@googleapis/chat`): only the fields herald reads are checked,
 * everything else passes through, so a new field Google adds never breaks receiving.
 *
 * Source: https://developers.google.com/workspace/chat/api/reference/rest/v1/Event
 *
 * @module
 */
import { z } from "@herald/plugin-sdk/channel-message";

/** A user or app (`users/…`). */
export const userSchema = z.looseObject({
  name: z.string().min(1),
  displayName: z.string().optional(),
  type: z.enum(["HUMAN", "BOT", "TYPE_UNSPECIFIED"]).optional(),
});

/** A space as events carry it. */
export const spaceSchema = z.looseObject({
  name: z.string().regex(/^spaces\/[^/]+$/, "must be a space name spaces/…"),
  type: z.string().optional(),
  spaceType: z.string().optional(),
  singleUserBotDm: z.boolean().optional(),
  displayName: z.string().optional(),
});

/** A message as events carry it. */
export const messageSchema = z.looseObject({
  name: z.string().regex(/^spaces\/[^/]+\/messages\/[^/]+$/, "must be a message name"),
  sender: userSchema,
  createTime: z.string().optional(),
  text: z.string().optional(),
  argumentText: z.string().optional(),
  thread: z.looseObject({ name: z.string() }).optional(),
  threadReply: z.boolean().optional(),
  space: spaceSchema.optional(),
});

/** A Chat app event. */
export const eventSchema = z.looseObject({
  type: z.string().min(1),
  eventTime: z.string().optional(),
  space: spaceSchema,
  message: messageSchema.optional(),
  user: userSchema.optional(),
});

/** A validated Chat app event. */
export type GoogleChatEvent = z.infer<typeof eventSchema>;

/** A `MESSAGE` event: its message is required. */
export const messageEventSchema = eventSchema.extend({ message: messageSchema });

/** A validated `MESSAGE` event. */
export type GoogleChatMessageEvent = z.infer<typeof messageEventSchema>;
