/**
 * Chat SDK's Telegram adapter vs herald's Telegram plugin under one schedule on herald's fake
 * Bot API: Telegram's limits enforced (30/s per bot, 1/s per chat, 20/min per group: 429 with
 * `retry_after`), every 10th accepted send answered with a connection reset (the message is
 * visible, the sender does not know), and the sender process SIGKILLed once half the messages
 * are visible, then started again. Counted on the fake per payload id.
 *
 * @module
 */
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FAKE_BOT, FakeTelegram } from "@herald/plugin-telegram/testing";
import { type Child, kill, startChild, until } from "../proc.ts";
import type { SenderConfig } from "./schedule.ts";

/** One sender's results. */
export type ChatResult = {
  sender: string;
  delivered: number;
  lost: number;
  duplicated: number;
  rateLimited: number;
  wallMs: number;
  /** What the sender itself reported at the end (herald: held for an operator). */
  own: Record<string, number>;
  /** Set when the run could not finish (the reason). */
  error?: string;
};

const herald = fileURLToPath(new URL("./heraldSender.ts", import.meta.url));
const chatSdk = fileURLToPath(new URL("./chatSdkSender.ts", import.meta.url));
/** The senders compared: herald with the plugin's defaults and two opt-ins, then Chat SDK. */
const SENDERS: Record<string, { script: string; herald?: SenderConfig["herald"] }> = {
  "herald, plugin defaults (hold)": { script: herald },
  'herald, reconcile: "probe"': { script: herald, herald: { reconcile: "probe" } },
  'herald, unknownSendPolicy: "at_least_once"': {
    script: herald,
    herald: { unknownSendPolicy: "at_least_once" },
  },
  "Chat SDK (chat + @chat-adapter/telegram)": { script: chatSdk },
};

async function runSender(
  sender: string,
  count: number,
  chats: number,
  dir: string,
): Promise<ChatResult> {
  const fake = await FakeTelegram.start({
    limits: { perBotPerSecond: 30, perChatPerSecond: 1, perGroupPerMinute: 20 },
  });
  const stateDir = mkdtempSync(join(dir, "sender-"));
  try {
    const chatIds = Array.from({ length: chats }, () => fake.createChat({ type: "private" }).id);
    fake.resetEveryNthAcceptedSend(10);
    const { script, herald: options } = SENDERS[sender] as (typeof SENDERS)[string];
    const config: SenderConfig = {
      ...(options ? { herald: options } : {}),
      apiRoot: fake.apiRoot,
      token: FAKE_BOT.token,
      chatIds,
      count,
      stateDir,
    };
    const visible = () => chatIds.flatMap((id) => fake.messages(id, { authorId: FAKE_BOT.id }));
    const t0 = Date.now();
    let child: Child = startChild(script, config);
    const half = await until(() => visible().length >= count / 2, 300_000, 20);
    if (half) {
      await kill(child);
      child = startChild(script, config);
    }
    let own: Record<string, number> = {};
    let error: string | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      const timeout = new Promise<string>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no answer in 5 min")), 300_000);
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
    for (const m of visible()) seen.set(m.text, (seen.get(m.text) ?? 0) + 1);
    let delivered = 0;
    let duplicated = 0;
    for (let i = 0; i < count; i++) {
      const n = seen.get(`t${i}`) ?? 0;
      if (n > 0) delivered += 1;
      if (n > 1) duplicated += n - 1;
    }
    return {
      sender,
      delivered,
      lost: count - delivered,
      duplicated,
      rateLimited: fake.limiter?.rateLimited ?? 0,
      wallMs,
      own,
      ...(error ? { error } : {}),
    };
  } finally {
    await fake.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Both senders, one after the other, each on a fresh fake. */
export async function runChat(
  o: { count: number; chats: number; dir: string },
  log: (line: string) => void,
): Promise<ChatResult[]> {
  const results: ChatResult[] = [];
  for (const sender of Object.keys(SENDERS)) {
    log(`  ${sender}: ${o.count} messages…`);
    results.push(await runSender(sender, o.count, o.chats, o.dir));
  }
  return results;
}
