/**
 * `waitMs` bounds the whole wait of `runtime.send`, the attempt it makes inline included: a
 * platform call (or a rate-limit wait) longer than `waitMs` ends the wait with
 * `DeliveryPendingError`, and the message is still delivered afterwards. Before, the inline
 * attempt was awaited first and `waitMs` only counted from its end.
 */
import { describe, expect, it } from "vitest";
import { DeliveryPendingError } from "../delivery/errors.ts";
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter, inProcessTransport } from "../testing/fakeAdapter.ts";
import { FakePlatform } from "../testing/fakePlatform.ts";
import { outboundMessage } from "../testing/fixtures.ts";

describe("runtime.send waitMs", () => {
  it("ends the wait while the inline attempt's platform call is still running", async () => {
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
          // The platform answers only when the test says so.
          transport: async (call) => {
            if (call.op === "send") await held;
            return direct(call);
          },
        }),
      ],
    });
    await runtime.start();
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
    await runtime.stop();
    await store.close();
  });
});
