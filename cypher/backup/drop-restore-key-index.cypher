DROP INDEX skein_restore_id IF EXISTS
