"""The words of the bot's messages, by the surface they appear on: moves, posts, DMs, the lobby, the archive, a
person's own things, notices; ``common`` holds what all of them are made of."""
