"""Infrastructure with no knowledge of skills: the safe file layer (atomic writes confined to a
root, capped reads of regular files only, the one link escape rule), locking, staging folders,
ownership records, the git layer, JSON in the file's own style, tree copies, archives and the
dirhash content hash.

Nothing here imports the rest of the package, so every family can lean on it."""
