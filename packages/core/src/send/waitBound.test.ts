/**
 * `waitMs` bounds the whole wait of `runtime.send` and of a live `finalize`, the attempt each
 * makes inline included: a platform call (or a rate-limit wait) longer than `waitMs` ends the
 * wait with `DeliveryPendingError`, and the message is still delivered afterwards. Before, the
 * inline attempt was awaited first and `waitMs` only counted from its end. `waitMs: 0` returns
 * at once after the durable write.
 */
import { afterEach, describe, expect, it } from "vitest";
import { DeliveryPendingError } from "../delivery/errors.ts";
import { createMessageRuntime, type MessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";

type Setup = {
  platform: FakePlatform;
  store: SqliteStateStore;
  runtime: MessageRuntime;
  /** Lets the held sends answer. */
  release(): void;
};
let current: Setup | undefined;
afterEach(async () => {
  current?.release();
  await current?.runtime.stop();
  await current?.store.close();
  current = undefined;
});

/** A started runtime whose platform answers sends only once `release()` is called (if `hold`). */
async function runtimeWith(hold: boolean): Promise<Setup> {
  const platform = new FakePlatform();
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const direct = inProcessTransport(platform);
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [
      createFakeAdapter({
        transport: async (call) => {
          if (hold && call.op === "send") await held;
          return direct(call);
        },
      }),
    ],
  });
  await runtime.start();
  current = { platform, store, runtime, release };
  return current;
}

describe("runtime.send waitMs", () => {
  it("ends the wait while the inline attempt's platform call is still running", async () => {
    const { platform, store, runtime, release } = await runtimeWith(true);
    const error = await runtime
      .send(outboundMessage("slow platform"), { waitMs: 100 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    expect(platform.messages).toHaveLength(0);
    const [intent] = await store.listIntents();
    expect(intent?.status).toBe("sending");
    release();
    await expect.poll(async () => (await store.listIntents())[0]?.status).toBe("sent");
    expect(platform.visible().map((m) => m.text)).toEqual(["slow platform"]);
  });

  it("waitMs 0: DeliveryPendingError right after the durable write; the message is delivered", async () => {
    const { platform, store, runtime } = await runtimeWith(false);
    const error = await runtime
      .send(outboundMessage("at once"), { waitMs: 0 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryPendingError);
    await expect.poll(async () => (await store.listIntents())[0]?.status).toBe("sent");
    expect(platform.visible().map((m) => m.text)).toEqual(["at once"]);
  });

  it("live finalize: ends its wait while the final's inline send is still running", async () => {
    const { platform, runtime, release } = await runtimeWith(true);
    const m = outboundMessage("x");
    const live = await runtime.live({ channel: m.channel, target: m.target }, { waitMs: 100 });
    // A valve: the platform answers after 3 s whatever happens, so a finalize that waits for the
    // platform resolves (sent) instead of hanging the test — and fails the assertion.
    const valve = setTimeout(release, 3_000);
    const outcome = await live.finalize("final text").then(
      (r) => ({ resolved: r }),
      (e: unknown) => ({ rejected: e }),
    );
    clearTimeout(valve);
    expect(outcome).toEqual({ rejected: expect.any(DeliveryPendingError) });
    release();
    await expect.poll(() => platform.visible().map((v) => v.text)).toEqual(["final text"]);
  });
});
