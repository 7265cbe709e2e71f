/**
 * The call slots: FIFO, with the delivery worker's attempts leased ahead queued behind every
 * other caller, and waits that give up when their signal aborts.
 */
import { describe, expect, it } from "vitest";
import { CallSlots } from "./CallSlots.ts";

describe("CallSlots", () => {
  it("serves a waiter behind only once no other caller waits", async () => {
    const slots = new CallSlots(1);
    await slots.acquire();
    const order: string[] = [];
    const wait = (name: string, behind = false) =>
      slots.acquire({ behind }).then(() => order.push(name));
    const all = [wait("ahead-1", true), wait("live"), wait("ahead-2", true), wait("direct")];
    for (let i = 0; i < 4; i++) {
      slots.release();
      await Promise.resolve();
    }
    await Promise.all(all);
    expect(order).toEqual(["live", "direct", "ahead-1", "ahead-2"]);
    expect([slots.active, slots.waiting]).toEqual([1, 0]);
  });

  it("an aborted wait takes no slot and leaves the line: the slot goes to the next waiter", async () => {
    const slots = new CallSlots(1);
    await slots.acquire();
    const stop = new AbortController();
    const given = slots.acquire({ behind: true, signal: stop.signal });
    const next = slots.acquire({ behind: true });
    expect(slots.waiting).toBe(2);
    stop.abort();
    expect(await given).toBe(false);
    expect(slots.waiting).toBe(1);
    slots.release();
    expect(await next).toBe(true);
    slots.release();
    expect([slots.active, slots.waiting]).toEqual([0, 0]);
    // Already aborted: no slot, even a free one.
    expect(await slots.acquire({ signal: stop.signal })).toBe(false);
    expect(slots.active).toBe(0);
  });
});
