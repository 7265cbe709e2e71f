import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineChannelPlugin } from "./plugin.ts";
import { nonStrictObjectPaths } from "./strictConfig.ts";

const plugin = (configSchema: z.ZodType) => ({
  id: "demo",
  configSchema,
  createAdapter: () => {
    throw new Error("unused");
  },
});

describe("plugin config schemas refuse unknown keys", () => {
  it("names every object that would strip a typo, also nested and inside unions", () => {
    const schema = z.strictObject({
      a: z.object({ b: z.number() }).default({ b: 1 }),
      receive: z
        .discriminatedUnion("mode", [
          z.strictObject({ mode: z.literal("x") }),
          z.object({ mode: z.literal("y") }),
        ])
        .optional(),
      list: z.array(z.object({ c: z.string() })),
    });
    expect(nonStrictObjectPaths(schema)).toEqual(["a", "receive", "list"]);
    expect(() => defineChannelPlugin(plugin(schema))).toThrow(
      /configSchema accepts unknown keys at a, receive, list[\s\S]*z\.strictObject/,
    );
    expect(() => defineChannelPlugin(plugin(z.object({ x: z.string() })))).toThrow(/at \(root\)/);
  });

  it("accepts strict objects, and loose ones chosen on purpose", () => {
    const schema = z.strictObject({
      a: z.strictObject({ b: z.number().default(1) }).prefault({}),
      extra: z.looseObject({}).optional(),
      url: z.url().transform((u) => u),
    });
    expect(nonStrictObjectPaths(schema)).toEqual([]);
    expect(defineChannelPlugin(plugin(schema)).id).toBe("demo");
  });
});
