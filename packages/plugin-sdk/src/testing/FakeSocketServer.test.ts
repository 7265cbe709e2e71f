import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { FakeSocketServer } from "./FakeSocketServer.ts";

const servers: FakeSocketServer[] = [];
const clients: WebSocket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.terminate();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options?: ConstructorParameters<typeof FakeSocketServer>[0]) {
  const server = new FakeSocketServer(options);
  servers.push(server);
  await server.listen();
  return server;
}

function connect(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  clients.push(ws);
  const frames: unknown[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(String(data))));
  const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once("error", reject);
  });
  return { ws, frames, closed, opened };
}

describe("FakeSocketServer", () => {
  it("runs a scripted hello / identify exchange with a real ws client", async () => {
    const server = await start();
    server.onConnection((conn) => conn.send({ op: 10, d: { heartbeat_interval: 45_000 } }));
    const client = connect(`${server.url}/?v=10`);
    await client.opened;
    const conn = await server.nextConnection();
    expect(conn.url).toBe("/?v=10");
    client.ws.send(JSON.stringify({ op: 1, d: null }));
    client.ws.send(JSON.stringify({ op: 2, d: { token: "t" } }));
    expect(await conn.next((f) => (f as { op: number }).op === 2)).toEqual({
      op: 2,
      d: { token: "t" },
    });
    expect(conn.received).toEqual([
      { op: 1, d: null },
      { op: 2, d: { token: "t" } },
    ]);
    server.broadcast({ op: 0, t: "READY" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(client.frames).toEqual([
      { op: 10, d: { heartbeat_interval: 45_000 } },
      { op: 0, t: "READY" },
    ]);
  });

  it("waits for a frame that has not arrived yet, skipping ones that do not match", async () => {
    const server = await start();
    const client = connect(server.url);
    await client.opened;
    const conn = await server.nextConnection();
    const wanted = conn.next((f) => (f as { op: number }).op === 3);
    client.ws.send(JSON.stringify({ op: 1 }));
    client.ws.send(JSON.stringify({ op: 3 }));
    expect(await wanted).toEqual({ op: 3 });
    await expect(conn.next(() => true, 30)).rejects.toThrow("no matching frame within 30 ms");
  });

  it("drops a connection without a close frame (1006) and accepts the reconnect", async () => {
    const server = await start();
    const first = connect(server.url);
    await first.opened;
    const conn = await server.nextConnection();
    await conn.drop();
    expect(await first.closed).toBe(1006);
    const second = connect(server.url);
    await second.opened;
    expect((await server.nextConnection()).id).toBe(2);
    expect(server.openConnections.map((c) => c.id)).toEqual([2]);
  });

  it("closes with a platform close code", async () => {
    const server = await start();
    const client = connect(server.url);
    await client.opened;
    const conn = await server.nextConnection();
    expect(await conn.close(4004, "Authentication failed")).toEqual({
      code: 4004,
      reason: "Authentication failed",
    });
    expect(await client.closed).toBe(4004);
  });

  it("refuses handshakes: scripted, and by an authorize rule on the headers", async () => {
    const server = await start({
      authorize: (req) => (req.headers.authorization === "Bot good" ? true : 401),
    });
    server.rejectHandshakes(503);
    await expect(connect(server.url, { authorization: "Bot good" }).opened).rejects.toThrow(
      "HTTP 503",
    );
    await expect(connect(server.url, { authorization: "Bot bad" }).opened).rejects.toThrow(
      "HTTP 401",
    );
    await connect(server.url, { authorization: "Bot good" }).opened;
    expect(server.connections).toHaveLength(1);
  });
});
