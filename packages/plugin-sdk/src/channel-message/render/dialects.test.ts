import { describe, expect, it } from "vitest";
import { renderCommonMark, renderGoogleChat } from "./commonmark.ts";
import { discordMentions, renderDiscord } from "./discord.ts";
import { parseMarkdown } from "./markdown.ts";
import { renderMatrix, renderMatrixHtml } from "./matrix.ts";
import { extractMentions } from "./mention.ts";
import { renderSlack, slackMentions } from "./slack.ts";
import { bodyTree, literalTree } from "./tree.ts";

const md = (s: string) => parseMarkdown(s);
const ZWSP = "\u200b";

describe("Slack mrkdwn", () => {
  it("escapes & < > exactly once and writes its own links and marks", () => {
    expect(renderSlack(md("**Deploy** <b>x</b> & &amp; [docs](https://e.x/a?b=1&c=2)"))).toBe(
      "*Deploy* &lt;b&gt;x&lt;/b&gt; &amp; &amp; <https://e.x/a?b=1&amp;c=2|docs>",
    );
    // A typed "&amp;" is text: it shows as typed, so its & is escaped once more.
    expect(renderSlack(literalTree("&amp; <@U1>"))).toBe("&amp;amp; &lt;@U1&gt;");
  });

  it("keeps mentions found in the text and renders broadcasts only when allowed", () => {
    const tree = extractMentions(
      md("hi <@U123>, <#C9|general> and <!here> & **<@W7>**"),
      slackMentions,
    );
    expect(renderSlack(tree)).toBe("hi <@U123>, <#C9> and @here &amp; *<@W7>*");
    expect(renderSlack(tree, { allowMentions: { everyone: true } })).toContain("<!here>");
  });

  it("never links an unsafe URL and never passes raw HTML", () => {
    expect(renderSlack(md("[x](javascript:alert(1)) <img src=x onerror=y>"))).toBe(
      "x &lt;img src=x onerror=y&gt;",
    );
  });

  it("sets mark characters in text off so they cannot format (literal log text)", () => {
    const out = renderSlack(literalTree("tool: grep(*_x_*) `y` ~z~"));
    expect(out.replaceAll(ZWSP, "")).toBe("tool: grep(*_x_*) `y` ~z~");
    expect(out).not.toMatch(/(^|\s)[*_~`]\S/);
  });

  it("leaves a bare URL in literal text intact so Slack still links it", () => {
    expect(renderSlack(literalTree("see https://e.x/a_b_c?x=1&y=2 and _z_"))).toBe(
      `see https://e.x/a_b_c?x=1&amp;y=2 and ${ZWSP}_${ZWSP}z${ZWSP}_${ZWSP}`,
    );
  });

  it("keeps code as typed apart from the three entities", () => {
    expect(renderSlack(md("`a*b<c`\n\n```\nif (a && b) {}\n```"))).toBe(
      "`a*b&lt;c`\n\n```\nif (a &amp;&amp; b) {}\n```",
    );
  });
});

describe("Discord markdown", () => {
  it("neutralizes @everyone, @here and role mentions unless allowed", () => {
    const tree = extractMentions(md("@everyone <@&55> <@42> <#7> @here"), discordMentions);
    expect(renderDiscord(tree)).toBe(`@${ZWSP}everyone @55 <@42> <#7> @${ZWSP}here`);
    expect(renderDiscord(tree, { allowMentions: { everyone: true, roles: ["55"] } })).toBe(
      "@everyone <@&55> <@42> <#7> @here",
    );
    // Typed mention syntax that was not extracted is text: escaped, never a ping.
    expect(renderDiscord(md("<@&55> @everyone"))).toBe(`\\<@&55\\> @${ZWSP}everyone`);
  });

  it("backslash-escapes markup in text and keeps code verbatim", () => {
    expect(renderDiscord(literalTree("**not bold** _x_ # h"))).toBe(
      "\\*\\*not bold\\*\\* \\_x\\_ \\# h",
    );
    expect(renderDiscord(md("**b** `a*b` ~~s~~\n\n```ts\nx**y\n```"))).toBe(
      "**b** `a*b` ~~s~~\n\n```ts\nx**y\n```",
    );
  });

  it("writes masked links only for safe URLs", () => {
    expect(renderDiscord(md("[a](https://e.x/(1)) [b](javascript:x)"))).toBe(
      "[a](https://e.x/%281%29) b",
    );
  });
});

describe("Matrix HTML", () => {
  it("sanitizes: raw HTML is text, unsafe links are dropped, only allowed tags remain", () => {
    const html = renderMatrixHtml(
      md('**hi** <script>alert(1)</script> [x](javascript:alert(1)) <a href="javascript:y">z</a>'),
    );
    expect(html).toBe(
      '<p><strong>hi</strong> &#x3C;script>alert(1)&#x3C;/script> x &#x3C;a href="javascript:y">z&#x3C;/a></p>',
    );
    expect(html).not.toMatch(/<(script|img|a )/);
  });

  it("gives a plain body, line breaks as <br>, code with its language and pills", () => {
    const tree = extractMentions(literalTree("a\nb <@U1>"), slackMentions);
    expect(renderMatrix(tree)).toEqual({
      msgtype: "m.text",
      body: "a\nb @U1",
      format: "org.matrix.custom.html",
      formatted_body: '<p>a<br>\nb <a href="https://matrix.to/#/U1">U1</a></p>',
    });
    expect(renderMatrixHtml(md("```ts\nx < 1\n```"))).toBe(
      '<pre><code class="language-ts">x &#x3C; 1\n</code></pre>',
    );
  });
});

describe("Google Chat / CommonMark", () => {
  it("escapes literal text and writes users mentions", () => {
    expect(renderCommonMark(literalTree("2 * 3 <b>\nnext"))).toBe("2 \\* 3 \\<b>\nnext");
    const tree = extractMentions(md("hi <@U1> <!here>"), slackMentions);
    expect(renderGoogleChat(tree)).toBe("hi <users/U1> @here");
    expect(renderGoogleChat(tree, { allowMentions: { everyone: true } })).toBe(
      "hi <users/U1> <users/all>",
    );
  });
});

describe("bodyTree", () => {
  it("parses markdown bodies and keeps literal bodies literal", () => {
    expect(renderSlack(bodyTree({ markdown: "*x*" }))).toBe("_x_");
    expect(renderSlack(bodyTree({ markdown: "*x*", literal: true })).replaceAll(ZWSP, "")).toBe(
      "*x*",
    );
    expect(renderDiscord(bodyTree({ markdown: "", plain: "<b>" }))).toBe("\\<b\\>");
  });
});
