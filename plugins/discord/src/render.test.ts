/**
 * Rendering limits on Discord (C17) and mentions, asserted on what the fake shows and stores.
 */
import { describe, expect, it } from "vitest";
import { EMBED_LIMITS, embedSize, packEmbeds } from "./embeds.ts";
import { withDiscordOptions } from "./render.ts";
import { openBench } from "./testing/bench.ts";

describe("C17 · one long line, a long fence, two big embeds", () => {
  it("every chunk ≤ 2000, the fence closed and re-opened with its language, embeds split into messages, never a 400", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    const fence = `\`\`\`ts\n${"const a = 1;\n".repeat(231)}\`\`\``;
    expect(fence.length).toBeGreaterThan(3000);
    const markdown = `${"x".repeat(4349)}\n\n${fence}`;
    const big = (n: number) => ({ title: `embed ${n}`, description: "d".repeat(4000) });
    await b.runtime.enqueue(
      withDiscordOptions(b.message(target, markdown), { embeds: [big(1), big(2)] }),
      { idempotencyKey: "c17" },
    );
    const intent = await b.settled("c17");
    expect(intent.status).toBe("sent");
    const shown = b.fake.messages(channel.id);
    for (const m of shown) expect(m.text.length).toBeLessThanOrEqual(2000);
    // The x's come back whole, in order.
    const xs = shown.map((m) => m.text.match(/x+/g)?.join("") ?? "").join("");
    expect(xs).toBe("x".repeat(4349));
    const fenced = shown.filter((m) => m.text.includes("const a"));
    expect(fenced.length).toBeGreaterThan(1);
    for (const m of fenced) {
      expect(m.text.slice(m.text.indexOf("```")).startsWith("```ts\n")).toBe(true);
      expect(m.text.match(/```/g)?.length).toBe(2);
      expect(m.text.trimEnd().endsWith("```")).toBe(true);
    }
    // Two 4000-character embeds exceed 6000 together: they travel in two messages.
    const withEmbeds = [...b.fake.stored.values()].filter((s) => s.embeds.length > 0);
    expect(withEmbeds.map((s) => s.embeds.length)).toEqual([1, 1]);
    expect(b.fake.server.calls.filter((c) => c.outcome !== "ok 200")).toEqual([]);
  });

  it("splits a description over 4096, fields over 25, values over 1024, and cuts long titles", () => {
    const groups = packEmbeds([
      {
        title: "t".repeat(300),
        description: "word ".repeat(2000),
        fields: Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, value: "v".repeat(1500) })),
        footer: { text: "footer" },
      },
    ]);
    const embeds = groups.flat();
    for (const group of groups) {
      expect(group.length).toBeLessThanOrEqual(EMBED_LIMITS.perMessage);
      expect(group.reduce((n, e) => n + embedSize(e), 0)).toBeLessThanOrEqual(EMBED_LIMITS.total);
    }
    for (const e of embeds) {
      expect(e.title?.length ?? 0).toBeLessThanOrEqual(EMBED_LIMITS.title);
      expect(e.description?.length ?? 0).toBeLessThanOrEqual(EMBED_LIMITS.description);
      expect(e.fields?.length ?? 0).toBeLessThanOrEqual(EMBED_LIMITS.fields);
      for (const f of e.fields ?? [])
        expect(f.value.length).toBeLessThanOrEqual(EMBED_LIMITS.fieldValue);
    }
    expect(embeds[0]?.title?.endsWith("…")).toBe(true);
    expect(
      embeds
        .map((e) => e.description ?? "")
        .join("")
        .replace(/\s+/g, " ")
        .trim(),
    ).toBe("word ".repeat(2000).trim());
    const values = embeds.flatMap((e) => e.fields ?? []).filter((f) => f.name.startsWith("f0"));
    expect(values.map((f) => f.value).join("")).toBe("v".repeat(1500));
    expect(embeds.at(-1)?.footer?.text).toBe("footer");
  });
});

describe("mentions", () => {
  it("model text never pings @everyone, @here or a role; allowed_mentions says so too", async () => {
    const b = await openBench();
    const { channel, target } = b.channel();
    await b.runtime.send(b.message(target, "hey @everyone and @here, <@&123456> and <@42>"));
    const [shown] = b.fake.messages(channel.id);
    expect(shown?.text).not.toMatch(/@everyone|@here|<@&123456>/);
    expect(shown?.text).toContain("<@42>");
    const [request] = b.fake.requests;
    expect(request?.body.allowed_mentions).toEqual({ parse: ["users"], replied_user: false });
  });

  it("a configured role may ping, and allowed_mentions names it", async () => {
    const b = await openBench({ config: { mentions: { roles: ["123456"] } } });
    const { channel, target } = b.channel();
    await b.runtime.send(b.message(target, "ping <@&123456>"));
    expect(b.fake.messages(channel.id)[0]?.text).toContain("<@&123456>");
    expect(b.fake.requests[0]?.body.allowed_mentions).toEqual({
      parse: ["users"],
      roles: ["123456"],
      replied_user: false,
    });
  });
});
