-- A hand's score is not stored: it is folded from the hand's events like the rest
-- of the state. The result column kept a copy written once when the hand ended,
-- which a later correction (a CardCorrected event) left stale, and nothing read it.
ALTER TABLE hands DROP COLUMN result;
