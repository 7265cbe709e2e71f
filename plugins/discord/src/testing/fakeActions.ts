/**
 * The fake's message components and clicks: a create-message body's `components` checked as
 * Discord does (at most 5 action rows of at most 5 buttons; a button's `custom_id` 1..100
 * characters, a Link button a `url` and no `custom_id`; 50035 Invalid Form Body otherwise) and
 * stored on the message; and the `MESSAGE_COMPONENT` interaction a person's click sends.
 *
 * Sources: https://discord.com/developers/docs/components/reference#button,
 * https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object
 *
 * @module
 */
import type { FakeDiscordCore, FakeUser } from "./fakeTypes.ts";
import { invalidForm } from "./fakeWire.ts";

type Button = {
  type?: unknown;
  style?: unknown;
  label?: unknown;
  custom_id?: unknown;
  url?: unknown;
};

/** Validates a create's `components` (undefined when absent). */
export function validateComponents(components: unknown): unknown[] | undefined {
  if (components === undefined) return undefined;
  if (!Array.isArray(components)) {
    throw invalidForm("components", "MODEL_TYPE_CONVERT", "Not an array");
  }
  if (components.length > 5) {
    throw invalidForm("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.");
  }
  components.forEach((row, r) => {
    const inner = (row as { type?: unknown; components?: unknown }).components;
    if ((row as { type?: unknown }).type !== 1 || !Array.isArray(inner) || inner.length > 5) {
      throw invalidForm(`components.${r}`, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "Invalid action row");
    }
    (inner as Button[]).forEach((b, i) => {
      const at = `components.${r}.components.${i}`;
      if (b.type !== 2) throw invalidForm(`${at}.type`, "BASE_TYPE_CHOICES", "Not a button");
      if (b.style === 5) {
        if (typeof b.url !== "string" || b.custom_id !== undefined) {
          throw invalidForm(`${at}.url`, "BUTTON_COMPONENT_URL_REQUIRED", "A link needs a url");
        }
      } else if (
        typeof b.custom_id !== "string" ||
        b.custom_id.length === 0 ||
        b.custom_id.length > 100
      ) {
        throw invalidForm(
          `${at}.custom_id`,
          "BASE_TYPE_BAD_LENGTH",
          "Must be between 1 and 100 in length.",
        );
      }
    });
  });
  // Discord numbers every component of a message (rows and buttons) in order from 1 when the
  // sender gives no `id` (the `id` field of the component reference).
  let next = 1;
  return components.map((row) => {
    const r = row as { components: Button[] } & Record<string, unknown>;
    const rowId = next++;
    return {
      ...r,
      id: r.id ?? rowId,
      components: r.components.map((b) => ({ ...b, id: (b as { id?: unknown }).id ?? next++ })),
    };
  });
}

/**
 * The interaction Discord sends when `user` clicks button `customId` on stored message
 * `messageId` (type 3, a new interaction id each time).
 * @throws Error when the message has no such button.
 */
export function componentInteraction(
  fake: FakeDiscordCore,
  input: { messageId: string; customId: string; user: FakeUser; id: string; applicationId: string },
): Record<string, unknown> {
  const stored = fake.stored.get(input.messageId);
  if (!stored) throw new Error(`fake click: no message ${input.messageId}`);
  const rows = (stored.json.components ?? []) as Array<{ components?: Button[] }>;
  const button = rows
    .flatMap((r) => r.components ?? [])
    .find((b) => b.custom_id === input.customId);
  if (!button) throw new Error(`fake click: no button ${input.customId}`);
  const channel = fake.channels.get(stored.channelId);
  const user = { id: input.user.id, username: input.user.username, discriminator: "0" };
  return {
    id: input.id,
    application_id: input.applicationId,
    type: 3,
    token: `token-${input.id}`,
    version: 1,
    channel_id: stored.channelId,
    ...(channel?.guildId
      ? {
          guild_id: channel.guildId,
          member: { user, roles: [], joined_at: new Date().toISOString() },
        }
      : { user }),
    message: stored.json,
    data: { custom_id: input.customId, component_type: 2 },
  };
}
