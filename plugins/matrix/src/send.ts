/**
 * Sending, editing and redacting on Matrix, each one `PUT` with a transaction id:
 * `PUT /rooms/{roomId}/send/m.room.message/{txnId}` and `PUT /rooms/{roomId}/redact/{eventId}/{txnId}`.
 *
 * **Transaction ids** (CASES C30, PLATFORMS.md §8): the txnId of a call is the SDK's
 * `platformKey` of the intent's id and the call's `unitIdempotencyKey` ({@link txnIdOf}) —
 * derived from the durable intent, which is stored before the first attempt, so it is the same
 * on every retry and after a restart, and different for every other call (each part, each edit,
 * each redaction, and every intent of another store; never a counter that restarts).
 * How long a homeserver remembers a txnId is server-specific (the spec states no retention):
 * Synapse a day, Dendrite 30–60 min in memory and nothing after its restart (config
 * `homeserver.kind`, docs/channels/matrix.md "What the real servers do").
 *
 * **Own events are found before any replay** (CASES C39): a unit whose outcome is unknown is
 * looked up by `unsigned.transaction_id` — which the homeserver returns only to the device that
 * sent the event — with `reconcileUnknownSend` (core calls it when the txnId is no longer
 * trusted), and every retried `send` (attempt 2 on) looks the same way before its `PUT`. A unit
 * found is committed with its event id; nothing is sent again.
 *
 * **Encrypted rooms** (`deps.e2ee`, docs/channels/matrix.md "Encryption"): sends and edits go
 * out as `PUT /rooms/{roomId}/send/m.room.encrypted/{txnId}`, encrypted by the account's Rust
 * crypto right before each attempt (a retry encrypts again; the same txnId still answers the
 * first event). The txnId and `unsigned.transaction_id` stay outside the ciphertext, so the
 * exactly-once rules above are unchanged; an edit's check reads the shown edit decrypted.
 * Redactions are never encrypted. Files in encrypted rooms throw `NotImplementedError`;
 * files elsewhere are uploaded and sent as their own events (`media.ts`).
 *
 * Event ids need their room: herald names an event with the ref `<roomId>:<eventId>`
 * (`composeRef`, colons inside the ids escaped).
 *
 * Edits are `m.replace` events that always target the **original** event (never an earlier
 * edit), carry the complete new content in `m.new_content`, and list in the top-level
 * `m.mentions` only users not mentioned before (C33); see {@link editContent}.
 *
 * Source: https://spec.matrix.org/latest/client-server-api/#put_matrixclientv3roomsroomidsendeventtypetxnid,
 * https://spec.matrix.org/latest/client-server-api/#event-replacements,
 * https://spec.matrix.org/latest/client-server-api/#threading
 *
 * @module
 */
import {
  composeRef,
  type MessageReceiptPart,
  type MessageSendAdapter,
  type MessageSendContext,
  type MessageTarget,
  parseRef,
  platformKey,
  quotedReplyId,
  type ReconcileResult,
  type RenderedMessageUnit,
  unitIdempotencyKey,
  utf8ByteLength,
} from "@herald/plugin-sdk/channel-message";
import { type MatrixHttp, seg } from "./client.ts";
import type { MatrixE2ee } from "./e2ee.ts";
import { editContent, sameContent, userIdsOf } from "./edit.ts";
import {
  classifyError,
  MatrixEditNotShownError,
  MatrixNetworkError,
  MatrixRenderError,
} from "./errors.ts";
import { type MatrixMediaPayload, mediaContent } from "./media.ts";
import { encodeOrigin, SENT_CONTENT_KEY } from "./origin.ts";
import { findOwnEvents } from "./ownEvents.ts";
import type { MatrixUnitPayload } from "./render.ts";
import { assertNoFiles, createRoomCrypto, type E2eeRef } from "./roomCrypto.ts";
import type { EncryptedRooms } from "./rooms.ts";

/**
 * Most `/messages` pages (of 100 events) a retry reads before its `PUT`: a lost answer's event is
 * among the bot's newest in the room, and a retry that does not find it still carries its txnId.
 * The full search (`homeserver.lookupMaxPages`) is `reconcileUnknownSend`'s.
 */
const PRE_REPLAY_LOOKUP_PAGES = 2;

