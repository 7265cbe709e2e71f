/**
 * Chat SDK's adapter vs herald's plugin, per channel, under one schedule on herald's fake of
 * that platform (`fakes.ts`): the platform's documented limits enforced (429s), every 10th
 * accepted send answered with a connection reset (the message is visible, the sender does not
 * know), and the sender process SIGKILLed once half the messages are visible, then started
 * again. Counted on the fake per payload id.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Child, kill, startChild, until } from "../proc.ts";
import { startPlatform } from "./fakes.ts";
import type { ChatChannel, SenderConfig } from "./schedule.ts";

/** One sender's results on one channel. */
export type ChatResult = {
  channel: ChatChannel;
  sender: string;
  delivered: number;
  lost: number;
  duplicated: number;
  /** 429 answers to sends. */
  rateLimited: number;
  /** 429 answers to other calls (Slack's history reads). */
  otherRateLimited: number;
  wallMs: number;
  /** What the sender itself reported at the end (herald: held for an operator). */
  own: Record<string, number>;
  /** Set when the run could not finish (the reason). */
  error?: string;
};

/** Every n-th accepted send is reset (10 %). */
const RESET_EVERY = 10;
/**
 * Longest wait for half the messages, then for the restarted sender's answer, in ms. Slack's
 * reconciliation reads history once a minute (its documented budget), so a run with n lost
 * answers takes about n minutes there.
 */
const PHASE_TIMEOUT_MS = 1_200_000;

const herald = fileURLToPath(new URL("./heraldSender.ts", import.meta.url));
const chatSdk = fileURLToPath(new URL("./chatSdkSender.ts", import.meta.url));
type Sender = { script: string; herald?: Record<string, unknown> };

/** The senders compared per channel: herald with the plugin's defaults (and opt-ins), then Chat SDK. */
const SENDERS: Record<ChatChannel, Record<string, Sender>> = {
  telegram: {
    "herald, plugin defaults (hold)": { script: herald },
    'herald, reconcile: "probe"': { script: herald, herald: { reconcile: "probe" } },
    'herald, unknownSendPolicy: "at_least_once"': {
      script: herald,
      herald: { unknownSendPolicy: "at_least_once" },
    },
    "Chat SDK (chat + @chat-adapter/telegram)": { script: chatSdk },
  },
  slack: {
    "herald, plugin defaults (reconcile by history, then hold)": { script: herald },
    "Chat SDK (chat + @chat-adapter/slack)": { script: chatSdk },
  },
  discord: {
    "herald, plugin defaults (nonce + enforce_nonce)": { script: herald },
    "Chat SDK (chat + @chat-adapter/discord)": { script: chatSdk },
  },
  googlechat: {
    "herald, plugin defaults (requestId + messageId)": { script: herald },
    "Chat SDK (chat + @chat-adapter/gchat)": { script: chatSdk },
  },
};

async function runSender(
  channel: ChatChannel,
  sender: string,
  o: { count: number; chats: number; dir: string },
): Promise<ChatResult> {
  const platform = await startPlatform(channel, o.chats, RESET_EVERY);
  const stateDir = mkdtempSync(join(o.dir, "sender-"));
  try {
    const { script, herald: options } = SENDERS[channel][sender] as Sender;
    const config: SenderConfig = {
      ...platform.connection,
      ...(options ? { herald: options } : {}),
      count: o.count,
      stateDir,
    };
    const t0 = Date.now();
    let child: Child = startChild(script, config);
    const half = await until(
      () => platform.visibleTexts().length >= o.count / 2,
      PHASE_TIMEOUT_MS,
      20,
    );
    if (half) {
      await kill(child);
      child = startChild(script, config);
    }
    let own: Record<string, number> = {};
    let error: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<string>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer in ${PHASE_TIMEOUT_MS / 60_000} min`)),
          PHASE_TIMEOUT_MS,
        );
      });
      own = JSON.parse(await Promise.race([child.firstLine, timeout])) as Record<string, number>;
    } catch (e) {
      error = String(e);
    } finally {
      clearTimeout(timer);
    }
    await kill(child);
    const wallMs = Date.now() - t0;
    const seen = new Map<string, number>();
    for (const text of platform.visibleTexts()) {
      const id = text.trim();
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    let delivered = 0;
    let duplicated = 0;
    for (let i = 0; i < o.count; i++) {
      const n = seen.get(`t${i}`) ?? 0;
      if (n > 0) delivered += 1;
      if (n > 1) duplicated += n - 1;
    }
    return {
      channel,
      sender,
      delivered,
      lost: o.count - delivered,
      duplicated,
      rateLimited: platform.rateLimited().sends,
      otherRateLimited: platform.rateLimited().other,
      wallMs,
      own,
      ...(error ? { error } : {}),
    };
  } finally {
    await platform.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Every sender of every channel in `o.channels`, one after the other, each on a fresh fake. */
export async function runChat(
  o: { count: number; chats: number; dir: string; channels: readonly ChatChannel[] },
  log: (line: string) => void,
): Promise<ChatResult[]> {
  const results: ChatResult[] = [];
  for (const channel of o.channels) {
    for (const sender of Object.keys(SENDERS[channel])) {
      log(`  ${channel} / ${sender}: ${o.count} messages…`);
      results.push(await runSender(channel, sender, o));
    }
  }
  return results;
}
