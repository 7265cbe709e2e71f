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

const spaceOfMessage = (name: string): string => name.split("/").slice(0, 2).join("/");

/**
 * A message as events carry it. Its `thread.name` is the thread anchor of replies, so it must be
 * a thread name of the message's own space (`spaces/S/threads/T`, CASES C35) — a message name,
 * another space's thread or garbage there is a malformed event (dead-lettered), never an anchor.
 */
export const messageSchema = z
  .looseObject({
    name: z.string().regex(/^spaces\/[^/]+\/messages\/[^/]+$/, "must be a message name"),
    sender: userSchema,
    createTime: z.string().optional(),
    text: z.string().optional(),
    argumentText: z.string().optional(),
    thread: z
      .looseObject({
        name: z
          .string()
          .regex(/^spaces\/[^/]+\/threads\/[^/]+$/, "must be a thread name spaces/*/threads/*"),
      })
      .optional(),
    threadReply: z.boolean().optional(),
    space: spaceSchema.optional(),
    /** [H23] files the user attached (`attachmentDataRef` for uploads, `driveDataRef` for Drive). */
    attachment: z
      .array(
        z.looseObject({
          name: z.string().optional(),
          contentName: z.string().optional(),
          contentType: z.string().optional(),
          attachmentDataRef: z.looseObject({ resourceName: z.string().min(1) }).optional(),
          driveDataRef: z.looseObject({ driveFileId: z.string().optional() }).optional(),
        }),
      )
      .optional(),
  })
  .superRefine((m, ctx) => {
    const space = spaceOfMessage(m.name);
    if (m.thread && spaceOfMessage(m.thread.name) !== space) {
      ctx.addIssue({
        code: "custom",
        path: ["thread", "name"],
        message: `must be a thread of the message's space ${space}`,
      });
    }
    if (m.space && m.space.name !== space) {
      ctx.addIssue({
        code: "custom",
        path: ["space", "name"],
        message: `must be the space of the message name (${space})`,
      });
    }
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

/** A `MESSAGE` event: its message is required, and in the event's space. */
export const messageEventSchema = eventSchema
  .extend({ message: messageSchema })
  .superRefine((e, ctx) => {
    const space = spaceOfMessage(e.message.name);
    if (e.space.name !== space) {
      ctx.addIssue({
        code: "custom",
        path: ["message", "name"],
        message: `must be a message of the event's space ${e.space.name}`,
      });
    }
  });

/** A validated `MESSAGE` event. */
export type GoogleChatMessageEvent = z.infer<typeof messageEventSchema>;