/** Longest txnId this plugin sends (43 base62 characters hold all 256 bits of the key's hash). */
export const TXN_ID_LENGTH = 43;

/**
 * The transaction id of one platform call: `platformKey` of the durable intent's id and the
 * call's `unitIdempotencyKey`, base62. Both are stored with the intent before the first attempt,
 * so a retry — after a restart too — sends the same txnId (C30). The intent id (a UUID) makes it
 * unique across stores and processes: an idempotency key that repeats in a new store (a message
 * id from a counter that restarted, the n-th edit counted again from 1) names another unit, and
 * a reused txnId would silently get that other unit's event back for 24 h (PLATFORMS.md §8).
 * Sends and edits share the path `/send/m.room.message/{txnId}`, so an edit's key is namespaced
 * (`kind: "edit"`): a fresh send that replaces a failed edit of the same unit (core's
 * `freshSendOnEditNotFound`) can never be answered with the edit's event.
 *
 * @param intentId - `ctx.intentId`; absent for a non-durable call (then the unit key alone).
 * @example txnIdOf("0b9f…#0", "send", intent.id) // → 43 characters of [0-9A-Za-z], the same for every retry
 */
export function txnIdOf(
  unitIdempotencyKey: string,
  kind: "send" | "edit" = "send",
  intentId?: string,
): string {
  const unit = kind === "edit" ? `m.replace:${unitIdempotencyKey}` : unitIdempotencyKey;
  const key = intentId === undefined ? unit : `${intentId}|${unit}`;
  return platformKey(key, { maxLength: TXN_ID_LENGTH });
}

/** The room id of a target (`nativeChannelId` when set). */
export function roomIdOf(target: MessageTarget): string {
  return target.nativeChannelId ?? target.id;
}

/** herald's id of a Matrix event: the ref `<roomId>:<eventId>`. */
export function eventRef(roomId: string, eventId: string): string {
  return composeRef(roomId, eventId);
}

/**
 * Splits `<roomId>:<eventId>` (a bare `$eventId` belongs to `fallbackRoom`).
 * @throws MalformedRefError when the ref is malformed.
 * @throws MatrixRenderError when the id is not a Matrix event id (`$…`).
 */
export function parseEventRef(ref: string, fallbackRoom: string): { room: string; event: string } {
  const parsed = parseRef(ref, { fallbackContainer: fallbackRoom, label: "Matrix event ref" });
  if (!parsed.id.startsWith("$")) {
    throw new MatrixRenderError(`not a Matrix event id: ${JSON.stringify(parsed.id)}`);
  }
  return { room: parsed.container, event: parsed.id };
}

/** The thread root event id of a send: the target's thread, else the reply relation's. */
export function threadRootOf(ctx: MessageSendContext, room: string): string | undefined {
  const { target, relation } = ctx.message;
  const thread = target.threadId ?? (relation?.kind === "reply" ? relation.threadId : undefined);
  if (thread === undefined || thread === "") return undefined;
  return threadRootOfRef(thread, room);
}

/**
 * The event the message's reply quotes (`m.in_reply_to`): only for placement `quote`, the
 * default. Asked as for part 0 — `relationOf` decides which parts carry it.
 */
function replyToOf(ctx: MessageSendContext, room: string): string | undefined {
  const replyToId = quotedReplyId(ctx, { index: 0 });
  return replyToId ? parseEventRef(replyToId, room).event : undefined;
}

/**
 * The latest message-like event herald knows in `thread` before unit `index` — what the thread
 * fallback's `m.in_reply_to` points at (spec "Threading", fallback for clients without threads;
 * PLATFORMS.md §9): the previous part of this message, else the message answered when it is in
 * the thread, else the root.
 */
export function latestInThreadOf(
  ctx: MessageSendContext,
  room: string,
  thread: string,
  index: number,
): string {
  const previous = index > 0 ? ctx.previousReceipt?.parts.at(-1)?.platformMessageId : undefined;
  if (previous !== undefined) return parseEventRef(previous, room).event;
  const { relation } = ctx.message;
  if (relation?.kind === "reply" && relation.replyToId) {
    const answered = parseEventRef(relation.replyToId, room).event;
    const inThread =
      answered === thread ||
      (relation.threadId !== undefined && threadRootOfRef(relation.threadId, room) === thread);
    if (inThread) return answered;
  }
  return thread;
}

