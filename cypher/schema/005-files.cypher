// Uploaded files: file_id is the 8-hex public id (a clash fails the write, and the repository
// retries with a new id). The blob itself lives on disk, addressed by File.sha256.
CREATE CONSTRAINT file_id IF NOT EXISTS FOR (f:File) REQUIRE f.file_id IS UNIQUE;
