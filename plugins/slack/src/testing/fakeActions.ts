/**
 * The fake's button clicks: what Slack does when a person clicks a Block Kit button — it POSTs a
 * signed `application/x-www-form-urlencoded` body with one field, `payload`, the JSON of a
 * `block_actions` interaction, to the app's Request URL, and shows an error to the user unless
 * the app answers 200 within 3 s. The button must be on the message (its `action_id` in the
 * message's `actions` blocks).
 *
 * Source: https://docs.slack.dev/reference/interaction-payloads/block_actions-payload
 *
 * @module
 */
import type { EventSender } from "./fakeEvents.ts";
import type { FakeSlackBot, FakeSlackCore } from "./fakeTypes.ts";

type Button = { type?: string; action_id?: string; value?: string };

/** The buttons of a stored message's `actions` blocks. */
export function buttonsOf(blocks: unknown[] | undefined): Button[] {
  return (blocks ?? []).flatMap((b) => {
    const block = b as { type?: string; elements?: Button[] };
    return block.type === "actions" ? (block.elements ?? []) : [];
  });
}

/**
 * The `block_actions` payload of a click on button `actionId` of message `channel` + `ts`.
 * @throws Error when the message or the button is not there.
 */
export function clickPayload(
  fake: FakeSlackCore,
  bot: FakeSlackBot,
  input: { channel: string; ts: string; actionId: string; user: { id: string; name: string } },
  actionTs: string,
): Record<string, unknown> {
  const message = fake.message(input.channel, input.ts);
  if (!message) throw new Error(`fake click: no message ${input.channel}:${input.ts}`);
  const button = buttonsOf(message.blocks).find((b) => b.action_id === input.actionId);
  if (!button) throw new Error(`fake click: no button ${input.actionId} on the message`);
  const payload = {
    type: "block_actions",
    team: { id: bot.teamId, domain: "herald-test" },
    user: { id: input.user.id, username: input.user.name, team_id: bot.teamId },
    api_app_id: bot.appId,
    token: "deprecated-verification-token",
    container: {
      type: "message",
      message_ts: input.ts,
      channel_id: input.channel,
      is_ephemeral: false,
    },
    trigger_id: `${Date.now()}.${actionTs.replace(".", "")}`,
    channel: { id: input.channel, name: fake.channels.get(input.channel)?.name ?? "" },
    message: fake.messageJson(message, false),
    response_url: `https://hooks.slack.com/actions/${bot.teamId}/1/x`,
    actions: [
      {
        type: "button",
        action_id: input.actionId,
        block_id: "actions",
        text: { type: "plain_text", text: input.actionId },
        ...(button.value !== undefined ? { value: button.value } : {}),
        action_ts: actionTs,
      },
    ],
  };
  return payload;
}

/**
 * A person clicks button `actionId` on message `channel` + `ts`: the signed `block_actions`
 * payload goes to `bot`'s webhook.
 * @returns the webhook's answer and the payload (for redelivery tests).
 */
export async function userClick(
  fake: FakeSlackCore & { events: EventSender },
  bot: FakeSlackBot,
  input: { channel: string; ts: string; actionId: string; user: { id: string; name: string } },
  actionTs: string,
): Promise<{ response: Response | undefined; payload: Record<string, unknown> }> {
  const payload = clickPayload(fake, bot, input, actionTs);
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const response = await fake.events.post(bot, body, {
    contentType: "application/x-www-form-urlencoded",
  });
  return { response, payload };
}
