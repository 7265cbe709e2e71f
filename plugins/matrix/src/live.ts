/**
 * Live behaviour on Matrix. Drafts need nothing here: herald sends a draft with the send path
 * and edits it with `m.replace` (each edit its own txnId, always relating to the original
 * event), at most one edit per `previewIntervalMs` per room (`capabilities.live.editRate`), and
 * finalizes it in place with an edit that is checked to be the one the homeserver shows (see
 * `send.ts`). This adds the typing notice — `PUT /rooms/{roomId}/typing/{userId}`, shown for
 * `timeout` ms or until stopped — and the preview policy (redact previews on cancel and after a
 * crash). In an encrypted room every draft edit is an encrypted event (the send path's).
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#put_matrixclientv3roomsroomidtypinguserid
 *
 * @module
 */
import type { MessageLiveAdapter, MessageSendContext } from "@herald/plugin-sdk/channel-message";
import { type MatrixHttp, seg } from "./client.ts";
import type { MatrixConfig } from "./config.ts";
import { roomIdOf } from "./send.ts";

/** How long one typing notice shows, in ms; refreshed well before it lapses. */
const TYPING_TIMEOUT_MS = 10_000;
const TYPING_CALL = "PUT /rooms/{roomId}/typing/{userId}";

/**
 * The live adapter. Without a known user id (an adapter built without `/whoami` and without
 * `config.userId`) there is no typing notice: its path names the user.
 */
export function createLive(
  http: MatrixHttp,
  config: Pick<MatrixConfig, "requestTimeoutMs">,
  userId: string | undefined,
): MessageLiveAdapter {
  const typing = async (ctx: MessageSendContext, on: boolean) => {
    const room = roomIdOf(ctx.message.target);
    await http.request("PUT", `/rooms/${seg(room)}/typing/${seg(userId as string)}`, TYPING_CALL, {
      body: on ? { typing: true, timeout: TYPING_TIMEOUT_MS } : { typing: false },
      signal: ctx.signal,
      timeoutMs: config.requestTimeoutMs,
    });
  };
  return {
    ...(userId
      ? {
          typing: {
            refreshMs: TYPING_TIMEOUT_MS - 2_000,
            start: (ctx) => typing(ctx, true),
            stop: (ctx) => typing(ctx, false),
          },
        }
      : {}),
    previews: { onCancel: "delete", onRecover: "delete" },
  };
}
