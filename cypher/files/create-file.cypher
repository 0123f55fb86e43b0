// Metadata of one upload, owned by its uploader. Several File nodes may share one sha256 (the same
// content uploaded twice): each upload is its own id, name and owner over one stored blob.
MATCH (u:User {uid: $uploader_uid})
CREATE (u)-[:UPLOADED {at: datetime($now)}]->(f:File {
  file_id: $file_id, filename: $filename, content_type: $content_type, size: $size, sha256: $sha256,
  created_at: datetime($now)
})
RETURN f {.file_id, .filename, .content_type, .size, .sha256} AS file
