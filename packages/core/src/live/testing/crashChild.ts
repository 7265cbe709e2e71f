/**
 * Child process of the live crash tests: a real runtime on a SQLite file, streaming a live
 * message to a fake platform served by the parent over HTTP. An armed failpoint SIGKILLs it;
 * the parent then starts it again in phase `recover`.
 *
 * Usage: node crashChild.ts '<json config>'
 * - phase "stream": opens a session, streams two previews (the text passes `maxLength`), then
 *   finalizes (`fresh`: a new message; `in_place`: edits the previews) unless killed first;
 * - phase "recover": starts the runtime (recovery runs) and waits until no live session and
 *   no final is left unfinished, then exits 0.
 *
 * @module
 */
import { createMessageRuntime } from "../../runtime.ts";
import { SqliteStateStore } from "../../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter } from "../../testing/fakeAdapter.ts";
import { httpTransport } from "../../testing/fakePlatformServer.ts";
import { scaledMs } from "../../testing/timeScale.ts";

type Config = {
  storePath: string;
  platformUrl: string;
  phase: "stream" | "recover";
  finalize: "fresh" | "in_place";
  onRecover: "delete" | "keep";
  workerId: string;
};

const config = JSON.parse(process.argv[2] ?? "{}") as Config;
const store = new SqliteStateStore({ path: config.storePath });
const runtime = createMessageRuntime({
  store,
  adapters: [
    createFakeAdapter({
      transport: httpTransport(config.platformUrl),
      reconcile: true,
      maxLength: 20,
      live: { editRate: { limit: 1, intervalMs: 20 } },
    }),
  ],
  delivery: {
    workerId: config.workerId,
    // The live session's lease is the delivery lease, renewed every third of it: an event loop
    // held longer than that on a busy machine let this process's own recovery (every 30 ms)
    // take its live session mid-stream and delete the previews. Scaled by the time knob.
    leaseMs: scaledMs(500),
    pollIntervalMs: 5,
    backoff: { baseMs: 10, maxMs: 40, maxAttempts: 20 },
  },
  live: { recoveryIntervalMs: 30 },
});
await runtime.start();

const until = async (done: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + scaledMs(15_000);
  while (!(await done())) {
    if (Date.now() > deadline) {
      console.error(`timed out waiting for ${what}`);
      process.exit(2);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
};

if (config.phase === "stream") {
  const live = await runtime.live(
    { channel: "qa", target: { kind: "direct", id: "dm-1" } },
    {
      idempotencyKey: "reply:crash",
      onRecover: config.onRecover,
      ...(config.finalize === "fresh" ? { staleAfterMs: 0 } : {}),
    },
  );
  const texts = [
    "Hello there, this",
    "Hello there, this is a long",
    "Hello there, this is a long answer",
  ];
  for (const text of texts) {
    live.update(text);
    await new Promise((r) => setTimeout(r, 40));
    await live.idle();
  }
  await live.finalize("Hello there, this is a long answer.");
} else {
  await until(async () => {
    const unsent = await store.listIntents({
      statuses: ["pending", "sending", "committing", "unknown_after_send"],
      limit: 100,
    });
    return unsent.length === 0;
  }, "recovery to finish every live session and final");
}
await runtime.stop();
await store.close();
