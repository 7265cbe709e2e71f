/**
 * The traffic check end to end: a fake platform server created with a platform name has every
 * exchange validated against that platform's vendored description, and a divergence names the
 * operation and the JSON field path.
 */
import { FakePlatformServer, takeFakeTrafficViolations } from "@herald/plugin-sdk/testing";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { isAllowed } from "./allowList.ts";
import { description } from "./platforms.ts";

// Loading and compiling Discord's description takes seconds: not inside a test's budget.
beforeAll(() => Promise.all([description("discord"), description("googlechat")]), 120_000);

const servers: FakePlatformServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(platform: string, setup: (s: FakePlatformServer) => void): Promise<string> {
  const server = new FakePlatformServer({ platform });
  setup(server);
  servers.push(server);
  return server.listen();
}

const discordUser = {
  id: "1",
  username: "u",
  discriminator: "0",
  avatar: null,
  global_name: null,
  public_flags: 0,
  flags: 0,
  primary_guild: null,
};

describe("fake traffic checked against the published descriptions", () => {
  it("discord: an answer missing a required field names the operation and the field path", async () => {
    const url = await serve("discord", (s) =>
      s.route("GET", "/api/v10/users/@me", "read", (c) =>
        c.json({ ...discordUser, mfa_enabled: false, locale: 7 }),
      ),
    );
    await fetch(`${url}/api/v10/users/@me`);
    const found = takeFakeTrafficViolations();
    expect(found.map((v) => [v.operation, v.side, v.field, v.message])).toEqual([
      ["get_my_user", "response", "/locale", "must be string"],
    ]);
  });

  it("discord: a request body the platform rejects, accepted by the fake, is a divergence", async () => {
    const url = await serve("discord", (s) =>
      s.route("PATCH", "/api/v10/channels/:c/messages/:m", "edit", (c) => c.json({})),
    );
    await fetch(`${url}/api/v10/channels/1/messages/2`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: 42 }),
    });
    const request = takeFakeTrafficViolations().filter((v) => v.side === "request");
    expect(request[0]?.operation).toBe("update_message");
    expect(request[0]?.field).toBe("/body/content");
  });

  it("a request the fake refuses with a 4xx agrees with the platform: only the answer is checked", async () => {
    const url = await serve("googlechat", (s) =>
      s.route("POST", "/v1/spaces/:s/messages", "send", () => new Response("{}", { status: 400 })),
    );
    await fetch(`${url}/v1/spaces/AAA/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ txt: "typo" }),
    });
    const found = takeFakeTrafficViolations();
    expect(found.filter((v) => v.side === "request")).toEqual([]);
  });

  it("googlechat: a field the Message schema lacks is named (Google rejects unknown names)", async () => {
    const url = await serve("googlechat", (s) =>
      s.route("GET", "/v1/spaces/:s/messages/:m", "read", (c) =>
        c.json({ name: "spaces/AAA/messages/B", text: "hi", threadId: "x" }),
      ),
    );
    await fetch(`${url}/v1/spaces/AAA/messages/B`);
    expect(takeFakeTrafficViolations().map((v) => [v.operation, v.field, v.message])).toEqual([
      ["chat.spaces.messages.get", "", "must NOT have additional properties (threadId)"],
    ]);
  });

  it("a call the description does not have is a divergence", async () => {
    const url = await serve("discord", (s) =>
      s.route("GET", "/api/v10/not-discord", "read", (c) => c.json({})),
    );
    await fetch(`${url}/api/v10/not-discord`);
    const [v] = takeFakeTrafficViolations();
    expect(v?.message).toMatch(/no operation of the description/);
    expect(v && isAllowed(v)).toBe(false);
  });
});
