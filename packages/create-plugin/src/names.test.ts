// The names a new plugin gets from the one typed, and the typed refusals of bad names.
import { describe, expect, it } from "vitest";
import { CreatePluginError } from "./errors.ts";
import { pluginNames } from "./names.ts";

describe("pluginNames", () => {
  it("derives the folder, the plugin id and every spelling from a scoped package name", () => {
    expect(pluginNames("@me/herald-plugin-acme-chat")).toEqual({
      packageName: "@me/herald-plugin-acme-chat",
      folder: "herald-plugin-acme-chat",
      id: "acme-chat",
      pascal: "AcmeChat",
      camel: "acmeChat",
      upper: "ACME_CHAT",
    });
    expect(pluginNames("zulip")).toMatchObject({ folder: "zulip", id: "zulip", pascal: "Zulip" });
    expect(pluginNames("plugin-rocket2")).toMatchObject({ id: "rocket2", upper: "ROCKET2" });
  });

  it.each([
    ["Acme", /not an npm package name/],
    ["acme chat", /not an npm package name/],
    ["", /not an npm package name/],
    ["@scope/", /not an npm package name/],
    ["herald-plugin-9lives", /plugin id "9lives"/],
    ["acme_chat", /plugin id "acme_chat"/],
    ["acme.chat", /plugin id "acme.chat"/],
    ["acme--chat", /plugin id "acme--chat"/],
  ])("refuses %j with a bad_name error that says why", (name, message) => {
    const error = (() => {
      try {
        pluginNames(name);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(CreatePluginError);
    expect(error).toMatchObject({ problem: "bad_name", code: "HERALD_CREATE_BAD_NAME" });
    expect((error as Error).message).toMatch(message);
  });
});