function threadRootOfRef(ref: string, room: string): string {
  return ref.startsWith("$") ? ref : parseEventRef(ref, room).event;
}

/**
 * The `m.relates_to` of a unit: in a thread, `m.thread` on the root with the reply fallback
 * (`is_falling_back: true` and `m.in_reply_to` the latest event herald knows in the thread —
 * `latest`, the root when not given — or the quoted event for a quoting reply); outside
 * threads, `m.in_reply_to` on the first unit of a quoting reply.
 */
export function relationOf(
  thread: string | undefined,
  replyTo: string | undefined,
  index: number,
  latest?: string,
): Record<string, unknown> | undefined {
  if (thread) {
    const quoting = replyTo !== undefined && index === 0;
    return {
      rel_type: "m.thread",
      event_id: thread,
      is_falling_back: !quoting,
      "m.in_reply_to": { event_id: quoting ? replyTo : (latest ?? thread) },
    };
  }
  if (replyTo && index === 0) return { "m.in_reply_to": { event_id: replyTo } };
  return undefined;
}

/** What a receipt part remembers for later edits (stored as `part.raw`). */
export type MatrixPartMemo = {
  /** Every user any version of the event mentioned (for the next edit's `m.mentions`). */
  mentions: string[];
};

function memoOf(part: MessageReceiptPart): MatrixPartMemo {
  const raw = part.raw as Partial<MatrixPartMemo> | undefined;
  return { mentions: Array.isArray(raw?.mentions) ? raw.mentions.map(String) : [] };
}

/** What the send adapter needs. */
export type SendDeps = {
  http: MatrixHttp;
  rooms: EncryptedRooms;
  /** Budget of one event's content in UTF-8 bytes (`maxContentBytes`). */
  maxContentBytes: number;
  /** Redacted from classified failure messages. */
  accessToken: string;
  /**
   * How often a losing final edit is sent again (see {@link MatrixSend.edit}). @defaultValue 3
   */
  maxEditResends?: number;
  /**
   * The bot's user id: its own events are looked up by `unsigned.transaction_id` before a replay.
   * Absent (an adapter built before `/whoami`): no lookup, replays rely on the txnId alone.
   */
  userId?: string | undefined;
  /** Most `/messages` pages read per lookup of own events. @defaultValue 10 */
  lookupMaxPages?: number;
  /**
   * The account's encryption engine (`encryption` configured): events to encrypted rooms are
   * encrypted and sent as `m.room.encrypted`. Absent: encrypted rooms are refused.
   */
  e2ee?: E2eeRef | undefined;
};

type EventAnswer = { event_id?: unknown };

/**
 * The event id of a send's answer.
 * @throws MatrixNetworkError (reason `bad_response`, maybe sent) when the answer has none: the
 *   homeserver may have stored the event, so the call is replayed with the same txnId, which
 *   returns it — never a permanent failure of a message that may be in the room.
 */
function eventIdOf(answer: EventAnswer, call: string): string {
  if (typeof answer?.event_id !== "string" || !answer.event_id.startsWith("$")) {
    throw new MatrixNetworkError(call, new SyntaxError(`${call} answered without an event_id`));
  }
  return answer.event_id;
}

const SEND_CALL = "PUT /rooms/{roomId}/send/m.room.message/{txnId}";
const SEND_ENCRYPTED_CALL = "PUT /rooms/{roomId}/send/m.room.encrypted/{txnId}";
/** The most bytes of an event the homeserver takes (the spec's 65,536 less the envelope). */
const EVENT_BYTES = 64_000;
const REDACT_CALL = "PUT /rooms/{roomId}/redact/{eventId}/{txnId}";
const EVENT_CALL = "GET /rooms/{roomId}/event/{eventId}";

/**
 * The send adapter. `send` posts one `m.room.message` per unit; `edit` posts an `m.replace` and
 * then checks that it is the edit the homeserver shows (a final edit that lost the ordering —
 * same `origin_server_ts`, smaller event id — is sent again, strictly later); `delete` redacts.
 */
