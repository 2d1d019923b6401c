"""Delivery: everything the bot sends, paced per chat: the live message, the outbox, typing."""
