// Takes the write lock of every user about to get a notification, in uid order (the caller sorts),
// as its own statement: the next statement then reads each user's sequence under the lock, so two
// transactions can never both read the same number (a read inside one statement may be older).
UNWIND $uids AS uid
MATCH (u:User {uid: uid})
SET u._event_lock = true
