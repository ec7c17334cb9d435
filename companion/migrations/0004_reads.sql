-- What the camera saw of each card it played, not only its answer: the
-- likeliest cards over every frame the card was seen in, with their
-- probabilities (JSON: [{"card": "JH", "p": 0.81, "frames": 9}, ...], likeliest
-- first), and how many frames it was seen in. NULL for the cards stored before.
ALTER TABLE evidence ADD COLUMN reads TEXT;
ALTER TABLE evidence ADD COLUMN frames INTEGER CHECK (frames IS NULL OR frames >= 0);
