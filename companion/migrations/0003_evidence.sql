-- The camera's evidence for each card it played: what it read, how sure it
-- was, and the picture it read (a small JPEG), so the organiser and the
-- history can see why a card was read so, and what a correction replaced.
CREATE TABLE evidence (
    game_id     INTEGER NOT NULL,
    seq         INTEGER NOT NULL,              -- the event (CardPlayed or CardCorrected)
    card        TEXT,                          -- the card the camera read (NULL: unknown)
    confidence  REAL    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
    crop        BLOB,                          -- JPEG of what the camera read
    PRIMARY KEY (game_id, seq),
    FOREIGN KEY (game_id, seq) REFERENCES events(game_id, seq)
);
