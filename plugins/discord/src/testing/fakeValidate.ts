/**
 * What the fake checks in a create or edit body, as Discord does: `content` ≤ 2000, a message
 * not empty (50006), `nonce` ≤ 25 characters, embed limits (title 256, description 4096,
 * 25 fields of 256 / 1024, footer 2048, author 256, 10 embeds, 6000 in total — 50035 naming the
 * field), and `message_reference` to a message that does not exist: 50035
 * `REPLIES_UNKNOWN_MESSAGE` unless `fail_if_not_exists: false`.
 *
 * Source: https://discord.com/developers/docs/resources/message#create-message-jsonform-params
 *
 * @module
 */
import type { FakeDiscordCore, FakeStoredMessage } from "./fakeTypes.ts";
import { FakeDiscordError, invalidForm } from "./fakeWire.ts";

type Embed = {
  title?: string;
  description?: string;
  footer?: { text?: string };
  author?: { name?: string };
  fields?: Array<{ name?: string; value?: string }>;
};

const LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
  embeds: 10,
};

/** Checks embeds against Discord's limits. @throws FakeDiscordError 50035 naming the field. */
export function validateEmbeds(embeds: unknown): Embed[] {
  if (embeds === undefined || embeds === null) return [];
  if (!Array.isArray(embeds)) throw invalidForm("embeds", "MODEL_TYPE_CONVERT", "Not an array");
  if (embeds.length > LIMITS.embeds) {
    throw invalidForm("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.");
  }
  let total = 0;
  const check = (path: string, value: string | undefined, max: number) => {
    if (value === undefined) return;
    total += value.length;
    if (value.length > max) {
      throw invalidForm(path, "BASE_TYPE_MAX_LENGTH", `Must be ${max} or fewer in length.`);
    }
  };
  for (const [i, e] of (embeds as Embed[]).entries()) {
    check(`embeds[${i}].title`, e.title, LIMITS.title);
    check(`embeds[${i}].description`, e.description, LIMITS.description);
    check(`embeds[${i}].footer.text`, e.footer?.text, LIMITS.footer);
    check(`embeds[${i}].author.name`, e.author?.name, LIMITS.author);
    if ((e.fields?.length ?? 0) > LIMITS.fields) {
      throw invalidForm(
        `embeds[${i}].fields`,
        "BASE_TYPE_MAX_LENGTH",
        "Must be 25 or fewer in length.",
      );
    }
    for (const [j, f] of (e.fields ?? []).entries()) {
      check(`embeds[${i}].fields[${j}].name`, f.name, LIMITS.fieldName);
      check(`embeds[${i}].fields[${j}].value`, f.value, LIMITS.fieldValue);
    }
  }
  if (total > LIMITS.total) {
    throw invalidForm(
      "embeds",
      "MAX_EMBED_SIZE_EXCEEDED",
      "Embed size exceeds maximum size of 6000",
    );
  }
  return embeds as Embed[];
}

function validateContent(content: unknown): string {
  if (content === undefined || content === null) return "";
  if (typeof content !== "string")
    throw invalidForm("content", "MODEL_TYPE_CONVERT", "Not a string");
  if (content.length > 2000) {
    throw invalidForm("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.");
  }
  return content;
}

/** A create-message body, checked. */
export type CreateInput = {
  content: string;
  embeds: Embed[];
  nonce?: string;
  enforceNonce: boolean;
  referenceId?: string;
};

/** Checks a create-message body. @throws FakeDiscordError like Discord. */
export function validateCreate(
  fake: FakeDiscordCore,
  channelId: string,
  body: Record<string, unknown>,
  fileCount: number,
): CreateInput {
  const content = validateContent(body.content);
  const embeds = validateEmbeds(body.embeds);
  if (content === "" && embeds.length === 0 && fileCount === 0) {
    throw new FakeDiscordError(400, 50006, "Cannot send an empty message");
  }
  const nonce = body.nonce === undefined ? undefined : String(body.nonce);
  if (nonce !== undefined && nonce.length > 25) {
    throw invalidForm("nonce", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.");
  }
  if (body.enforce_nonce === true && nonce === undefined) {
    throw invalidForm("nonce", "BASE_TYPE_REQUIRED", "This field is required");
  }
  const ref = body.message_reference as
    | { message_id?: string; channel_id?: string; fail_if_not_exists?: boolean }
    | undefined;
  let referenceId: string | undefined;
  if (ref?.message_id !== undefined) {
    const target = fake.stored.get(ref.message_id);
    const gone =
      !target ||
      target.channelId !== (ref.channel_id ?? channelId) ||
      fake.state.get(ref.message_id)?.deleted === true;
    if (gone && ref.fail_if_not_exists !== false) {
      throw invalidForm("message_reference", "REPLIES_UNKNOWN_MESSAGE", "Unknown message");
    }
    if (!gone) referenceId = ref.message_id;
  }
  return {
    content,
    embeds,
    enforceNonce: body.enforce_nonce === true,
    ...(nonce !== undefined ? { nonce } : {}),
    ...(referenceId !== undefined ? { referenceId } : {}),
  };
}

/** Checks an edit body (fields absent keep their value). */
export function validateEdit(
  body: Record<string, unknown>,
  stored: FakeStoredMessage,
): { content: string; embeds?: Embed[] } {
  const content =
    body.content === undefined ? String(stored.json.content ?? "") : validateContent(body.content);
  const embeds = body.embeds === undefined ? undefined : validateEmbeds(body.embeds);
  if (content === "" && (embeds ?? stored.embeds).length === 0 && stored.files.length === 0) {
    throw new FakeDiscordError(400, 50006, "Cannot send an empty message");
  }
  return { content, ...(embeds ? { embeds } : {}) };
}
