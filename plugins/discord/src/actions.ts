/**
 * Buttons on Discord ([H23]; PLATFORMS.md §10): `ChannelMessage.actions` become message
 * components — action rows (type 1) of at most 5 buttons (type 2), at most 5 rows; a button's
 * `custom_id` is `MessageAction.id` (its `value` is not sent: Discord buttons carry none), a
 * link is a Link button (style 5) with `url`. A click is an interaction of type 3
 * (`MESSAGE_COMPONENT`) on the interactions endpoint, answered `DEFERRED_UPDATE_MESSAGE`
 * (type 6) once recorded (`interactions.ts`) and normalized here into an `InboundAction`.
 *
 * Discord's limits, checked before any call (`DiscordRenderError`, the field named): 25 buttons,
 * `custom_id` 1..100 characters, label ≤ 80.
 *
 * Sources: https://discord.com/developers/docs/components/reference#button,
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-response-object-interaction-callback-type
 *
 * @module
 */
import type {
  ChannelMessage,
  InboundAction,
  MessageTarget,
} from "@herald/plugin-sdk/channel-message";
import { DISCORD_CHANNEL_ID } from "./account.ts";
import { DiscordRenderError } from "./errors.ts";
import { messageRef } from "./send.ts";

/** Discord's component limits. */
export const DISCORD_ACTION_LIMITS = {
  buttons: 25,
  perRow: 5,
  customIdLength: 100,
  labelLength: 80,
} as const;

/** Button styles (discord-api-types `ButtonStyle`). */
const STYLE = { primary: 1, secondary: 2, danger: 4, link: 5 } as const;

/** A component as sent (wire names). */
export type DiscordComponentRow = {
  type: 1;
  components: Array<{
    type: 2;
    style: number;
    label: string;
    custom_id?: string;
    url?: string;
  }>;
};

/**
 * The action rows of `actions`.
 * @throws DiscordRenderError naming the action over one of Discord's limits.
 */
export function componentRows(
  actions: NonNullable<ChannelMessage["actions"]>,
): DiscordComponentRow[] {
  if (actions.length > DISCORD_ACTION_LIMITS.buttons) {
    throw new DiscordRenderError(
      `actions: ${actions.length} buttons, Discord allows ${DISCORD_ACTION_LIMITS.buttons} per message`,
    );
  }
  const buttons = actions.map((a, i) => {
    if (a.label.length === 0 || a.label.length > DISCORD_ACTION_LIMITS.labelLength) {
      throw new DiscordRenderError(
        `actions[${i}].label must be 1..${DISCORD_ACTION_LIMITS.labelLength} characters`,
      );
    }
    if (a.kind === "link")
      return { type: 2 as const, style: STYLE.link, label: a.label, url: a.url };
    if (a.id.length === 0 || a.id.length > DISCORD_ACTION_LIMITS.customIdLength) {
      throw new DiscordRenderError(
        `actions[${i}].id must be 1..${DISCORD_ACTION_LIMITS.customIdLength} characters (Discord custom_id)`,
      );
    }
    return {
      type: 2 as const,
      style: a.style ? STYLE[a.style] : STYLE.secondary,
      label: a.label,
      custom_id: a.id,
    };
  });
  const rows: DiscordComponentRow[] = [];
  for (let i = 0; i < buttons.length; i += DISCORD_ACTION_LIMITS.perRow) {
    rows.push({ type: 1, components: buttons.slice(i, i + DISCORD_ACTION_LIMITS.perRow) });
  }
  return rows;
}

/** Interaction type of a component click. */
export const MESSAGE_COMPONENT = 3;

/**
 * The `InboundAction` of a component interaction (already answered type 6 by the endpoint).
 * Its id is Discord's interaction id (the same on a redelivery).
 */
export function actionOf(
  i: {
    id: string;
    channel_id: string;
    data?: { custom_id?: string | undefined } | undefined;
    message?: { id?: string } | undefined;
  },
  user: { id: string; global_name?: string | null | undefined; username?: string | undefined },
  target: MessageTarget,
  raw: unknown,
  receivedAt: number,
): InboundAction {
  const name = user.global_name ?? user.username;
  const messageId = typeof i.message?.id === "string" ? i.message.id : undefined;
  return {
    kind: "action",
    id: `interaction:${i.id}`,
    channel: DISCORD_CHANNEL_ID,
    target,
    sender: name ? { id: user.id, displayName: name } : { id: user.id },
    actionId: i.data?.custom_id ?? "",
    ...(messageId ? { messageId: messageRef(i.channel_id, messageId) } : {}),
    timestamp: receivedAt,
    raw,
    ack: "deferred_update_message",
  };
}
