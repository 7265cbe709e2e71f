import { describe, expect, it } from "vitest";
import { checkImport, type PackageInfo } from "./boundaries.ts";

const root = "/repo";
const plugin: PackageInfo = {
  name: "@herald/plugin-telegram",
  dir: "plugins/telegram",
  dependencies: ["grammy", "lodash"],
  devDependencies: ["vitest"],
  peerDependencies: ["@herald/plugin-sdk"],
  platformSdk: ["grammy"],
};
const core: PackageInfo = {
  name: "@herald/core",
  dir: "packages/core",
  dependencies: [],
  devDependencies: ["vitest"],
  peerDependencies: [],
  platformSdk: [],
};
const at = (pkg: PackageInfo, file: string, specifier: string) =>
  checkImport(pkg, { file, specifier }, root);

describe("dependency boundaries", () => {
  it("lets a plugin import the SDK, builtins and its own platform SDK", () => {
    expect(
      at(plugin, "plugins/telegram/src/send.ts", "@herald/plugin-sdk/channel-message"),
    ).toBeUndefined();
    expect(at(plugin, "plugins/telegram/src/send.ts", "grammy/types")).toBeUndefined();
    expect(at(plugin, "plugins/telegram/src/send.ts", "node:crypto")).toBeUndefined();
  });

  it("rejects a plugin importing core, the gateway or an undeclared SDK", () => {
    expect(at(plugin, "plugins/telegram/src/send.ts", "@herald/core")?.rule).toMatch(
      /only @herald\/plugin-sdk/,
    );
    expect(at(plugin, "plugins/telegram/src/send.ts", "@herald/gateway")?.rule).toMatch(
      /only apps/,
    );
    expect(at(plugin, "plugins/telegram/src/send.ts", "lodash")?.rule).toMatch(/platform SDK/);
  });

  it("allows devDependencies in tests only", () => {
    expect(at(plugin, "plugins/telegram/src/send.test.ts", "vitest")).toBeUndefined();
    expect(at(plugin, "plugins/telegram/src/send.ts", "vitest")).toBeDefined();
  });

  it("lets plugin tests and harnesses import the contract suite as a devDependency, nothing else of herald", () => {
    const example: PackageInfo = {
      ...plugin,
      name: "@herald/example-plugin-httpchat",
      dir: "examples/plugin-httpchat",
      devDependencies: ["@herald/plugin-qa-channel", "vitest"],
    };
    const suite = "@herald/plugin-qa-channel/contract";
    expect(at(example, "examples/plugin-httpchat/src/contract.test.ts", suite)).toBeUndefined();
    expect(at(example, "examples/plugin-httpchat/src/testing/harness.ts", suite)).toBeUndefined();
    expect(at(example, "examples/plugin-httpchat/src/index.ts", suite)?.rule).toMatch(
      /only @herald\/plugin-sdk/,
    );
    expect(at(example, "examples/plugin-httpchat/src/send.test.ts", "@herald/core")?.rule).toMatch(
      /only @herald\/plugin-sdk/,
    );
    expect(at(plugin, "plugins/telegram/src/contract.test.ts", suite)?.rule).toMatch(
      /only @herald\/plugin-sdk/,
    ); // not a devDependency of telegram
  });

  it("counts a DefinitelyTyped package as declaring its types-only module", () => {
    const sdk: PackageInfo = {
      ...core,
      name: "@herald/plugin-sdk",
      dir: "packages/plugin-sdk",
      dependencies: ["@types/mdast"],
    };
    expect(at(sdk, "packages/plugin-sdk/src/render.ts", "mdast")).toBeUndefined();
    expect(at(sdk, "packages/plugin-sdk/src/render.ts", "unist")?.rule).toMatch(/not declared/);
  });

  it("keeps core free of plugins and relative imports inside their package", () => {
    expect(at(core, "packages/core/src/index.ts", "@herald/plugin-telegram")?.rule).toMatch(
      /no other @herald/,
    );
    expect(at(core, "packages/core/src/a/b.ts", "../../../gateway/src/x.ts")?.rule).toMatch(
      /leaves packages\/core/,
    );
    expect(at(core, "packages/core/src/a/b.ts", "../c.ts")).toBeUndefined();
  });

  it("keeps core's flow one way: a module never imports a floor above its own", () => {
    // The nine climbs of [H27]: send and live read the turn scope, turns read receive's error info.
    expect(at(core, "packages/core/src/send/SendRuntime.ts", "../turn/scope.ts")?.rule).toMatch(
      /send\/ may not import turn\//,
    );
    expect(at(core, "packages/core/src/live/LiveApi.ts", "../turn/replies.ts")?.rule).toMatch(
      /live\/ may not import turn\//,
    );
    expect(at(core, "packages/core/src/turn/runTurn.ts", "../receive/errorInfo.ts")?.rule).toMatch(
      /turn\/ may not import receive\//,
    );
    expect(at(core, "packages/core/src/delivery/attempt.ts", "../send/conflict.ts")?.rule).toMatch(
      /delivery\/ may not import send\//,
    );
    // Down the flow, onto the base floor, and from composition roots and tests: allowed.
    expect(at(core, "packages/core/src/turn/runTurn.ts", "../send/SendRuntime.ts")).toBeUndefined();
    expect(
      at(core, "packages/core/src/send/SendRuntime.ts", "../context/scope.ts"),
    ).toBeUndefined();
    expect(at(core, "packages/core/src/context/replies.ts", "./scope.ts")).toBeUndefined();
    expect(at(core, "packages/core/src/runtime.ts", "./receive/ReceiveRuntime.ts")).toBeUndefined();
    expect(at(core, "packages/core/src/live/x.test.ts", "../turn/TurnRuntime.ts")).toBeUndefined();
    expect(
      at(core, "packages/core/src/live/testing/h.ts", "../../turn/TurnRuntime.ts"),
    ).toBeUndefined();
    // The base floor never reaches into the flow.
    expect(at(core, "packages/core/src/context/scope.ts", "../turn/types.ts")?.rule).toMatch(
      /context\/ may not import turn\//,
    );
  });
});
