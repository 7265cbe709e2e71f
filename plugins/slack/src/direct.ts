/**
 * Direct messages on Slack ([H23]; PLATFORMS.md §10): `directMessages.open` is
 * `conversations.open` with the user's id, which returns the existing DM when there is one
 * (`already_open`), so opening is idempotent. Slack's refusals — `user_not_found`,
 * `user_disabled`, `cannot_dm_bot` — become `DirectMessageUnavailableError` with Slack's code as
 * the reason; other failures are thrown as classified Slack errors.
 *
 * Ephemeral replies: `send.sendEphemeral` is `chat.postEphemeral` (shown to one user in the
 * conversation, in the thread when the target has one). Slack cannot edit, delete or look up an
 * ephemeral message, so it is a direct call, not a durable unit.
 *
 * Sources: https://docs.slack.dev/reference/methods/conversations.open,
 * https://docs.slack.dev/reference/methods/chat.postEphemeral
 *
 * @module
 */
import {
  DirectMessageUnavailableError,
  type EphemeralRequest,
  type MessageDirectAdapter,
  type MessageReceiptPart,
  type MessageSendContext,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import { SLACK_CHANNEL_ID } from "./account.ts";
import { SlackAnswerError, SlackRenderError } from "./errors.ts";
import type { SlackUnitPayload } from "./render.ts";
import { channelOf, messageRef } from "./target.ts";

/** Slack's answers that mean "no DM with this user". */
const UNAVAILABLE = new Set(["user_not_found", "user_disabled", "cannot_dm_bot"]);

/** The adapter's `directMessages` (see the module notes). */
export function createDirect(client: WebClient): MessageDirectAdapter {
  return {
    async open(_ctx, { userId }) {
      let answer: Awaited<ReturnType<WebClient["conversations"]["open"]>>;
      try {
        answer = await client.conversations.open({ users: userId });
      } catch (error) {
        const code = (error as { data?: { error?: unknown } }).data?.error;
        if (typeof code === "string" && UNAVAILABLE.has(code)) {
          throw new DirectMessageUnavailableError(SLACK_CHANNEL_ID, userId, code, { cause: error });
        }
        throw error;
      }
      const id = answer.channel?.id;
      if (typeof id !== "string") throw new SlackAnswerError("conversations.open", "a channel id");
      return { kind: "direct", id };
    },
  };
}

/** The adapter's `send.sendEphemeral`: `chat.postEphemeral` of one text unit. */
export function createSendEphemeral(client: WebClient) {
  return async (
    _ctx: MessageSendContext,
    request: EphemeralRequest,
  ): Promise<MessageReceiptPart> => {
    const payload = request.unit.payload as SlackUnitPayload;
    if (payload.type !== "text") {
      throw new SlackRenderError("an ephemeral Slack message is text (and buttons) only");
    }
    const channel = channelOf(request.target);
    const threadTs = request.target.threadId;
    const answer = await client.chat.postEphemeral({
      channel,
      user: request.userId,
      text: payload.text,
      ...(payload.blocks ? { blocks: payload.blocks as never[] } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    });
    if (typeof answer.message_ts !== "string") {
      throw new SlackAnswerError("chat.postEphemeral", "a message_ts");
    }
    return {
      platformMessageId: messageRef(channel, answer.message_ts),
      kind: "text",
      index: request.unit.index,
      ...(threadTs ? { threadId: threadTs } : {}),
    };
  };
}
