/**
 * Events API payloads in the shapes Slack documents (https://docs.slack.dev/reference/events/message
 * and its subtypes, https://docs.slack.dev/reference/events/app_mention), for normalize tests.
 * Ids are the fake's: team `T00000001`, channel `C00000001`, the bot {@link FAKE_BOT}.
 *
 * @module
 */
import { ALICE, FAKE_BOT, OTHER_FAKE_BOT } from "./FakeSlack.ts";

const TEAM = "T00000001";
const CHANNEL = "C00000001";

/** The `event_callback` envelope around an event. */
export function envelope(event: Record<string, unknown>, eventId = "Ev0000000001") {
  return {
    token: "deprecated-verification-token",
    team_id: TEAM,
    api_app_id: FAKE_BOT.appId,
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: 1_700_000_000,
    authorizations: [{ team_id: TEAM, user_id: FAKE_BOT.userId, is_bot: true }],
  };
}

/** A person's channel message (docs: "message.channels"). */
export const channelMessage = {
  type: "message",
  channel: CHANNEL,
  user: ALICE.id,
  text: "Hello world",
  ts: "1355517523.000005",
  event_ts: "1355517523.000005",
  channel_type: "channel",
  team: TEAM,
};

/** A reply in a thread (`thread_ts` = the root's `ts`). */
export const threadReply = {
  ...channelMessage,
  text: "a reply",
  ts: "1355517524.000300",
  event_ts: "1355517524.000300",
  thread_ts: "1355517523.000005",
  parent_user_id: ALICE.id,
};

/** A DM (docs: "message.im"). */
export const directMessage = {
  type: "message",
  channel: "D00000001",
  user: ALICE.id,
  text: "hi in private",
  ts: "1355517525.000001",
  channel_type: "im",
};

/** An app mention (docs: `app_mention`), same `ts` as its `message` event. */
export const appMention = {
  type: "app_mention",
  user: ALICE.id,
  text: `<@${FAKE_BOT.userId}> deploy please`,
  ts: "1515449522.000016",
  channel: CHANNEL,
  event_ts: "1515449522.000016",
};

/** The `message` event of the same message as {@link appMention}. */
export const mentionMessage = { ...appMention, type: "message", channel_type: "channel" };

/** Another app's message (docs: `bot_message`). */
export const botMessage = {
  type: "message",
  subtype: "bot_message",
  channel: CHANNEL,
  ts: "1358877455.000010",
  text: "Pushing is the answer",
  bot_id: OTHER_FAKE_BOT.botId,
  app_id: OTHER_FAKE_BOT.appId,
  username: "github",
  icons: {},
  channel_type: "channel",
};

/** This bot's own message, echoed back with herald's metadata (C10). */
export const ownMessage = {
  type: "message",
  channel: CHANNEL,
  user: FAKE_BOT.userId,
  bot_id: FAKE_BOT.botId,
  app_id: FAKE_BOT.appId,
  text: "Here is your answer",
  ts: "1700000000.000200",
  channel_type: "channel",
  metadata: { event_type: "herald_message", event_payload: { v: 1, i: "x".repeat(22), u: 0 } },
};

/** An edit (docs: `message_changed`). */
export function messageChanged(
  message: Record<string, unknown>,
  previous: Record<string, unknown>,
  editTs = "1358878755.000001",
) {
  return {
    type: "message",
    subtype: "message_changed",
    hidden: true,
    channel: CHANNEL,
    ts: editTs,
    event_ts: editTs,
    channel_type: "channel",
    message: { type: "message", ...message, edited: { user: message.user, ts: editTs } },
    previous_message: { type: "message", ...previous },
  };
}

/** A thread reply also sent to the channel (docs: `thread_broadcast`). */
export const threadBroadcast = {
  type: "message",
  subtype: "thread_broadcast",
  channel: CHANNEL,
  user: ALICE.id,
  text: "also in the channel",
  ts: "1355517526.000400",
  thread_ts: "1355517523.000005",
  root: { ...channelMessage },
  channel_type: "channel",
};

/** A deletion (docs: `message_deleted`). */
export const messageDeleted = {
  type: "message",
  subtype: "message_deleted",
  hidden: true,
  channel: CHANNEL,
  ts: "1358878755.000001",
  deleted_ts: "1358878749.000002",
  event_ts: "1358878755.000001",
  previous_message: { type: "message", user: ALICE.id, text: "Delete me", ts: "1358878749.000002" },
  channel_type: "channel",
};

/** Someone joined (docs: `channel_join`). */
export const channelJoin = {
  type: "message",
  subtype: "channel_join",
  channel: CHANNEL,
  user: ALICE.id,
  text: `<@${ALICE.id}> has joined the channel`,
  ts: "1358877460.000011",
  channel_type: "channel",
};

/** A slash command's form fields (docs: "Implementing slash commands"). */
export const slashCommand = {
  token: "gIkuvaNzQIHg97ATvDxqgjtO",
  team_id: TEAM,
  team_domain: "herald-test",
  channel_id: CHANNEL,
  channel_name: "general",
  user_id: ALICE.id,
  user_name: "alice",
  command: "/deploy",
  text: "staging now",
  api_app_id: FAKE_BOT.appId,
  response_url: "https://hooks.slack.com/commands/1234/5678",
  trigger_id: "13345224609.738474920.8088930838d88f008e0",
};
