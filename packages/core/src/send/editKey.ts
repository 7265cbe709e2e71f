/**
 * The default key of an edit (DESIGN §3 "Keys"): edits of one message are numbered
 * (`editKey(…, n)`). A call that asks for what the latest edit asked for is a retry of it and
 * reuses its key (nothing is edited twice); any other content takes the next number, so an edit
 * back to an earlier text (A → B → A) is a new edit and never returns the older edit's receipt.
 *
 * @module
 */
import type { DurableSendIntent, IntentOperation } from "../message/intent.ts";
import { editKey } from "../message/keys.ts";
import type { ChannelMessage } from "../message/message.ts";
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { assertSameRequest } from "./conflict.ts";

type EditOperation = Extract<IntentOperation, { kind: "edit" }>;

/** True when `intent` asks for the same edit as `message` (a retry of it). */
export function sameEdit(
  intent: DurableSendIntent,
  message: ChannelMessage,
  operation: EditOperation,
): boolean {
  try {
    assertSameRequest(intent, message, operation);
    return true;
  } catch {
    return false;
  }
}

/**
 * The number of the latest edit stored for the message (0 when none), found in O(log n)
 * lookups: edits are numbered 1, 2, … without gaps, so it gallops up, then bisects.
 */
async function latestEdit(
  store: Pick<MessageStateStore, "getIntentByIdempotencyKey">,
  key: (n: number) => string,
): Promise<{ n: number; intent: DurableSendIntent | undefined }> {
  let lo = 0;
  let found: DurableSendIntent | undefined;
  let hi = 1;
  for (;;) {
    const intent = await store.getIntentByIdempotencyKey(key(hi));
    if (!intent) break;
    lo = hi;
    found = intent;
    hi *= 2;
  }
  // lo exists (or is 0), hi does not.
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const intent = await store.getIntentByIdempotencyKey(key(mid));
    if (intent) {
      lo = mid;
      found = intent;
    } else hi = mid;
  }
  return { n: lo, intent: found };
}

/**
 * The default key for `operation` on `message`: the latest edit's key when it asks for the same
 * content, else the next edit number.
 */
export async function defaultEditKey(
  store: Pick<MessageStateStore, "getIntentByIdempotencyKey">,
  message: ChannelMessage,
  operation: EditOperation,
): Promise<string> {
  const key = (n: number) => editKey(message, operation.receipt, n);
  const latest = await latestEdit(store, key);
  if (latest.intent && sameEdit(latest.intent, message, operation)) return key(latest.n);
  return key(latest.n + 1);
}
