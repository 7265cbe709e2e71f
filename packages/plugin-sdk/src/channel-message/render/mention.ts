/**
 * Mentions as mdast nodes: a `mention` phrasing node the dialect serializers render in the
 * platform's own syntax (Slack `<@U…>`, Discord `<@id>`, Google Chat `<users/…>`, Matrix
 * `matrix.to` links), and {@link extractMentions}, which finds a platform's mention syntax in the
 * text of a tree (DESIGN §8, "Rendering dialects").
 *
 * @module
 */
import type { Html, Node, Nodes, PhrasingContent, Root, Text } from "mdast";

/**
 * A mention of a user, a channel, a role or group, or everyone in the conversation.
 * - `user`: a person (`id` is the platform user id: Slack `U…`, Discord snowflake, Google Chat
 *   `users/…`, Matrix `@user:server`);
 * - `channel`: a channel or room (Slack `C…`, Discord channel id, Matrix `!room:server`);
 * - `role`: a role or user group (Discord role id, Slack `subteam^S…` id);
 * - `everyone` / `here`: everyone in the conversation / everyone online (Slack `<!channel>` /
 *   `<!here>`, Discord `@everyone` / `@here`, Google Chat `<users/all>`).
 */
export interface Mention extends Node {
  type: "mention";
  kind: "user" | "channel" | "role" | "everyone" | "here";
  /** Platform id; absent for `everyone` and `here`. */
  id?: string;
  /** What a reader sees when the platform cannot show the mention natively, without the `@`. */
  label?: string;
}

declare module "mdast" {
  interface ListItemData {
    /**
     * Set by `chunkMarkdown` on an item that began in an earlier chunk: serializers write no
     * marker (bullet or number) for it again.
     */
    continued?: boolean;
  }
  interface PhrasingContentMap {
    mention: Mention;
  }
  interface RootContentMap {
    mention: Mention;
  }
}

/**
 * One platform's mention syntax: `pattern` (global) finds candidates in text, `parse` turns a
 * match into a mention (or `undefined` to leave the match as text).
 */
export type MentionSyntax = {
  pattern: RegExp;
  parse(match: RegExpExecArray): Mention | undefined;
};

/** Which mentions a serializer renders as live mentions; the others are shown as inert text. */
export type AllowedMentions = {
  /** Users. @defaultValue true */
  users?: boolean;
  /** Channels and rooms. @defaultValue true */
  channels?: boolean;
  /** Roles and groups: `true`, or the ids allowed. @defaultValue false */
  roles?: boolean | readonly string[];
  /** `everyone` and `here` (whole-conversation pings). @defaultValue false */
  everyone?: boolean;
};

/** True when `allow` lets `m` ping (defaults: users and channels yes, roles and everyone no). */
export function mentionAllowed(m: Mention, allow: AllowedMentions = {}): boolean {
  switch (m.kind) {
    case "user":
      return allow.users ?? true;
    case "channel":
      return allow.channels ?? true;
    case "role": {
      const roles = allow.roles ?? false;
      return typeof roles === "boolean" ? roles : m.id !== undefined && roles.includes(m.id);
    }
    default:
      return allow.everyone ?? false;
  }
}

/** The inert, human-readable form of a mention: `@label` (or `@id`, `#channel`, `@everyone`). */
export function mentionText(m: Mention): string {
  if (m.kind === "everyone" || m.kind === "here") return `@${m.label ?? m.kind}`;
  return `${m.kind === "channel" ? "#" : "@"}${m.label ?? m.id ?? m.kind}`;
}

const SKIP = new Set(["inlineCode", "code", "link", "linkReference", "mention"]);

/**
 * Returns a copy of `tree` in which every match of `syntax` inside text (not inside code,
 * links or raw HTML) is a `mention` node. The input tree is not changed.
 *
 * @example
 * ```ts
 * const tree = extractMentions(parseMarkdown("hi <@U123>"), slackMentions);
 * // paragraph: [text "hi ", mention { kind: "user", id: "U123" }]
 * ```
 */
export function extractMentions(tree: Root, syntax: MentionSyntax): Root {
  return mapChildren(tree, syntax) as Root;
}

function mapChildren(node: Nodes, syntax: MentionSyntax): Nodes {
  if (!("children" in node) || SKIP.has(node.type)) return node;
  const children: Nodes[] = [];
  for (const child of node.children as Nodes[]) {
    if (child.type === "text") children.push(...splitText(child, syntax));
    else if (child.type === "html") children.push(...splitHtml(child, syntax));
    else children.push(mapChildren(child, syntax));
  }
  return { ...node, children } as Nodes;
}

/** Raw HTML such as `<!here>` that is exactly one mention becomes that mention. */
function splitHtml(node: Html, syntax: MentionSyntax): PhrasingContent[] {
  const parts = splitText({ type: "text", value: node.value }, syntax);
  return parts.length === 1 && parts[0]?.type === "mention" ? parts : [node];
}

function splitText(node: Text, syntax: MentionSyntax): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  const re = new RegExp(syntax.pattern.source, `${syntax.pattern.flags.replace("g", "")}g`);
  let last = 0;
  for (let m = re.exec(node.value); m; m = re.exec(node.value)) {
    if (m[0] === "") {
      re.lastIndex++;
      continue;
    }
    const mention = syntax.parse(m);
    if (!mention) continue;
    if (m.index > last) out.push({ type: "text", value: node.value.slice(last, m.index) });
    out.push(mention);
    last = m.index + m[0].length;
  }
  if (last === 0) return [node];
  if (last < node.value.length) out.push({ type: "text", value: node.value.slice(last) });
  return out;
}
