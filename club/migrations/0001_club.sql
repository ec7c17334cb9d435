-- The club server's own file. The tables' events are kept as the tables sent
-- them (each table's store stays the truth); the concours is the club's own.
CREATE TABLE club_tables (
    table_no    INTEGER PRIMARY KEY CHECK (table_no BETWEEN 1 AND 999),
    last_seq    INTEGER NOT NULL DEFAULT 0     -- last event stored: 1, 2, 3... with no gap
);

CREATE TABLE events (
    table_no    INTEGER NOT NULL REFERENCES club_tables(table_no),
    seq         INTEGER NOT NULL CHECK (seq >= 1),     -- position in the table's whole store
    game_id     INTEGER NOT NULL,              -- the table's own game number
    game_seq    INTEGER NOT NULL CHECK (game_seq >= 0),
    hand_no     INTEGER,
    type        TEXT    NOT NULL,
    data        TEXT    NOT NULL,              -- the event's JSON form, as the table stored it
    source      TEXT    NOT NULL,
    ts          REAL    NOT NULL,              -- when the table stored it
    confidence  REAL,
    author      TEXT,
    received    REAL    NOT NULL,              -- when the club stored it
    PRIMARY KEY (table_no, seq),
    UNIQUE (table_no, game_id, game_seq)
);

CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    created     REAL    NOT NULL
);

CREATE TABLE concours (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    created     REAL    NOT NULL,
    rounds      INTEGER NOT NULL CHECK (rounds >= 1),
    hands       INTEGER CHECK (hands IS NULL OR hands >= 1),      -- hands per round
    target      INTEGER CHECK (target IS NULL OR target >= 1),    -- or a target
    minutes     INTEGER CHECK (minutes IS NULL OR minutes >= 1),  -- or a time limit
    rules       TEXT    NOT NULL DEFAULT 'ffb',
    ranking     TEXT    NOT NULL DEFAULT 'wins-points',
    draw        TEXT    NOT NULL DEFAULT 'draw' CHECK (draw IN ('draw', 'rotate')),
    seed        INTEGER NOT NULL DEFAULT 1,
    current     INTEGER NOT NULL DEFAULT 0     -- the round in play (0: not started)
);

CREATE TABLE teams (
    id          INTEGER PRIMARY KEY,
    concours_id INTEGER NOT NULL REFERENCES concours(id),
    name        TEXT    NOT NULL,
    player1     INTEGER NOT NULL REFERENCES players(id),
    player2     INTEGER NOT NULL REFERENCES players(id),
    UNIQUE (concours_id, name)
);

CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    concours_id INTEGER NOT NULL REFERENCES concours(id),
    round       INTEGER NOT NULL CHECK (round >= 1),
    table_no    INTEGER NOT NULL,
    team_ns     INTEGER NOT NULL REFERENCES teams(id),
    team_ew     INTEGER REFERENCES teams(id),            -- NULL: a bye (odd number of teams)
    sent        REAL    NOT NULL,
    UNIQUE (concours_id, round, table_no)
);
