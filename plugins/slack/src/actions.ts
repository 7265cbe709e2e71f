/**
 * Buttons on Slack ([H23]; PLATFORMS.md §10): `ChannelMessage.actions` become a Block Kit
 * `actions` block under the last text unit (a `section` with the text, then the buttons: a
 * button's `action_id` is `MessageAction.id`, its `value` the action's `value`; a link is a
 * button with `url`). A click arrives as a `block_actions` interactivity payload, which the
 * receiver answers 200 at once (Slack wants it within 3 s); normalize makes it an
 * `InboundAction`.
 *
 * Slack's limits, checked before any call (`SlackRenderError`, the field named): 25 elements per
 * `actions` block, `action_id` ≤ 255 characters, button text ≤ 75, `value` ≤ 2 000.
 *
 * Sources: https://docs.slack.dev/reference/block-kit/blocks/actions-block,
 * https://docs.slack.dev/reference/block-kit/block-elements/button-element,
 * https://docs.slack.dev/reference/interaction-payloads/block_actions-payload
 *
 * @module
 */
import {
  type ChannelMessage,
  type InboundAction,
  ignore,
  type NormalizeResult,
  parseInbound,
  z,
} from "@herald/plugin-sdk/channel-message";
import { SLACK_CHANNEL_ID } from "./account.ts";
import { SlackRenderError } from "./errors.ts";
import { messageRef } from "./target.ts";

/** Slack's Block Kit limits on buttons. */
export const SLACK_ACTION_LIMITS = {
  elements: 25,
  actionIdLength: 255,
  textLength: 75,
  valueLength: 2_000,
} as const;

/**
 * The blocks of a text unit carrying `actions`: the text as a `section`, then one `actions`
 * block.
 * @throws SlackRenderError naming the action (`actions[i].id` …) over one of Slack's limits.
 */
export function actionBlocks(text: string, actions: NonNullable<ChannelMessage["actions"]>) {
  if (actions.length > SLACK_ACTION_LIMITS.elements) {
    throw new SlackRenderError(
      `actions: ${actions.length} buttons, Slack allows ${SLACK_ACTION_LIMITS.elements} per message`,
    );
  }
  const elements = actions.map((a, i) => {
    if (a.label.length > SLACK_ACTION_LIMITS.textLength) {
      throw new SlackRenderError(
        `actions[${i}].label is ${a.label.length} characters, Slack allows ${SLACK_ACTION_LIMITS.textLength}`,
      );
    }
    const text = { type: "plain_text" as const, text: a.label, emoji: true };
    if (a.kind === "link") {
      return { type: "button" as const, action_id: `link-${i}`, text, url: a.url };
    }
    if (a.id.length === 0 || a.id.length > SLACK_ACTION_LIMITS.actionIdLength) {
      throw new SlackRenderError(
        `actions[${i}].id must be 1..${SLACK_ACTION_LIMITS.actionIdLength} characters (Slack action_id)`,
      );
    }
    if (a.value !== undefined && a.value.length > SLACK_ACTION_LIMITS.valueLength) {
      throw new SlackRenderError(
        `actions[${i}].value is over Slack's ${SLACK_ACTION_LIMITS.valueLength} characters`,
      );
    }
    return {
      type: "button" as const,
      action_id: a.id,
      text,
      ...(a.value !== undefined ? { value: a.value } : {}),
      ...(a.style ? { style: a.style } : {}),
    };
  });
  return [
    { type: "section", text: { type: "mrkdwn", text } },
    { type: "actions", elements },
  ];
}

const blockActionsSchema = z.looseObject({
  type: z.literal("block_actions"),
  team: z.looseObject({ id: z.string().min(1) }).nullish(),
  user: z.looseObject({ id: z.string().min(1), username: z.string().optional() }),
  channel: z.looseObject({ id: z.string().min(1) }).optional(),
  container: z
    .looseObject({ message_ts: z.string().optional(), channel_id: z.string().optional() })
    .optional(),
  message: z.looseObject({ ts: z.string(), thread_ts: z.string().optional() }).optional(),
  actions: z
    .array(
      z.looseObject({
        action_id: z.string().min(1),
        value: z.string().optional(),
        action_ts: z.string().min(1),
      }),
    )
    .min(1),
});

/**
 * The `InboundAction` of a `block_actions` payload (the first action: a click is one). Its id is
 * channel + message + user + action + `action_ts` (Slack does not retry interactivity
 * payloads; a second click is a new `action_ts`). A link button's click is ignored.
 */
export function actionOf(raw: unknown, accountId: string | undefined): NormalizeResult {
  const p = parseInbound(blockActionsSchema, raw, SLACK_CHANNEL_ID);
  const action = p.actions[0] as (typeof p.actions)[number];
  if (action.action_id.startsWith("link-") && action.value === undefined) {
    return ignore("link button opened");
  }
  const channel = p.channel?.id ?? p.container?.channel_id;
  if (!channel) return ignore("click outside a conversation", "no channel");
  const ts = p.message?.ts ?? p.container?.message_ts;
  const threadTs = p.message?.thread_ts;
  const result: InboundAction = {
    kind: "action",
    id: `${p.team?.id ?? ""}:${channel}:${ts ?? ""}:${p.user.id}:${action.action_id}:${action.action_ts}`,
    channel: SLACK_CHANNEL_ID,
    ...(accountId !== undefined ? { accountId } : {}),
    target:
      threadTs && threadTs !== ts
        ? { kind: "thread", id: channel, parentId: channel, threadId: threadTs }
        : { kind: channel.startsWith("D") ? "direct" : "group", id: channel },
    sender: { id: p.user.id, ...(p.user.username ? { displayName: p.user.username } : {}) },
    actionId: action.action_id,
    ...(action.value !== undefined ? { value: action.value } : {}),
    ...(ts ? { messageId: messageRef(channel, ts) } : {}),
    timestamp: Math.round(Number(action.action_ts) * 1_000),
    raw,
    ack: "http_200",
  };
  return result;
}
