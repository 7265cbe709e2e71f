/**
 * Bot API `Update`s in the shapes the Bot API documentation gives
 * (https://core.telegram.org/bots/api#update, https://core.telegram.org/bots/webhooks
 * "Testing your bot with updates"): private text, group text with mention entities, a forum
 * topic message, a photo with a caption, an edited message, a callback query and a channel post.
 * Used by the normalization tests and by anyone testing a bot built on this plugin.
 *
 * @module
 */

/** The bot the fixtures address (matches the fake server's default bot). */
export const FIXTURE_BOT = {
  id: 7000001,
  username: "herald_test_bot",
  first_name: "herald test",
  token: "7000001:AAH4fakeTokenForHeraldTests_x9Qz",
} as const;

const alice = {
  id: 1111111,
  is_bot: false,
  first_name: "Test",
  last_name: "Lastname",
  username: "Test",
  language_code: "en",
};

/** Private chat: the classic `/start` update of the webhook testing guide, with its entity. */
export const privateTextUpdate = {
  update_id: 10000,
  message: {
    date: 1441645532,
    chat: {
      last_name: "Lastname",
      id: 1111111,
      first_name: "Test",
      username: "Test",
      type: "private",
    },
    message_id: 1365,
    from: alice,
    text: "/start",
    entities: [{ type: "bot_command", offset: 0, length: 6 }],
  },
};

/** Group text mentioning the bot (`mention` entity) and a user without a username (`text_mention`). */
export const groupMentionUpdate = {
  update_id: 10001,
  message: {
    message_id: 52,
    date: 1441645600,
    chat: { id: -1001234567890, title: "Project chat", type: "supergroup" },
    from: alice,
    text: "@herald_test_bot please ask Bob",
    entities: [
      { type: "mention", offset: 0, length: 16 },
      {
        type: "text_mention",
        offset: 28,
        length: 3,
        user: { id: 2222222, is_bot: false, first_name: "Bob" },
      },
    ],
  },
};

/** A message in forum topic 42 (`is_topic_message`, implicit reply to the topic's first message). */
export const forumTopicUpdate = {
  update_id: 10002,
  message: {
    message_id: 77,
    message_thread_id: 42,
    is_topic_message: true,
    date: 1441645700,
    chat: { id: -1009876543210, title: "Support forum", type: "supergroup", is_forum: true },
    from: alice,
    reply_to_message: {
      message_id: 42,
      date: 1441640000,
      chat: { id: -1009876543210, title: "Support forum", type: "supergroup", is_forum: true },
      from: alice,
      forum_topic_created: { name: "Billing", icon_color: 7322096 },
    },
    text: "How do I change my plan?",
  },
};

/** A photo (several sizes) with a caption that has a bold entity. */
export const photoWithCaptionUpdate = {
  update_id: 10003,
  message: {
    message_id: 1366,
    date: 1441645800,
    chat: { id: 1111111, first_name: "Test", type: "private" },
    from: alice,
    photo: [
      { file_id: "AgAD-small", file_unique_id: "AQADs", file_size: 1434, width: 90, height: 67 },
      {
        file_id: "AgAD-large",
        file_unique_id: "AQADl",
        file_size: 61234,
        width: 1280,
        height: 960,
      },
    ],
    caption: "Receipt for March",
    caption_entities: [{ type: "bold", offset: 12, length: 5 }],
  },
};

/** An edit of the private message 1365. */
export const editedMessageUpdate = {
  update_id: 10004,
  edited_message: {
    message_id: 1365,
    date: 1441645532,
    edit_date: 1441645900,
    chat: { id: 1111111, first_name: "Test", type: "private" },
    from: alice,
    text: "/start again",
  },
};

/** A pressed inline button under the bot's message 1367. */
export const callbackQueryUpdate = {
  update_id: 10005,
  callback_query: {
    id: "4382bfdwdsb323b2d9",
    from: alice,
    message: {
      message_id: 1367,
      date: 1441645950,
      chat: { id: 1111111, first_name: "Test", type: "private" },
      from: {
        id: FIXTURE_BOT.id,
        is_bot: true,
        first_name: FIXTURE_BOT.first_name,
        username: FIXTURE_BOT.username,
      },
      text: "Deploy now?",
    },
    chat_instance: "-7851739485231",
    data: "deploy:yes",
  },
};

/** A post in a channel (`sender_chat`, no `from`). */
export const channelPostUpdate = {
  update_id: 10006,
  channel_post: {
    message_id: 310,
    date: 1441646000,
    chat: { id: -1005555555555, title: "Release notes", username: "releasenotes", type: "channel" },
    sender_chat: {
      id: -1005555555555,
      title: "Release notes",
      username: "releasenotes",
      type: "channel",
    },
    author_signature: "Ops",
    text: "v2.1 is out",
  },
};
