-- Worker nodes and their heartbeats: a node whose heartbeat stops is dead,
-- and the jobs it was running go back to the queue (jobs.Queue).
CREATE TABLE nodes (
    id           TEXT PRIMARY KEY,
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);
CREATE INDEX nodes_heartbeat ON nodes (heartbeat_at);
