/**
 * Buttons on Google Chat ([H23]): a message's `actions` become a cardsV2 `buttonList` (a
 * button's `onClick.action.function` is the action's `id`, its `value` the parameter `value`; a
 * link opens its URL), and a click comes back as a `CARD_CLICKED` interaction event →
 * `InboundAction` (`actionId` = `action.actionMethodName`, `value` = the `value` parameter).
 * The synchronous response is the webhook's `{}` answer, given once the click is recorded (before
 * the handler runs); the handler answers with a new message (`action.reply`). Cards need app
 * authentication, which is how herald authenticates (`chat.bot`); with `cards: false` buttons
 * fall back to text.
 *
 * Source: https://developers.google.com/workspace/chat/create-card-message,
 * https://developers.google.com/workspace/chat/api/reference/rest/v1/Event (CARD_CLICKED,
 * `action`, `common.invokedFunction`, `common.parameters`)
 *
 * @module
 */
import {
  type ChannelMessage,
  type InboundAction,
  type MessageCard,
  parseInbound,
  z,
} from "@herald/plugin-sdk/channel-message";
import { messageSchema, spaceSchema, userSchema } from "./events.ts";

/** Most buttons herald puts on one message (Chat has no documented cap; 100 widgets a card). */
export const GOOGLE_CHAT_MAX_BUTTONS = 20;

/**
 * The card a message's buttons go on: its own `card` with the actions appended, else a card of
 * the buttons alone. `undefined` when there are neither.
 */
export function cardWithActions(message: ChannelMessage): MessageCard | undefined {
  const actions = message.actions ?? [];
  if (!message.card && actions.length === 0) return undefined;
  if (!message.card) return { actions };
  return { ...message.card, actions: [...(message.card.actions ?? []), ...actions] };
}

/** A `CARD_CLICKED` event: the clicked message, the user, the invoked function. */
export const cardClickedSchema = z.looseObject({
  type: z.literal("CARD_CLICKED"),
  eventTime: z.string().optional(),
  space: spaceSchema,
  message: messageSchema.optional(),
  user: userSchema,
  action: z
    .looseObject({
      actionMethodName: z.string().min(1),
      parameters: z
        .array(z.looseObject({ key: z.string(), value: z.string().optional() }))
        .optional(),
    })
    .optional(),
  common: z
    .looseObject({
      invokedFunction: z.string().optional(),
      parameters: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
});

/**
 * The button click of a `CARD_CLICKED` event. Its `id` (the dedupe key) is the clicked message,
 * the user, the function and the event time: a redelivery of the same click is a duplicate, a
 * second click a new action.
 *
 * @throws ReceiveValidationError naming the field when the event has no function name.
 */
export function actionOf(
  raw: unknown,
  channel: string,
  accountId: string | undefined,
  isDirect: boolean,
): InboundAction {
  const event = parseInbound(cardClickedSchema, raw, channel);
  const actionId = event.action?.actionMethodName ?? event.common?.invokedFunction;
  if (actionId === undefined) {
    parseInbound(
      z.looseObject({ action: z.looseObject({ actionMethodName: z.string() }) }),
      raw,
      channel,
    );
  }
  const value =
    event.action?.parameters?.find((p) => p.key === "value")?.value ??
    event.common?.parameters?.value;
  const space = event.space.name;
  const messageId = event.message?.name;
  const thread = event.message?.thread?.name;
  const at = event.eventTime ? Date.parse(event.eventTime) : Number.NaN;
  return {
    kind: "action",
    id: `${messageId ?? space}:${event.user.name}:${actionId}:${event.eventTime ?? ""}`,
    channel,
    ...(accountId !== undefined ? { accountId } : {}),
    target: isDirect
      ? { kind: "direct", id: space }
      : event.message?.threadReply && thread
        ? { kind: "thread", id: space, parentId: space, threadId: thread }
        : { kind: "group", id: space },
    sender: {
      id: event.user.name,
      ...(event.user.displayName ? { displayName: event.user.displayName } : {}),
      isBot: event.user.type === "BOT",
    },
    actionId: actionId as string,
    ...(value !== undefined ? { value } : {}),
    ...(messageId !== undefined ? { messageId } : {}),
    timestamp: Number.isFinite(at) ? at : 0,
    raw,
    ack: "answered",
  };
}
