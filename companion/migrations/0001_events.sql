-- Games, hands and the events they are made of. Events are the only truth:
-- a game's state is a fold over its events, and a correction is a new event.
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    created     REAL    NOT NULL,              -- unix time
    source      TEXT    NOT NULL CHECK (source IN ('camera', 'web', 'simulator')),
    author      TEXT,
    rules       TEXT    NOT NULL,              -- preset name, from GameStarted
    ended       REAL                           -- unix time the game was over, NULL while open
);

CREATE TABLE hands (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    hand_no     INTEGER NOT NULL CHECK (hand_no >= 1),
    first_seq   INTEGER NOT NULL,              -- first event of the hand
    last_seq    INTEGER NOT NULL,              -- last event of the hand so far
    result      TEXT,                          -- JSON score result once the hand is over
    PRIMARY KEY (game_id, hand_no)
);

CREATE TABLE events (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),   -- position in the game's stream, from 0
    hand_no     INTEGER,                       -- hand the event belongs to (NULL: game set-up)
    type        TEXT    NOT NULL,
    data        TEXT    NOT NULL,              -- the event's JSON form
    source      TEXT    NOT NULL CHECK (source IN ('camera', 'web', 'simulator')),
    ts          REAL    NOT NULL,
    confidence  REAL    CHECK (confidence IS NULL OR (confidence >= 0 AND confidence <= 1)),
    author      TEXT,
    PRIMARY KEY (game_id, seq)
);
