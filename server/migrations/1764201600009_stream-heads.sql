-- Up Migration
-- The delivery stream numbered per project by a row of its own: a change that publishes an event takes the next
-- number with `UPDATE ... RETURNING` on its project's row, which stays locked until it commits, so one project's
-- numbers commit in their order, never twice, and other projects never wait. No process keeps the stream: a listener's
-- process reads the rows past what it sent when `NOTIFY` names the project.
CREATE TABLE stream_heads (project_id text PRIMARY KEY, n bigint NOT NULL);
INSERT INTO stream_heads (project_id, n) SELECT project_id, max(n) FROM stream GROUP BY project_id;

-- Down Migration
DROP TABLE stream_heads;
