/**
 * Mutants that need the QA channel's own internals (its client, config and delivery modes):
 * qa-channel runs them next to {@link CHANNEL_MUTANTS}.
 *
 * @module
 */
import { defineChannelMessageAdapter } from "@herald/plugin-sdk/channel-message";
import { QaClient } from "../../../client.ts";
import { QaApiError } from "../../../errors.ts";
import { createQaAdapter } from "../../../index.ts";
import { createSend } from "../../../send.ts";
import { type QaConnection, testConfig } from "../../harness.ts";
import { QA_PLATFORM_MAX_TEXT } from "../../platform/QaPlatform.ts";
import type { Mutant } from "./types.ts";

const qa = (connection: unknown) => connection as QaConnection;

/** Mutants of the QA adapter in its default (`idempotent`) delivery mode. */
export const QA_MUTANTS: readonly Mutant[] = [
  {
    id: "edit.not-modified-is-error",
    kind: "not-modified",
    description: 'an edit answered "not modified" (same text) is reported as a failure',
    killedBy: "classify.edit-not-modified",
    adapter: (a, connection) => {
      const c = qa(connection);
      const client = new QaClient({ baseUrl: c.baseUrl, token: c.token, timeoutMs: 5_000 });
      return {
        ...a,
        send: {
          ...a.send,
          edit: async (ctx, target, unit) => {
            const chat = ctx.message.target.nativeChannelId ?? ctx.message.target.id;
            const text = (unit.payload as { text: string }).text;
            const answer = await client.editMessage(chat, target.platformMessageId, { text });
            if (!answer.modified) {
              throw new QaApiError(
                "PATCH /chats/:chat_id/messages/:message_id",
                400,
                { code: "message_not_modified", description: "message is not modified" },
                undefined,
              );
            }
            return { ...target, kind: unit.kind, index: unit.index };
          },
        },
      };
    },
  },
  {
    id: "chunk.limit-above-platform-max",
    kind: "chunk-limit",
    description: "the adapter's default text limit is above the platform's real maximum",
    killedBy: "render.platform-max",
    adapter: (_a, connection) => {
      const c = qa(connection);
      return createQaAdapter(
        testConfig({ ...c, maxLength: (c.maxLength ?? QA_PLATFORM_MAX_TEXT) * 2 }),
        c.token,
      );
    },
  },
  {
    id: "keys.declared-but-not-sent",
    kind: "idempotency-key",
    description: "native idempotency is declared but no client key is sent: replays duplicate",
    killedBy: "unknown-send.reset-after-accept",
    adapter: (a, connection) => {
      const c = qa(connection);
      const client = new QaClient({ baseUrl: c.baseUrl, token: c.token, timeoutMs: 5_000 });
      return defineChannelMessageAdapter({ ...a, send: createSend(client, "at_least_once") });
    },
  },
];

/** Mutants of the QA adapter in `reconcile` delivery mode (exactly-once by lookup). */
export const QA_RECONCILE_MUTANTS: readonly Mutant[] = [
  {
    id: "reconcile.always-not-sent",
    kind: "reconcile",
    description: "the lookup of an unknown send always answers `not_sent`: the replay duplicates",
    killedBy: "unknown-send.reset-after-accept",
    adapter: (a) => ({
      ...a,
      send: { ...a.send, reconcileUnknownSend: async () => ({ status: "not_sent" }) },
    }),
  },
];
