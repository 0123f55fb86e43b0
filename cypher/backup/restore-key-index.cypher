CREATE INDEX skein_restore_id IF NOT EXISTS FOR (n:SkeinRestore) ON (n.skein_restore_id)
