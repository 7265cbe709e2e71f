/**
 * [H20] item 10 — `DeliveryPendingError` says what happened: an intent held for an operator
 * returns at once, and the error must not claim it waited `waitMs`.
 */
import { afterEach, expect, it } from "vitest";
import { DeliveryPendingError } from "../delivery/errors.ts";
import { deliveryHarness, type Harness } from "../delivery/testing/harness.ts";
import { outboundMessage } from "../testing/fixtures.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it("a held send reports that it is held, not that it waited 30000 ms", async () => {
  h = await deliveryHarness({ adapter: { unknownSendPolicy: "hold" } });
  h.platform.failNext({ type: "accept-then-drop" }, 1, "send");
  const error = await h.runtime.send(outboundMessage("hi")).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DeliveryPendingError);
  const pending = error as DeliveryPendingError;
  expect(pending.intent.status).toBe("unknown_after_send");
  expect(pending.waitedMs).toBeLessThan(30_000);
  expect(pending.message).not.toMatch(/after waiting 30000 ms/);
  expect(pending.message).toMatch(/held for an operator/);
  expect(pending.message).toContain(`herald queue retry ${pending.intent.id}`);
});
