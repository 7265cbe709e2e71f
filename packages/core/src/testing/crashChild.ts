/**
 * Child-process entry of the store crash tests. Opens a store through a module exporting
 * `openStore(location)`, runs one scenario, and is expected to die on an armed failpoint.
 *
 * Usage: `node crashChild.ts <storeModuleUrl> <location> <scenario> <arg>`
 *
 * @module
 */
import type { MessageStateStore } from "../state/MessageStateStore.ts";
import { newIntent, outboundMessage } from "./fixtures.ts";

const [storeModule, location, scenario, arg = ""] = process.argv.slice(2);
if (!storeModule || !location || !scenario)
  throw new Error("usage: crashChild <module> <location> <scenario>");

const mod = (await import(storeModule)) as {
  openStore(location: string): Promise<MessageStateStore>;
};
const store = await mod.openStore(location);

switch (scenario) {
  case "enqueue-batch": {
    // One transaction of 50 intents; the failpoint kills the process in the middle of it.
    const intents = Array.from({ length: 50 }, (_, i) =>
      newIntent(outboundMessage(`crash ${i}`), { idempotencyKey: `${arg}-${i}` }),
    );
    await store.enqueueIntents(intents);
    break;
  }
  case "transition-batch": {
    const pending = await store.listIntents({ statuses: ["pending"], limit: 1000 });
    await store.transitionIntents(
      pending.map((p) => ({ id: p.id, from: "pending" as const, to: "sending" as const })),
    );
    break;
  }
  case "commit-then-die": {
    await store.enqueueIntents([newIntent(outboundMessage("durable"), { idempotencyKey: arg })]);
    process.stdout.write("committed\n");
    process.kill(process.pid, "SIGKILL");
    break;
  }
  case "group-commit-then-die": {
    // 20 enqueues called in one tick (one group commit where the store groups); each one that
    // resolves reports itself and calls a transition, and the process dies in the callback of
    // the 5th resolved transition — or of the last enqueue, when a store with a connection pool
    // resolved 5 transitions before its last enqueues —, while later writes are still queued or
    // in flight. Every reported write must be on disk.
    let transitions = 0;
    let enqueued = 0;
    const dieWhenDue = () => {
      if (transitions >= 5 && enqueued === 20) process.kill(process.pid, "SIGKILL");
    };
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const key = `${arg}-${i}`;
        const [r] = await store.enqueueIntents([
          newIntent(outboundMessage(`g ${i}`), { idempotencyKey: key }),
        ]);
        process.stdout.write(`enqueued ${key}\n`);
        enqueued += 1;
        dieWhenDue();
        const id = r?.intent.id ?? "";
        await store.transitionIntents([{ id, from: "pending", to: "cancelled" }]);
        process.stdout.write(`cancelled ${key}\n`);
        transitions += 1;
        dieWhenDue();
      }),
    );
    break;
  }
  default:
    throw new Error(`unknown scenario ${scenario}`);
}
await store.close();
