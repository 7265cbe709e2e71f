/**
 * Property-based fuzzing of receive: malformed payloads (arbitrary values and mutations of valid
 * updates) interleaved with valid ones. → No crash; every malformed payload gets a typed error
 * and a dead letter; every valid one is processed.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HeraldError } from "../errors.ts";
import { ReceiveValidationError } from "./errors.ts";
import {
  createFakeTelegramAdapter,
  type TeleUpdate,
  teleUpdateSchema,
} from "./testing/fakeTelegram.ts";
import { receiveBench } from "./testing/harness.ts";

const MIN_MALFORMED = 5_000;
const tg = { channel: "telegram", accountId: "main" };

/** A valid update's variable parts; ids are assigned uniquely when the payload is built. */
const validShape = fc.record({
  chatType: fc.constantFrom("private", "group", "supergroup", "channel"),
  text: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
  fromId: fc.integer({ min: 1, max: 2 ** 40 }),
  thread: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: undefined }),
});

type Shape = typeof validShape extends fc.Arbitrary<infer T> ? T : never;

function build(shape: Shape, n: number): TeleUpdate {
  return {
    update_id: n,
    message: {
      message_id: n,
      chat: { id: -n, type: shape.chatType as TeleUpdate["message"]["chat"]["type"] },
      from: { id: shape.fromId, is_bot: false },
      ...(shape.text === undefined ? {} : { text: shape.text }),
      ...(shape.thread === undefined ? {} : { message_thread_id: shape.thread }),
    },
  };
}

/** Paths inside a valid update that a mutation may break. */
const paths = [
  ["update_id"],
  ["message"],
  ["message", "message_id"],
  ["message", "chat"],
  ["message", "chat", "id"],
  ["message", "chat", "type"],
  ["message", "from"],
  ["message", "from", "id"],
  ["message", "from", "is_bot"],
  ["message", "text"],
  ["message", "message_thread_id"],
];

const wrongValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.double(),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
  fc.constant(-1),
  fc.constant(1.5),
  fc.constant("x".repeat(5_000)),
);

/** A valid update with one field removed or replaced by a wrong value. */
const mutated = fc
  .tuple(validShape, fc.constantFrom(...paths), wrongValue, fc.boolean())
  .map(([shape, path, value, remove]) => {
    const u = structuredClone(build(shape, 1)) as unknown as Record<string, unknown>;
    let node = u;
    for (const p of path.slice(0, -1)) node = node[p] as Record<string, unknown>;
    const last = path[path.length - 1] as string;
    if (remove) delete node[last];
    else node[last] = value;
    return u as unknown;
  });

const malformed = fc
  .oneof(
    {
      weight: 2,
      arbitrary: fc.anything({ maxDepth: 3, withNullPrototype: true, withBigInt: true }),
    },
    { weight: 3, arbitrary: mutated },
    { weight: 1, arbitrary: fc.json().map((j) => j as unknown) },
  )
  .filter((x) => !teleUpdateSchema.safeParse(x).success);

const item = fc.oneof(
  { weight: 4, arbitrary: malformed.map((raw) => ({ kind: "malformed" as const, raw })) },
  { weight: 1, arbitrary: validShape.map((shape) => ({ kind: "valid" as const, shape })) },
);

describe("receive fuzzing", () => {
  it(`survives ≥ ${MIN_MALFORMED} malformed payloads interleaved with valid ones`, async () => {
    let malformedTotal = 0;
    let validTotal = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(item, { minLength: 60, maxLength: 120 }), async (items) => {
        const bench = receiveBench([createFakeTelegramAdapter()]);
        let n = 0;
        const payloads = items.map((i) =>
          i.kind === "valid" ? { ...i, raw: build(i.shape, ++n) } : i,
        );
        const outcomes = await Promise.all(
          payloads.map((p) => bench.runtime.receive(p.raw, tg).done),
        );
        const letters = await bench.store.listDeadLetters({ limit: 1_000 });
        const letterIds = new Set(letters.map((l) => l.id));
        payloads.forEach((p, i) => {
          const o = outcomes[i];
          if (p.kind === "malformed") {
            expect(o?.status).toBe("dead_lettered");
            if (o?.status !== "dead_lettered") return;
            expect(o.error).toBeInstanceOf(HeraldError);
            expect(o.error).toBeInstanceOf(ReceiveValidationError);
            expect((o.error as ReceiveValidationError).path).toMatch(/\S/);
            expect(letterIds.has(o.deadLetterId)).toBe(true);
          } else {
            expect(o?.status).toBe("processed");
          }
        });
        const malformedHere = payloads.filter((p) => p.kind === "malformed").length;
        expect(letters).toHaveLength(malformedHere);
        expect(bench.processed).toHaveLength(n);
        malformedTotal += malformedHere;
        validTotal += n;
        await bench.store.close();
      }),
      { numRuns: 75, seed: Number(process.env.HERALD_FUZZ_SEED ?? 4_242), endOnFailure: true },
    );
    expect(malformedTotal).toBeGreaterThanOrEqual(MIN_MALFORMED);
    console.info(`fuzz: ${malformedTotal} malformed and ${validTotal} valid payloads`);
  });
});
