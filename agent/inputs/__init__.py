"""What a student sent besides text, read by Glassbox before the model sees it: a photo's
text (embedded OCR). What was read is a step of the chain of its own (`agent.events.InputRead`),
shown as Glassbox's, never as the model's; a voice message's transcript is meant to be a
second kind of that same step."""
