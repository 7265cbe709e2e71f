/**
 * Sending, editing and deleting on the QA platform, and reconciling sends whose outcome is
 * unknown (by client key). One unit is one platform message.
 *
 * @module
 */

import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import type {
  MessageReceiptPart,
  MessageSendAdapter,
  MessageSendContext,
  MessageTarget,
  RenderedMessageUnit,
} from "@herald/plugin-sdk/channel-message";
import {
  quotedReplyId,
  reconcileEachUnit,
  unitIdempotencyKey,
} from "@herald/plugin-sdk/channel-message";
import type { QaClient } from "./client.ts";
import type { QaDeliveryMode } from "./config.ts";
import { classifyError } from "./errors.ts";
import { encodeOrigin } from "./origin.ts";
import type { QaUnitFile, QaUnitPayload } from "./render.ts";
import type { QaWireMessage } from "./wire.ts";

/** The QA chat id of a target (`nativeChannelId` when a DM has its own channel id). */
export function chatIdOf(target: MessageTarget): string {
  return target.nativeChannelId ?? target.id;
}

/** The thread a message goes to: the target's, else the reply relation's. */
export function threadIdOf(ctx: MessageSendContext): string | undefined {
  const { target, relation } = ctx.message;
  return target.threadId ?? (relation?.kind === "reply" ? relation.threadId : undefined);
}

function textOf(unit: RenderedMessageUnit): string {
  return (unit.payload as QaUnitPayload).text;
}

/**
 * The platform file id of a media unit: its `platformFileId`, else a fresh upload of its local
 * file, streamed from disk. A replay after a crash between the upload and the post uploads again
 * (an unreferenced file, never shown) and posts with the same client key: shown once.
 */
async function fileIdOf(client: QaClient, file: QaUnitFile, signal: AbortSignal): Promise<string> {
  if (file.platformFileId !== undefined) return file.platformFileId;
  if (file.path === undefined)
    throw new TypeError("a QA media unit needs a path or a platformFileId");
  const body = Readable.toWeb(createReadStream(file.path)) as ReadableStream<Uint8Array>;
  const uploaded = await client.upload({ name: file.name, mimeType: file.mimeType, body }, signal);
  return uploaded.id;
}

function partOf(message: QaWireMessage, unit: RenderedMessageUnit): MessageReceiptPart {
  return {
    platformMessageId: message.id,
    kind: unit.kind,
    index: unit.index,
    ...(message.thread_id !== undefined ? { threadId: message.thread_id } : {}),
    ...(message.reply_to_id !== undefined ? { replyToId: message.reply_to_id } : {}),
  };
}

/**
 * The send adapter.
 *
 * @param delivery - `idempotent` / `reconcile` send a client key (`unitIdempotencyKey`);
 *   `reconcile` adds `reconcileUnknownSend`.
 */
export function createSend(client: QaClient, delivery: QaDeliveryMode): MessageSendAdapter {
  const sendsKey = delivery === "idempotent" || delivery === "reconcile";
  const adapter: MessageSendAdapter = {
    async send(ctx, unit) {
      const { origin } = ctx.message;
      const thread = threadIdOf(ctx);
      // `reply_to_id`: part 0 under placement `quote`, the default (the QA platform has no
      // broadcast: a `broadcast` reply is in the thread only).
      const replyTo = quotedReplyId(ctx, unit);
      const metadata = encodeOrigin(origin);
      const payload = unit.payload as QaUnitPayload;
      const fileId = payload.file ? await fileIdOf(client, payload.file, ctx.signal) : undefined;
      const { message } = await client.postMessage(
        chatIdOf(ctx.message.target),
        {
          text: textOf(unit),
          ...(fileId !== undefined ? { file_id: fileId } : {}),
          ...(payload.buttons ? { buttons: payload.buttons } : {}),
          ...(thread !== undefined ? { thread_id: thread } : {}),
          ...(replyTo !== undefined ? { reply_to_id: replyTo } : {}),
          ...(sendsKey ? { client_key: ctx.unitIdempotencyKey } : {}),
          ...(metadata ? { metadata } : {}),
        },
        ctx.signal,
      );
      return partOf(message, unit);
    },
    async edit(ctx, target, unit) {
      // Identical text answers `modified: false`: success, nothing changed.
      await client.editMessage(
        chatIdOf(ctx.message.target),
        target.platformMessageId,
        { text: textOf(unit) },
        ctx.signal,
      );
      return { ...target, kind: unit.kind, index: unit.index };
    },
    async delete(ctx, target) {
      await client.deleteMessage(
        chatIdOf(ctx.message.target),
        target.platformMessageId,
        ctx.signal,
      );
    },
    // A repeat answers `changed: false` (already there / already gone): success, never a toggle.
    async react(ctx, request) {
      await client.react(
        chatIdOf(request.target),
        request.messageId,
        request.emoji,
        request.remove === true,
        ctx.signal,
      );
    },
    async sendEphemeral(ctx, request) {
      const payload = request.unit.payload as QaUnitPayload;
      const { message_id } = await client.postEphemeral(
        chatIdOf(request.target),
        {
          user_id: request.userId,
          text: payload.text,
          ...(payload.buttons ? { buttons: payload.buttons } : {}),
        },
        ctx.signal,
      );
      return { platformMessageId: message_id, kind: request.unit.kind, index: request.unit.index };
    },
    classifyError: (error) => classifyError(error),
  };
  if (delivery === "reconcile") {
    adapter.reconcileUnknownSend = async (ctx, units) => {
      const chat = chatIdOf(ctx.message.target);
      return reconcileEachUnit(units, async (unit) => {
        const key = unitIdempotencyKey(ctx.idempotencyKey, unit.index);
        const [message] = await client.findMessages(chat, { client_key: key }, ctx.signal);
        return message ? partOf(message, unit) : undefined;
      });
    };
  }
  return adapter;
}
