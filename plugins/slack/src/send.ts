/**
 * Sending, editing and deleting on Slack. One text unit is one `chat.postMessage`, with
 * `thread_ts` (always the root's, C25), `reply_broadcast` when asked, and `metadata` marking the
 * unit (origin + hashed key, see `origin.ts`) so reconciliation can find it. Edits are
 * `chat.update`, deletes `chat.delete`. File units are uploaded (`upload.ts`).
 *
 * Sources: https://docs.slack.dev/reference/methods/chat.postMessage,
 * https://docs.slack.dev/reference/methods/chat.update,
 * https://docs.slack.dev/reference/methods/chat.delete
 *
 * @module
 */
import type {
  MessageReceiptPart,
  MessageSendAdapter,
  MessageSendContext,
  RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import type { WebClient } from "@slack/web-api";
import type { SlackConfig } from "./config.ts";
import { classifyError, SlackAnswerError, SlackRenderError } from "./errors.ts";
import type { IdentityCell } from "./identity.ts";
import { unitMetadata } from "./origin.ts";
import type { SlackUnitPayload } from "./render.ts";
import {
  channelOf,
  messageRef,
  parseMessageRef,
  permalinkOf,
  placementOf,
  type SlackPlacement,
} from "./target.ts";
import type { Uploader } from "./upload.ts";

/**
 * When this process first dispatched each unit (epoch ms), so a reconciliation in the same
 * process reads history only from then on. Lost on restart: reconciliation then reads back to a
 * fence instead (see `reconcile.ts`).
 */
export class DispatchLog {
  readonly #first = new Map<string, number>();
  readonly #clock: () => number;
  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }
  static key(accountId: string | undefined, idempotencyKey: string, unit: number): string {
    return `${accountId ?? ""}|${idempotencyKey}#${unit}`;
  }
  /** Records a dispatch (the first one wins). */
  dispatched(accountId: string | undefined, idempotencyKey: string, unit: number): void {
    const key = DispatchLog.key(accountId, idempotencyKey, unit);
    if (!this.#first.has(key)) this.#first.set(key, this.#clock());
    if (this.#first.size > 10_000) {
      const oldest = this.#first.keys().next().value;
      if (oldest !== undefined) this.#first.delete(oldest);
    }
  }
  /** When the unit was first dispatched by this process, if it was. */
  firstDispatchAt(accountId: string | undefined, idempotencyKey: string, unit: number) {
    return this.#first.get(DispatchLog.key(accountId, idempotencyKey, unit));
  }
}

/** What the send adapter needs. */
export type SendDeps = {
  client: WebClient;
  /** The bot's identity (the workspace URL, for quote permalinks). */
  identity: IdentityCell;
  config: Pick<SlackConfig, "replyInThread" | "replyBroadcast">;
  dispatches: DispatchLog;
  uploader: Uploader;
  /** Secrets redacted from classified failure messages. */
  secrets: readonly string[];
};

/** The send adapter (see the module notes). */
export function createSend(deps: SendDeps): MessageSendAdapter {
  const { client, config, dispatches, uploader, secrets, identity } = deps;
  return {
    async send(ctx, unit) {
      const place = placementOf(ctx.message, config);
      const payload = unit.payload as SlackUnitPayload;
      const metadata = unitMetadata({
        accountId: ctx.accountId,
        idempotencyKey: ctx.idempotencyKey,
        unitIndex: unit.index,
        origin: ctx.message.origin,
      });
      dispatches.dispatched(ctx.accountId, ctx.idempotencyKey, unit.index);
      if (payload.type === "file") {
        const ts = await uploader.upload(ctx, place, payload);
        return partOf(place.channel, ts, unit, place.threadTs);
      }
      const content =
        payload.type === "image"
          ? {
              text: payload.comment ?? "",
              blocks: [
                { type: "image" as const, image_url: payload.url, alt_text: payload.altText },
              ],
            }
          : {
              text: payload.text,
              mrkdwn: true,
              ...(payload.blocks ? { blocks: payload.blocks as never[] } : {}),
            };
      const thread = place.threadTs
        ? { thread_ts: place.threadTs, ...(place.broadcast ? { reply_broadcast: true } : {}) }
        : {};
      const answer = await client.chat.postMessage({
        channel: place.channel,
        ...content,
        metadata,
        ...(thread as { thread_ts?: string; reply_broadcast?: false }),
        ...(unit.index === 0 ? await quoteOf(ctx, place, identity) : {}),
      });
      if (typeof answer.ts !== "string") {
        throw new SlackAnswerError("chat.postMessage", "a ts");
      }
      return partOf(answer.channel ?? place.channel, answer.ts, unit, place.threadTs);
    },

    async edit(ctx, target, unit) {
      const { channel, ts } = parseMessageRef(
        target.platformMessageId,
        channelOf(ctx.message.target),
      );
      const payload = unit.payload as SlackUnitPayload;
      if (payload.type !== "text") {
        throw new SlackRenderError("a Slack message cannot become a file or image: send it anew");
      }
      await client.chat.update({ channel, ts, text: payload.text });
      return { ...target, kind: unit.kind, index: unit.index };
    },

    async delete(ctx, target) {
      const { channel, ts } = parseMessageRef(
        target.platformMessageId,
        channelOf(ctx.message.target),
      );
      await client.chat.delete({ channel, ts });
    },

    classifyError: (error) => classifyError(error, secrets),
  };
}

/**
 * A `quote` reply's reference to the message it answers (the first part only): Slack has no reply
 * field, so it is the quoted message's permalink in an attachment, which Slack shows as a quote
 * card under the text (a message unfurl). The text itself is unchanged.
 */
async function quoteOf(
  ctx: MessageSendContext,
  place: SlackPlacement,
  identity: IdentityCell,
): Promise<{ attachments?: Array<{ fallback: string; from_url: string; ts: string }> }> {
  const relation = ctx.message.relation;
  if (relation?.kind !== "reply" || relation.placement !== "quote" || !relation.replyToId) {
    return {};
  }
  const me = await identity.get().catch(() => undefined);
  if (!me?.url) return {};
  const quoted = parseMessageRef(relation.replyToId, place.channel);
  const link = permalinkOf(me.url, quoted.channel, quoted.ts, place.threadTs);
  return { attachments: [{ fallback: link, from_url: link, ts: quoted.ts }] };
}

/** The receipt part of a posted unit. */
export function partOf(
  channel: string,
  ts: string,
  unit: Pick<RenderedMessageUnit, "kind" | "index">,
  threadTs: string | undefined,
): MessageReceiptPart {
  return {
    platformMessageId: messageRef(channel, ts),
    kind: unit.kind,
    index: unit.index,
    ...(threadTs !== undefined ? { threadId: threadTs } : {}),
  };
}

/** The context's thread placement, for callers outside the send path (live, reconcile). */
export function placementOfContext(
  ctx: MessageSendContext,
  config: Pick<SlackConfig, "replyInThread" | "replyBroadcast">,
) {
  return placementOf(ctx.message, config);
}
