-- One delivery per (event, webhook): made in the transaction that writes the event, for every
-- webhook that is active then and subscribed to it, so that a webhook paused when the event
-- happens never gets it and none is lost in a crash. Dispatchers claim due deliveries with a
-- lease, send them and record each attempt here.
create table webhook_deliveries (
    id UUID primary key,
    webhook_id UUID not null references webhooks (id) on delete cascade,
    event_id UUID not null references events (id) on delete cascade,
    status text not null,
    attempts integer not null default 0,
    -- failed attempts since the delivery was made or redelivered: where the retry schedule is
    retry_step integer not null default 0,
    response_code integer,
    error_message text,
    last_attempt_at TIMESTAMP,
    next_attempt_at TIMESTAMP,
    lease_owner text,
    lease_until TIMESTAMP,
    created_at TIMESTAMP not null
);

create unique index webhook_deliveries_event on webhook_deliveries (event_id, webhook_id);
create index webhook_deliveries_log on webhook_deliveries (webhook_id, created_at, id);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status in ('PENDING', 'RETRYING');
