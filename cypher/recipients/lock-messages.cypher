// Takes the write lock of each message whose recipients are about to change, in id order (the
// caller sorts), as its own statement: the next statement then reads each message's receivers
// under the lock, so two identical adds cannot both see "no edge yet" and both report `added`.
UNWIND $message_ids AS id
MATCH (m:Message {id: id})
SET m.recipients_changed_at = datetime()
RETURN count(m) AS locked
