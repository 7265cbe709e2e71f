/**
 * The guarded media fetch against a real HTTP server on 127.0.0.1. Refused addresses are refused
 * before any connection is made (a refused fetch to 10.0.0.1 would otherwise hang), names are
 * judged by the addresses they resolve to, and every redirect hop is judged again.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostResolver } from "./address-guard.ts";
import { isPublicAddress } from "./address-guard.ts";
import { fetchRemoteMedia, RemoteMediaError, type RemoteMediaOptions } from "./media-fetch.ts";

let server: Server;
let port = 0;
let hits = 0;
const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/image.png") {
      res.writeHead(200, { "content-type": "image/png" }).end(PNG);
    } else if (path === "/big-declared") {
      res.writeHead(200, { "content-length": "5000" }).end(Buffer.alloc(5000));
    } else if (path === "/big-chunked") {
      res.writeHead(200); // no content-length: counted as it arrives
      for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000));
      res.end();
    } else if (path === "/slow") {
      res.writeHead(200);
      res.write("x"); // and never ends
    } else if (path === "/to-loopback") {
      res.writeHead(302, { location: `http://127.0.0.1:${port}/image.png` }).end();
    } else if (path === "/to-localhost") {
      res.writeHead(301, { location: `http://localhost:${port}/image.png` }).end();
    } else if (path === "/to-same-host") {
      res.writeHead(307, { location: "/image.png" }).end();
    } else if (path === "/loop") {
      res.writeHead(302, { location: "/loop" }).end();
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** `media.test` is an internal media host on 127.0.0.1; `rebind.test` a public-looking name that resolves to it. */
const resolver: HostResolver = async (hostname) => {
  if (hostname === "media.test" || hostname === "rebind.test" || hostname === "localhost") {
    return [{ address: "127.0.0.1", family: 4 }];
  }
  if (hostname === "mixed.test") {
    return [
      { address: "93.184.216.34", family: 4 },
      { address: "10.1.2.3", family: 4 },
    ];
  }
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};
const internal = { resolver, allowedHosts: ["media.test"] };

async function failure(url: string, options: RemoteMediaOptions = {}, system = false) {
  try {
    await fetchRemoteMedia(url, system ? options : { resolver, ...options });
  } catch (error) {
    expect(error).toBeInstanceOf(RemoteMediaError);
    return error as RemoteMediaError;
  }
  throw new Error(`${url} was fetched`);
}

describe("fetchRemoteMedia refuses private addresses", () => {
  it.each([
    "http://127.0.0.1:PORT/image.png",
    "http://[::1]:PORT/image.png",
    "http://[::ffff:127.0.0.1]:PORT/image.png",
    "http://169.254.169.254/latest/meta-data/",
    "http://10.0.0.1/x",
    "http://172.16.0.1/x",
    "http://172.31.255.254/x",
    "http://192.168.1.1/x",
    "http://[fc00::1]/x",
    "http://[fd12:3456::1]/x",
    "http://[fe80::1]/x",
    "http://0.0.0.0:PORT/x",
    "http://2130706433:PORT/image.png", // 127.0.0.1 as one number
    "http://100.64.0.1/x",
  ])("%s, before connecting", async (template) => {
    const before = hits;
    const error = await failure(template.replace("PORT", String(port)));
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toContain("is not a public address");
    expect(hits).toBe(before);
  });

  it("refuses a name that resolves to loopback (checked on the resolved address)", async () => {
    const before = hits;
    const error = await failure(`http://rebind.test:${port}/image.png`);
    expect(error.reason).toBe("blocked_address");
    expect(error.message).toContain(
      "127.0.0.1 is not a public address (rebind.test resolves to it)",
    );
    expect(hits).toBe(before);
  });

  it("refuses localhost through the system resolver too", async () => {
    const error = await failure(`http://localhost:${port}/image.png`, {}, true);
    expect(error.reason).toBe("blocked_address");
  });

  it("refuses a name when any of its addresses is private", async () => {
    expect((await failure("http://mixed.test/x")).reason).toBe("blocked_address");
  });

  it("refuses a redirect to loopback from an allowed host, and to localhost", async () => {
    const before = hits;
    const toIp = await failure(`http://media.test:${port}/to-loopback`, internal);
    expect(toIp.reason).toBe("blocked_address");
    expect(toIp.url).toBe(`http://127.0.0.1:${port}/image.png`);
    const toName = await failure(`http://media.test:${port}/to-localhost`, internal);
    expect(toName.reason).toBe("blocked_address");
    expect(hits).toBe(before + 2); // the redirects were served, their targets never
  });

  it("refuses non-http URLs", async () => {
    expect((await failure("file:///etc/passwd")).reason).toBe("bad_url");
    expect((await failure("not a url")).reason).toBe("bad_url");
  });
});

describe("fetchRemoteMedia when allowed", () => {
  it("downloads from an allowed internal host, following a redirect on it", async () => {
    const media = await fetchRemoteMedia(`http://media.test:${port}/to-same-host`, internal);
    expect(Buffer.from(media.bytes).equals(PNG)).toBe(true);
    expect(media.contentType).toBe("image/png");
    expect(media.url).toBe(`http://media.test:${port}/image.png`);
  });

  it("downloads from loopback with allowPrivateNetworks", async () => {
    const media = await fetchRemoteMedia(`http://127.0.0.1:${port}/image.png`, {
      allowPrivateNetworks: true,
    });
    expect(media.bytes.byteLength).toBe(PNG.length);
  });

  it("caps the size by Content-Length and by what arrives", async () => {
    const opts = { ...internal, maxBytes: 4_000 };
    expect((await failure(`http://media.test:${port}/big-declared`, opts)).reason).toBe(
      "too_large",
    );
    expect((await failure(`http://media.test:${port}/big-chunked`, opts)).reason).toBe("too_large");
  });

  it("gives up after timeoutMs", async () => {
    const error = await failure(`http://media.test:${port}/slow`, { ...internal, timeoutMs: 100 });
    expect(error.reason).toBe("timeout");
  });

  it("stops after maxRedirects and names HTTP errors", async () => {
    const loop = await failure(`http://media.test:${port}/loop`, { ...internal, maxRedirects: 3 });
    expect(loop.reason).toBe("too_many_redirects");
    const missing = await failure(`http://media.test:${port}/missing`, internal);
    expect(missing).toMatchObject({ reason: "http_status", status: 404 });
    expect((await failure("http://nowhere.test/x")).reason).toBe("network");
  });
});

describe("isPublicAddress", () => {
  it("draws the range borders where the RFCs do", () => {
    for (const a of [
      "8.8.8.8",
      "172.15.255.255",
      "172.32.0.0",
      "192.169.0.1",
      "2001:4860:4860::8888",
    ]) {
      expect(isPublicAddress(a), a).toBe(true);
    }
    for (const a of [
      "127.8.9.10",
      "172.16.0.0",
      "169.254.0.1",
      "::",
      "::ffff:10.0.0.1",
      "fdff::1",
      "ff02::1",
      "64:ff9b::7f00:1",
      "nonsense",
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
  });
});
