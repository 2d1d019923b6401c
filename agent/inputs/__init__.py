"""What a student sent besides text: a photo's text read by Glassbox (embedded OCR), a voice
message heard (bot/voice), or a photo given to the model itself as an image when its endpoint
takes images (agent/model: photo_route, photo_calls). What was read is a step of the chain of
its own (`agent.events.InputRead`), shown as Glassbox's or as the model's, never the one as
the other."""
