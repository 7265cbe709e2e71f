/**
 * [H23] Mutants of the features beyond text: bugs that really happen in adapters' reactions,
 * DMs, file uploads, buttons, ephemeral replies and history, each paired with the `features`
 * contract test that must catch it. Wrappers over a real adapter, so they run on any channel.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Mutant } from "./types.ts";

/** The feature mutants. */
export const FEATURE_MUTANTS: readonly Mutant[] = [
  {
    id: "reactions.repeat-toggles-off",
    kind: "reactions",
    description:
      "a repeated add toggles the reaction off (a toggle API, or 'already_reacted' answered with a remove)",
    killedBy: "features.reaction-replay-not-toggled",
    adapter(a) {
      const react = a.send.react;
      if (!react) return a;
      const seen = new Set<string>();
      return {
        ...a,
        send: {
          ...a.send,
          react: (ctx, request) => {
            const key = `${request.messageId}:${request.emoji}`;
            const repeat = !request.remove && seen.has(key);
            seen.add(key);
            return react.call(a.send, ctx, repeat ? { ...request, remove: true } : request);
          },
        },
      };
    },
  },
  {
    id: "reactions.remove-ignored",
    kind: "reactions",
    description: "removing a reaction answers success without calling the platform",
    killedBy: "features.reaction-add-remove",
    adapter(a) {
      const react = a.send.react;
      if (!react) return a;
      return {
        ...a,
        send: {
          ...a.send,
          react: async (ctx, request) =>
            request.remove ? undefined : react.call(a.send, ctx, request),
        },
      };
    },
  },
  {
    id: "dm.opened-as-group",
    kind: "direct-messages",
    description: "the opened DM is reported as a group conversation (mention rules then apply)",
    killedBy: "features.dm-open-idempotent",
    adapter(a) {
      const dm = a.directMessages;
      if (!dm) return a;
      return {
        ...a,
        directMessages: {
          open: async (ctx, request) => ({ ...(await dm.open(ctx, request)), kind: "group" }),
        },
      };
    },
  },
  {
    id: "files.key-per-attempt",
    kind: "files",
    description:
      "a file unit is posted with a fresh key on every attempt: the replay after a crash shows the file twice",
    killedBy: "features.files-crash-every-boundary",
    adapter(a) {
      const send = a.send;
      const run = randomUUID();
      return {
        ...a,
        send: {
          ...send,
          send: (ctx, unit) =>
            send.send.call(
              send,
              unit.kind === "media"
                ? { ...ctx, unitIdempotencyKey: `${ctx.unitIdempotencyKey}:${run}` }
                : ctx,
              unit,
            ),
        },
      };
    },
  },
  {
    id: "actions.click-id-per-delivery",
    kind: "actions",
    description:
      "a click's identity is taken per delivery (not the platform's click id): a redelivered click runs the handler twice",
    killedBy: "features.action-round-trip",
    adapter(a) {
      const receive = a.receive;
      if (!receive) return a;
      return {
        ...a,
        receive: {
          ...receive,
          async normalize(raw, ctx) {
            const result = await receive.normalize(raw, ctx);
            return "kind" in result && result.kind === "action"
              ? { ...result, id: randomUUID() }
              : result;
          },
        },
      };
    },
  },
  {
    id: "ephemeral.posted-publicly",
    kind: "ephemeral",
    description: "an ephemeral reply is posted as an ordinary message everyone sees",
    killedBy: "features.ephemeral",
    adapter(a) {
      if (!a.send.sendEphemeral) return a;
      const send = a.send;
      return {
        ...a,
        send: {
          ...send,
          sendEphemeral: (ctx, request) =>
            send.send.call(
              send,
              { ...ctx, message: { ...ctx.message, target: request.target } },
              request.unit,
            ),
        },
      };
    },
  },
  {
    id: "history.newest-first",
    kind: "history",
    description: "history is returned newest first (the platform's order), not oldest first",
    killedBy: "features.history",
    adapter(a) {
      const history = a.history;
      if (!history) return a;
      return {
        ...a,
        history: { list: async (ctx, query) => (await history.list(ctx, query)).reverse() },
      };
    },
  },
];