export function createSend(deps: SendDeps): MessageSendAdapter {
  const { http, rooms, maxContentBytes, accessToken, userId } = deps;
  const crypto = createRoomCrypto(rooms, deps.e2ee);
  const maxEditResends = deps.maxEditResends ?? 3;
  const lookupMaxPages = deps.lookupMaxPages ?? 10;

  /** The txnId of unit `index` of the intent (the same as its send used). */
  const unitTxnId = (ctx: MessageSendContext, index: number) =>
    txnIdOf(unitIdempotencyKey(ctx.idempotencyKey, index), "send", ctx.intentId);

  /** The receipt part of a unit, whether just sent or found. */
  const partFor = (
    ctx: MessageSendContext,
    room: string,
    unit: RenderedMessageUnit,
    eventId: string,
  ) => {
    const thread = threadRootOf(ctx, room);
    const replyTo = replyToOf(ctx, room);
    const relation = relationOf(thread, replyTo, unit.index);
    const payload = unit.payload as MatrixUnitPayload;
    return partOf(room, eventId, unit, thread, relation ? replyTo : undefined, {
      mentions: payload.mentions,
    });
  };

  /** The newest event of the intent that landed before (an earlier part): the lookup's bound. */
  const boundOf = (ctx: MessageSendContext, room: string): string | undefined => {
    const last = ctx.previousReceipt?.parts.at(-1)?.platformMessageId;
    if (last === undefined) return undefined;
    try {
      return parseEventRef(last, room).event;
    } catch {
      return undefined;
    }
  };

  /**
   * One `PUT …/send/{type}/{txnId}`: `m.room.message`, or — with `e2ee`, the engine of an
   * encrypted room — `m.room.encrypted` with the content encrypted (a retry encrypts again; the
   * same txnId still answers the first event). The txnId stays outside the ciphertext, so the
   * reconciliation by `unsigned.transaction_id` is the same in both.
   */
  const put = async (
    ctx: MessageSendContext,
    room: string,
    txnId: string,
    content: Record<string, unknown>,
    e2ee?: MatrixE2ee,
  ): Promise<string> => {
    const bytes = utf8ByteLength(JSON.stringify(content));
    if (bytes > maxContentBytes) {
      throw new MatrixRenderError(
        `event content is ${bytes} bytes, over maxContentBytes ${maxContentBytes} (M_TOO_LARGE before sending)`,
      );
    }
    let type = "m.room.message";
    let body = content;
    if (e2ee) {
      ({ type, content: body } = await e2ee.encrypt(room, type, content));
      const sealed = utf8ByteLength(JSON.stringify(body));
      if (sealed > EVENT_BYTES) {
        throw new MatrixRenderError(
          `encrypted event content is ${sealed} bytes, over the homeserver's ${EVENT_BYTES} (lower maxContentBytes for encrypted rooms)`,
        );
      }
    }
    const call = e2ee ? SEND_ENCRYPTED_CALL : SEND_CALL;
    const path = `/rooms/${seg(room)}/send/${seg(type)}/${seg(txnId)}`;
    const answer = await http.request<EventAnswer>("PUT", path, call, {
      body,
      signal: ctx.signal,
    });
    return eventIdOf(answer, call);
  };

  /**
   * The original event as the homeserver shows it: its bundled `m.replace` (the edit shown, if
   * any) and every user the original and that edit mention (`m.mentions.user_ids`).
   */
  const readOriginal = async (
    ctx: MessageSendContext,
    room: string,
    original: string,
  ): Promise<{ shown?: { eventId: string; newContent: unknown }; mentioned: string[] }> => {
    const event = await http.request<{
      type?: string;
      content?: Record<string, unknown>;
      unsigned?: Record<string, unknown>;
    }>("GET", `/rooms/${seg(room)}/event/${seg(original)}`, EVENT_CALL, { signal: ctx.signal });
    const relations = event?.unsigned?.["m.relations"] as Record<string, unknown> | undefined;
    const replace = relations?.["m.replace"] as
      | { event_id?: unknown; type?: unknown; content?: Record<string, unknown> }
      | undefined;
    // In an encrypted room both are m.room.encrypted: read them decrypted.
    const replaceContent = await crypto.clearContent(room, replace);
    const newContent = replaceContent?.["m.new_content"] as Record<string, unknown> | undefined;
    const originalContent = await crypto.clearContent(room, event);
    const mentioned = [...userIdsOf(originalContent), ...userIdsOf(newContent)];
    if (typeof replace?.event_id !== "string") return { mentioned };
    return { shown: { eventId: replace.event_id, newContent }, mentioned };
  };

  /**
   * Who any earlier version of `original` mentioned: the receipt's memo, and — when this edit
   * would ping someone the memo does not know (an edit given an older receipt, another
   * process's) — what the homeserver shows. A failed read leaves the memo (logged).
   */
  const mentionedBefore = async (
    ctx: MessageSendContext,
    room: string,
    original: string,
    memo: string[],
    mentions: readonly string[],
  ): Promise<string[]> => {
    if (mentions.every((u) => memo.includes(u))) return memo;
    try {
      const { mentioned } = await readOriginal(ctx, room, original);
      return [...new Set([...memo, ...mentioned])];
    } catch (error) {
      ctx.log.warn(
        { err: classifyError(error, [accessToken]).message },
        "matrix: could not read the edited event's mentions; using the receipt's",
      );
      return memo;
    }
  };

  /**
   * The event id of this device's event with `txnId`, when a lookup finds it; `undefined` when
   * not found or the lookup failed (logged: the replay then relies on the txnId, as before).
   */
  const lookBeforeReplay = async (
    ctx: MessageSendContext,
    room: string,
    txnId: string,
    me: string,
  ): Promise<string | undefined> => {
    try {
      const { found } = await findOwnEvents(http, {
        roomId: room,
        userId: me,
        txnIds: [txnId],
        maxPages: Math.min(lookupMaxPages, PRE_REPLAY_LOOKUP_PAGES),
        bound: boundOf(ctx, room),
        signal: ctx.signal,
      });
      const eventId = found.get(txnId);
      if (eventId !== undefined) {
        ctx.log.info(
          { roomId: room, eventId, attempt: ctx.attempt },
          "matrix: a retried unit was already in the room (unsigned.transaction_id): committed, not sent again",
        );
      }
      return eventId;
    } catch (error) {
      ctx.log.warn(
        { roomId: room, err: classifyError(error, [accessToken]).message },
        "matrix: could not look for an earlier attempt's event before a retry; replaying with the same txnId",
      );
      return undefined;
    }
  };

  return {
    async send(ctx, unit) {
      const room = roomIdOf(ctx.message.target);
      const payload = unit.payload as MatrixUnitPayload | MatrixMediaPayload;
      const thread = threadRootOf(ctx, room);
      const replyTo = replyToOf(ctx, room);
      const e2ee = await crypto.forRoom(ctx, room);
      if (e2ee) assertNoFiles(ctx, room);
      const txnId = txnIdOf(ctx.unitIdempotencyKey, "send", ctx.intentId);
      if (ctx.attempt > 1 && userId !== undefined) {
        // A retry: an earlier attempt may have landed although its answer was lost, and the
        // homeserver may have forgotten the txnId since (C39). Look before sending again.
        const earlier = await lookBeforeReplay(ctx, room, txnId, userId);
        if (earlier !== undefined) return partFor(ctx, room, unit, earlier);
      }
      const latest = thread ? latestInThreadOf(ctx, room, thread, unit.index) : undefined;
      const relation = relationOf(thread, replyTo, unit.index, latest);
      const body =
        payload.type === "media"
          ? await mediaContent(http, ctx, room, payload, e2ee !== undefined)
          : payload.content;
      const content: Record<string, unknown> = {
        ...body,
        "m.mentions": { user_ids: payload.mentions },
        ...(relation ? { "m.relates_to": relation } : {}),
        ...encodeOrigin(ctx.message.origin),
        [SENT_CONTENT_KEY]: { v: 1 },
      };
      const eventId = await put(ctx, room, txnId, content, e2ee);
      return partOf(room, eventId, unit, thread, relation ? replyTo : undefined, {
        mentions: payload.mentions,
      });
    },

    /**
     * Replaces `target` (always the original event of the part) with `unit`. After the
     * homeserver accepts the replacement, the original is read back: if the edit it shows is
     * neither this one nor one with the same new content (two edits with one
     * `origin_server_ts`, ordered by event id), the edit is sent again with the next txnId —
     * strictly later — up to `maxEditResends` times.
     *
     * @throws MatrixEditNotShownError when another edit is still shown after the resends
     *   (`not_found`: a live final then goes out fresh, and the draft is redacted after it).
     */
    async edit(ctx, target, unit) {
      const { room, event: original } = parseEventRef(
        target.platformMessageId,
        roomIdOf(ctx.message.target),
      );
      const payload = unit.payload as MatrixUnitPayload;
      const e2ee = await crypto.forRoom(ctx, room);
      const before = await mentionedBefore(
        ctx,
        room,
        original,
        memoOf(target).mentions,
        payload.mentions,
      );
      const content = editContent(original, payload, before, maxContentBytes);
      let edit = await put(
        ctx,
        room,
        txnIdOf(ctx.unitIdempotencyKey, "edit", ctx.intentId),
        content,
        e2ee,
      );
      for (let resend = 0; ; resend++) {
        const { shown } = await readOriginal(ctx, room, original);
        if (!shown || shown.eventId === edit || sameContent(shown.newContent, content)) break;
        if (resend === maxEditResends) {
          throw new MatrixEditNotShownError(original, shown.eventId, maxEditResends);
        }
        const again = `${ctx.unitIdempotencyKey}#resend${resend + 1}`;
        edit = await put(ctx, room, txnIdOf(again, "edit", ctx.intentId), content, e2ee);
      }
      const mentions = [...new Set([...before, ...payload.mentions])];
      return {
        ...target,
        kind: unit.kind,
        index: unit.index,
        raw: { mentions } satisfies MatrixPartMemo,
      };
    },

    async delete(ctx, target) {
      const { room, event } = parseEventRef(target.platformMessageId, roomIdOf(ctx.message.target));
      const path = `/rooms/${seg(room)}/redact/${seg(event)}/${seg(txnIdOf(ctx.unitIdempotencyKey, "send", ctx.intentId))}`;
      await http.request<EventAnswer>("PUT", path, REDACT_CALL, {
        body: { [SENT_CONTENT_KEY]: { v: 1 } },
        signal: ctx.signal,
      });
    },

    ...(userId !== undefined
      ? {
          /**
           * Finds the missing units of an in-doubt send by `unsigned.transaction_id` (C39):
           * every one found → `sent`; the rest proven absent (room start or an earlier part
           * reached) → `sent` with those found, or `not_sent`; else `unresolved` (core checks
           * again later, then applies `unknownSendPolicy`: never a blind replay).
           */
          async reconcileUnknownSend(ctx, units): Promise<ReconcileResult> {
            const room = roomIdOf(ctx.message.target);
            const byTxn = new Map(units.map((u) => [unitTxnId(ctx, u.index), u]));
            const { found, complete, pages } = await findOwnEvents(http, {
              roomId: room,
              userId,
              txnIds: [...byTxn.keys()],
              maxPages: lookupMaxPages,
              bound: boundOf(ctx, room),
              signal: ctx.signal,
            });
            const parts = [...byTxn]
              .filter(([txnId]) => found.has(txnId))
              .map(([txnId, unit]) => partFor(ctx, room, unit, found.get(txnId) as string));
            if (parts.length === units.length || (complete && parts.length > 0)) {
              return { status: "sent", parts };
            }
            if (complete) return { status: "not_sent" };
            return {
              status: "unresolved",
              reason: `${units.length - parts.length} unit(s) not among the bot's events in the newest ${pages} page(s) of the room (homeserver.lookupMaxPages)`,
            };
          },
        }
      : {}),

    classifyError: (error) => classifyError(error, [accessToken]),
  };
}

function partOf(
  room: string,
  eventId: string,
  unit: RenderedMessageUnit,
  thread: string | undefined,
  replyTo: string | undefined,
  memo: MatrixPartMemo,
): MessageReceiptPart {
  return {
    platformMessageId: eventRef(room, eventId),
    kind: unit.kind,
    index: unit.index,
    raw: memo,
    ...(thread !== undefined ? { threadId: thread } : {}),
    ...(replyTo !== undefined ? { replyToId: eventRef(room, replyTo) } : {}),
  };
}
