// Deliveries waiting (due now or for a retry): the webhook queue depth operators watch.
MATCH (d:Delivery)
WHERE d.state = 'pending'
RETURN count(d) AS pending
