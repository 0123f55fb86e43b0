// Third statement of a redelivery: the delivery is pending and due at once, marked as asked for by
// hand (one attempt, no new retry schedule; see delivery-policy.ts). It keeps its webhook_id, event,
// attempt count and log; the dispatcher claims it like any other, builds the body from the graph as it
// is then, and drops it if nothing is left to show. Answers it as the delivery log shows it.
MATCH (d:Delivery {webhook_id: $webhook_id})
SET d.state = 'pending',
    d.next_attempt_at = datetime(),
    d.redelivery = true,
    d.redelivery_asked_at = datetime()
WITH d
OPTIONAL MATCH (e:Event {id: d.event_id})
RETURN d {.webhook_id, .type, .url, .state, .attempts, .last_status, .last_error, .log,
          next_attempt_at: d.next_attempt_at, created_at: d.created_at, delivered_at: d.delivered_at} AS delivery,
       e {.*, created_at: e.created_at} AS event
