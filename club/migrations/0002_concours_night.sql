-- A club night as clubs run it (issue 75): the exempt team's points, results
-- the organiser enters by hand, and mix-ups (a table's events from another
-- store than the one the club holds) kept apart until the organiser decides.
ALTER TABLE concours ADD COLUMN bye_points INTEGER NOT NULL DEFAULT 0 CHECK (bye_points >= 0);

-- A match's result entered on the club server (a table whose Pi failed): the
-- latest entry of a match counts; earlier ones stay.
CREATE TABLE manual_results (
    id          INTEGER PRIMARY KEY,
    match_id    INTEGER NOT NULL REFERENCES matches(id),
    points_ns   INTEGER NOT NULL CHECK (points_ns >= 0),
    points_ew   INTEGER NOT NULL CHECK (points_ew >= 0),
    entered     REAL    NOT NULL             -- the club server's clock
);

-- Which table's store each club table's events come from: ``origin`` is the
-- table's store identity (sent with each event); ``topic_no`` is the table
-- number the Pi publishes as (NULL: its own number), for the events of a
-- second store the organiser kept under another number.
ALTER TABLE club_tables ADD COLUMN origin TEXT;
ALTER TABLE club_tables ADD COLUMN topic_no INTEGER;

-- Events of a store the club did not expect on a table's topic, kept as they
-- came until the organiser decides (never dropped).
CREATE TABLE strays (
    topic_no    INTEGER NOT NULL,
    origin      TEXT    NOT NULL,
    seq         INTEGER NOT NULL,
    payload     TEXT    NOT NULL,
    received    REAL    NOT NULL,
    PRIMARY KEY (topic_no, origin, seq)
);

CREATE TABLE mixups (
    id          INTEGER PRIMARY KEY,
    topic_no    INTEGER NOT NULL,
    origin      TEXT    NOT NULL,
    seen        REAL    NOT NULL,             -- first stray event received
    decision    TEXT    CHECK (decision IN ('keep', 'set-aside')),
    decided     REAL,
    table_no    INTEGER,                      -- 'keep': the club number its events go under
    UNIQUE (topic_no, origin)
);
